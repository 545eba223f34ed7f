package banking

import (
	"context"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
)

// transferReasons are tau2's TransferReasonLiteral values, in order.
var transferReasons = []string{
	"fraud_or_security_concern", "account_closure_request", "deceased_account_holder",
	"legal_or_regulatory_matter", "account_ownership_dispute", "complex_billing_dispute",
	"abusive_customer_behavior", "third_party_inquiry", "technical_system_error",
	"unconfirmed_external_communication", "customer_demands_after_unavailable_offer_refusal",
	"kb_search_unsuccessful_customer_requests_transfer", "specialized_department_required",
	"accessibility_or_special_needs", "customer_frustrated_demands_human",
	"supervisor_request_service_complaint", "customer_requests_human_no_specific_reason",
	"request_completed_customer_wants_human_followup", "other",
}

// agentParams are the agent tools' Python parameters ("?": has a default).
var agentParams = map[string][]string{
	"transfer_to_human_agents":             {"summary", "?reason"},
	"get_current_time":                     {},
	"get_user_information_by_id":           {"user_id"},
	"get_user_information_by_name":         {"customer_name"},
	"get_user_information_by_email":        {"email"},
	"change_user_email":                    {"user_id", "new_email"},
	"get_referrals_by_user":                {"user_id"},
	"get_credit_card_transactions_by_user": {"user_id"},
	"get_credit_card_accounts_by_user":     {"user_id"},
	"log_verification":                     {"name", "user_id", "address", "email", "phone_number", "date_of_birth", "time_verified"},
	"give_discoverable_user_tool":          {"discoverable_tool_name", "?arguments"},
	"unlock_discoverable_agent_tool":       {"agent_tool_name"},
	"call_discoverable_agent_tool":         {"agent_tool_name", "?arguments"},
	"list_discoverable_agent_tools":        {},
}

// Tools returns the agent's toolbox: tau2's KnowledgeTools without the
// retrieval tools of a retrieval configuration (see ToolsWith).
func Tools() *domains.Toolbox[DB] { return ToolsWith(nil) }

// ToolsWith returns the agent's toolbox with a retrieval configuration's
// tools (nil: none) first, in tau2's order: its composed toolkits list the
// retrieval mixins' tools (KB_search, then grep) before KnowledgeTools'.
func ToolsWith(retrieval *knowledge.Toolset) *domains.Toolbox[DB] {
	tb := domains.NewToolbox[DB]()
	if retrieval != nil {
		for _, spec := range retrieval.Specs() {
			// Under the simulation's context: a dense KB_search's
			// embeddings call is bounded by it and metered into its ledger.
			tb.RegisterContext(spec.Name, spec.Description, string(spec.Parameters), func(ctx context.Context, _ *DB, args domains.Args) (any, error) {
				return retrieval.CallContext(ctx, spec.Name, args)
			})
		}
	}
	agentDisc := discoverables(agentDiscoverableInfos, agentBodies())
	userDisc := discoverables(userDiscoverableInfos, nil)
	register(tb, agentToolSpecs, agentClass, agentParams, map[string]func(*DB, *Obj) string{
		"transfer_to_human_agents": transferToHumanAgents,
		"get_current_time":         func(*DB, *Obj) string { return "The current time is 2025-11-14 03:40:00 EST." },
		"get_user_information_by_id": func(db *DB, a *Obj) string {
			return db.queryField("users", "user_id", str(a, "user_id", ""))
		},
		"get_user_information_by_name": func(db *DB, a *Obj) string {
			return db.queryField("users", "name", str(a, "customer_name", ""))
		},
		"get_user_information_by_email": func(db *DB, a *Obj) string {
			return db.queryField("users", "email", str(a, "email", ""))
		},
		"change_user_email": changeUserEmail,
		"get_referrals_by_user": func(db *DB, a *Obj) string {
			return db.queryField("referrals", "referrer_id", str(a, "user_id", ""))
		},
		"get_credit_card_transactions_by_user": func(db *DB, a *Obj) string {
			return db.queryField("credit_card_transaction_history", "user_id", str(a, "user_id", ""))
		},
		"get_credit_card_accounts_by_user": func(db *DB, a *Obj) string {
			return db.queryField("credit_card_accounts", "user_id", str(a, "user_id", ""))
		},
		"log_verification": logVerification,
		"give_discoverable_user_tool": func(db *DB, a *Obj) string {
			return giveUserTool(db, a, userDisc)
		},
		"unlock_discoverable_agent_tool": func(db *DB, a *Obj) string {
			return unlockAgentTool(db, a, agentDisc)
		},
		"call_discoverable_agent_tool": func(db *DB, a *Obj) string {
			return callAgentTool(db, a, agentDisc)
		},
		"list_discoverable_agent_tools": func(db *DB, _ *Obj) string {
			res := db.queryTool("agent_discoverable_tools", NewObj())
			if strings.Contains(res, "No results found") {
				return "No agent tools have been called yet. Search the knowledge base to discover available tools."
			}
			return "Your called agent tools:\n" + res
		},
	})
	registerDiscoverables(tb, agentDisc, agentClass, func(db *DB) *DB { return db })
	return tb
}

func transferToHumanAgents(_ *DB, a *Obj) string {
	reason := str(a, "reason", "other")
	if !slices.Contains(transferReasons, reason) {
		return errorf("Invalid transfer reason '%s'. Must be one of: %s", reason, strings.Join(transferReasons, ", "))
	}
	return "Transfer successful (reason: " + reason + "). A human agent will assist you shortly."
}

func changeUserEmail(db *DB, a *Obj) string {
	id, email := str(a, "user_id", ""), arg(a, "new_email")
	rec, ok := db.record("users", id)
	if !ok {
		return errorf("User with ID '%s' not found.", id)
	}
	rec.Set("email", email)
	return "Email updated successfully.\n  - User ID: " + id + "\n  - New Email: " + pyStr(email)
}

func logVerification(db *DB, a *Obj) string {
	userID, when := str(a, "user_id", ""), str(a, "time_verified", "")
	rec := NewObj()
	for _, f := range []string{"name", "user_id", "address", "email", "phone_number", "date_of_birth", "time_verified"} {
		rec.Set(f, arg(a, f))
	}
	if !db.addRecord("verification_history", verificationID(userID, when), rec) {
		return "Failed to log verification: Record may already exist."
	}
	return "Verification logged successfully.\n  - User: " + str(a, "name", "") + " (ID: " + userID + ")\n  - Verified at: " + when
}

// giveUserTool is give_discoverable_user_tool.
func giveUserTool(db *DB, a *Obj, user map[string]discoverable) string {
	name := str(a, "discoverable_tool_name", "")
	d, ok := user[name]
	if !ok {
		return errorf("Unknown discoverable tool '%s'.", name)
	}
	args, errMsg := loadArguments(a, false)
	if errMsg != "" {
		return errMsg
	}
	if errMsg := unexpectedParam(args, d.info.Signature, true); errMsg != "" {
		return errMsg
	}
	db.addRecord("user_discoverable_tools", userDiscoverableToolID(name), objOf("tool_name", name, "status", "GIVEN"))
	argsStr := "(no arguments)"
	if truthy(args) {
		argsStr = pyDumps(args, 2)
	}
	return "Tool given to user: " + name + "\nDescription: " + d.info.Description + "\nArguments: " + argsStr +
		"\n\nThe user can now execute this action by calling `call_discoverable_user_tool` with discoverable_tool_name='" +
		name + "' and the same arguments."
}

// loadArguments reads a discoverable call's "arguments" (a JSON string,
// "{}" when absent) as tau2's json.loads does: any JSON value; errMsg is
// tau2's answer when it is not JSON, or the TypeError json.loads raises
// (outside the tools' try blocks) when it is no str.
func loadArguments(a *Obj, intsAsFloats bool) (args any, errMsg string) {
	raw, ok := a.Get("arguments")
	if !ok {
		return NewObj(), ""
	}
	s, isStr := raw.(string)
	if !isStr {
		return nil, raiseTypeError("the JSON object must be str, bytes or bytearray, not " + pyTypeName(raw))
	}
	v, err := parseJSON(s, intsAsFloats)
	if err != nil {
		return nil, "Error: Invalid JSON in arguments: " + err.Error()
	}
	return v, ""
}

// parseArguments is loadArguments for method(**args): errMsg is also the
// TypeError of ** given no mapping, which call_discoverable_agent_tool
// catches. qualname is the method's in that TypeError's text.
func parseArguments(a *Obj, intsAsFloats bool, qualname string) (args *Obj, errMsg string) {
	v, errMsg := loadArguments(a, intsAsFloats)
	if errMsg != "" {
		return nil, errMsg
	}
	o, ok := v.(*Obj)
	if !ok {
		return nil, "Error: Invalid arguments: " + notMappingError(qualname, v)
	}
	return o, ""
}

// notMappingError is the TypeError of method(**v) for a v that is no dict.
func notMappingError(qualname string, v any) string {
	return qualname + "() argument after ** must be a mapping, not " + pyTypeName(v)
}

// agentQualname is the qualified name Python gives an agent discoverable
// tool in a TypeError of its call.
func agentQualname(name string) string {
	return "tau2.domains.banking_knowledge.tools." + agentClass + "." + name
}

// pyTypeName is the name of a value's Python type: pycompat's, and dict
// for the banking database's ordered objects.
func pyTypeName(v any) string {
	if _, ok := v.(*Obj); ok {
		return "dict"
	}
	return pycompat.TypeName(v)
}

// unlockAgentTool is unlock_discoverable_agent_tool.
func unlockAgentTool(db *DB, a *Obj, agent map[string]discoverable) string {
	name := str(a, "agent_tool_name", "")
	d, ok := agent[name]
	if !ok {
		return errorf("Unknown agent tool '%s'. This tool is not available.", name)
	}
	db.unlocked[name] = true
	return "Tool unlocked: " + name + "\nDescription: " + d.info.Description + "\n\n" + d.info.formatForAgent() +
		"\n\nYou can now use this tool by calling `call_discoverable_agent_tool` with agent_tool_name='" +
		name + "' and the required arguments."
}

// callAgentTool is call_discoverable_agent_tool: it runs an unlocked tool
// and logs the call when the tool writes or the task's gold trajectory
// calls it (the read-log allowlist).
func callAgentTool(db *DB, a *Obj, agent map[string]discoverable) string {
	name := str(a, "agent_tool_name", "")
	d, ok := agent[name]
	if !ok {
		return errorf("Unknown agent tool '%s'. This tool is not available.", name)
	}
	if !db.unlocked[name] {
		return errorf("Tool '%s' has not been unlocked. You must first use `unlock_discoverable_agent_tool` to unlock this tool before calling it.", name)
	}
	args, errMsg := parseArguments(a, true, agentQualname(name))
	if errMsg != "" {
		return errMsg
	}
	if err := d.info.bind(agentClass, args); err != nil {
		return "Error: Invalid arguments: " + err.Error()
	}
	res := d.run(db, args)
	if res, caught := catchTypeError(res, "Error: Invalid arguments: "); caught {
		return res
	}
	if _, _, ok := raised(res); ok {
		return res // the exception goes on up, and no call is logged
	}
	if d.info.Mutates || db.readAllow[name] {
		db.addRecord("agent_discoverable_tools", agentDiscoverableToolID(name), objOf("tool_name", name, "status", "CALLED"))
	}
	return res
}
