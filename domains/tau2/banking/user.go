package banking

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
)

// creditCardTypes are KnowledgeUserTools.VALID_CREDIT_CARD_TYPES.
var creditCardTypes = []any{
	"Bronze Rewards Card", "Business Bronze Rewards Card", "Business Gold Rewards Card",
	"Business Platinum Rewards Card", "Business Silver Rewards Card", "Crypto-Cash Back",
	"Diamond Elite Card", "EcoCard", "Gold Rewards Card", "Green Rewards Card",
	"Platinum Rewards Card", "Silver Rewards Card", "Silver Zoom Card",
}

// rewardRates are KnowledgeUserTools.CREDIT_CARD_REWARDS, in its order:
// card type, then category and rate pairs ending with "default".
var rewardRates = []struct {
	card  string
	rates [][2]any
}{
	{"Bronze Rewards Card", [][2]any{{"default", 1.0}}},
	{"Silver Rewards Card", [][2]any{{"Travel", 4.0}, {"Software", 4.0}, {"default", 1.0}}},
	{"Gold Rewards Card", [][2]any{{"default", 2.5}}},
	{"Platinum Rewards Card", [][2]any{{"default", 10.0}}},
	{"Business Bronze Rewards Card", [][2]any{{"default", 1.0}}},
	{"Business Silver Rewards Card", [][2]any{{"Travel", 10.0}, {"Software", 10.0}, {"default", 1.0}}},
	{"Green Rewards Card", [][2]any{{"Sustainable", 3.0}, {"default", 1.0}}},
	{"Business Gold Rewards Card", [][2]any{{"Operations", 2.5}, {"default", 1.0}}},
	{"Business Platinum Rewards Card", [][2]any{{"Travel", 4.0}, {"Software", 4.0}, {"Media", 4.0}, {"default", 1.5}}},
	{"Silver Zoom Card", [][2]any{{"Transportation", 3.0}, {"default", 1.0}}},
	{"Diamond Elite Card", [][2]any{{"default", 5.0}}},
	{"EcoCard", [][2]any{{"Green", 5.0}, {"default", 1.0}}},
	{"Crypto-Cash Back", [][2]any{{"default", 2.0}}},
}

var userParams = map[string][]string{
	"apply_for_credit_card":        {"card_type", "customer_name", "annual_income", "?rho_bank_subscription"},
	"submit_referral":              {"user_id", "account_type"},
	"call_discoverable_user_tool":  {"discoverable_tool_name", "?arguments"},
	"list_discoverable_user_tools": {},
	"request_human_agent_transfer": {},
	"submit_transaction":           {"user_id", "credit_card_type", "merchant_name", "amount", "category"},
}

// UserTools returns the user's toolbox: tau2's KnowledgeUserTools, on the
// database the agent's tools use.
func UserTools() *domains.Toolbox[UserView] {
	tb := domains.NewToolbox[UserView]()
	disc := discoverables(userDiscoverableInfos, userBodies())
	on := func(fn func(*DB, *Obj) string) func(*UserView, *Obj) string {
		return func(u *UserView, a *Obj) string { return fn(u.db, a) }
	}
	register(tb, userToolSpecs, userClass, userParams, map[string]func(*UserView, *Obj) string{
		"apply_for_credit_card": on(applyForCreditCard),
		"submit_referral":       on(submitReferral),
		"call_discoverable_user_tool": on(func(db *DB, a *Obj) string {
			return callUserTool(db, a, disc)
		}),
		"list_discoverable_user_tools": on(func(db *DB, _ *Obj) string {
			res := db.queryTool("user_discoverable_tools", NewObj())
			if strings.Contains(res, "No results found") {
				return "No tools have been given to you yet by the agent."
			}
			return "Tools given to you by the agent:\n" + res
		}),
		"request_human_agent_transfer": on(requestHumanTransfer),
		"submit_transaction":           on(submitTransaction),
	})
	registerDiscoverables(tb, disc, userClass, func(u *UserView) *DB { return u.db })
	return tb
}

func applyForCreditCard(db *DB, a *Obj) string {
	card := str(a, "card_type", "")
	if !slices.ContainsFunc(creditCardTypes, func(c any) bool { return pyEqual(c, arg(a, "card_type")) }) {
		return errorf("Invalid card_type '%s'. Must be one of: %s", card, pyRepr(creditCardTypes))
	}
	income, ok := pyFloat(arg(a, "annual_income"))
	if !ok {
		return "Error: Invalid annual_income. Must be a number."
	}
	sub, ok := a.Get("rho_bank_subscription")
	if !ok {
		sub = false
	}
	id := applicationID(card, str(a, "customer_name", ""), income, sub)
	rec := objOf("application_id", id, "card_type", arg(a, "card_type"), "customer_name", arg(a, "customer_name"),
		"annual_income", income, "rho_bank_subscription", sub, "status", "PENDING", "date", todayStr)
	if !db.addRecord("credit_card_applications", id, rec) {
		return "Failed to submit application: Record ID '" + id + "' may already exist."
	}
	return "Credit card application submitted:\nYour application has been successfully submitted. " +
		"You will receive a decision within 5-7 business days via email."
}

// pyFloat is Python's float() of a JSON value.
func pyFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64, float64, bool:
		return asFloat(x)
	case string:
		return pyParseFloat(x)
	}
	return 0, false
}

func submitReferral(db *DB, a *Obj) string {
	user, kind := str(a, "user_id", ""), str(a, "account_type", "")
	id := referralID(user, kind)
	rec := objOf("referral_id", id, "referrer_id", arg(a, "user_id"), "referred_account_type", arg(a, "account_type"),
		"referral_status", "NO_PROGRESS", "date", todayStr)
	if !db.addRecord("referrals", id, rec) {
		return "Failed to submit referral: Record ID '" + id + "' may already exist."
	}
	return "Referral request submitted successfully!\n  - Referral ID: " + id + "\n  - Referrer ID: " + user +
		"\n  - Account Type: " + kind + "\n  - Status: NO_PROGRESS\n  - Date: " + todayStr +
		"\n\nShare your referral ID with the person you're referring. They will need to use this when applying for their account."
}

func requestHumanTransfer(db *DB, _ *Obj) string {
	existing := db.queryTool("human_transfer_requests", NewObj())
	count := 1
	if !strings.Contains(existing, "No records found") && !strings.Contains(existing, "No results found") {
		count = strings.Count(existing, "request_id") + 1
	}
	id := fmt.Sprintf("transfer_request_%d", count)
	db.addRecord("human_transfer_requests", id, objOf("request_id", id, "request_number", int64(count),
		"requested_at", todayStr, "status", "PENDING"))
	return fmt.Sprintf("Transfer request #%d submitted.\nThe agent will process your request.", count)
}

func submitTransaction(db *DB, a *Obj) string {
	card := str(a, "credit_card_type", "")
	i := slices.IndexFunc(rewardRates, func(r struct {
		card  string
		rates [][2]any
	}) bool {
		return r.card == card
	})
	if i < 0 {
		cards := make([]any, len(rewardRates))
		for j, r := range rewardRates {
			cards[j] = r.card
		}
		return errorf("Unknown credit card type '%s'. Available types: %s", card, pyRepr(cards))
	}
	amount, category := arg(a, "amount"), str(a, "category", "")
	id := transactionID(str(a, "user_id", ""), card, str(a, "merchant_name", ""), amount, category)
	rates := rewardRates[i].rates
	rate := rates[len(rates)-1][1].(float64)
	for _, r := range rates {
		if r[0] == category {
			rate = r[1].(float64)
		}
	}
	amt, _ := asFloat(amount)
	points := int64(amt * rate)
	rec := objOf("transaction_id", id, "user_id", arg(a, "user_id"), "credit_card_type", arg(a, "credit_card_type"),
		"merchant_name", arg(a, "merchant_name"), "transaction_amount", "$"+pyFixed2(amount), "transaction_date", todayStr,
		"category", arg(a, "category"), "status", "COMPLETED", "rewards_earned", fmt.Sprintf("%d points", points))
	if !db.addRecord("credit_card_transaction_history", id, rec) {
		return "Failed to submit transaction: Record ID '" + id + "' may already exist."
	}
	return "Transaction submitted successfully!\n  - Transaction ID: " + id + "\n  - User ID: " + str(a, "user_id", "") +
		"\n  - Card Type: " + card + "\n  - Merchant: " + str(a, "merchant_name", "") + "\n  - Amount: $" + pyFixed2(amount) +
		"\n  - Category: " + category + "\n  - Date: " + todayStr +
		fmt.Sprintf("\n  - Rewards Earned: %d points (%s%% cashback rate)\n", points, pyStr(rate))
}

// callUserTool is call_discoverable_user_tool.
func callUserTool(db *DB, a *Obj, user map[string]discoverable) string {
	name := str(a, "discoverable_tool_name", "")
	d, ok := user[name]
	if !ok {
		return errorf("Unknown discoverable tool '%s'.", name)
	}
	raw, errMsg := loadArguments(a, true)
	if errMsg != "" {
		return errMsg
	}
	if errMsg := missingParam(raw, d); errMsg != "" {
		return errMsg
	}
	if errMsg := unexpectedParam(raw, d.info.Signature, false); errMsg != "" {
		return errMsg
	}
	invalid := "Error: Invalid arguments for tool '" + name + "': "
	args, ok := raw.(*Obj)
	if !ok {
		return invalid + notMappingError(userQualname(name), raw)
	}
	res, _ := catchTypeError(d.run(db, args), invalid)
	return res
}

// checkGiven is _check_tool_given: "" when the agent gave the tool.
func (db *DB) checkGiven(name string) string {
	if strings.Contains(db.queryField("user_discoverable_tools", "tool_name", name), "No records found") {
		return "Error: Tool '" + name + "' has not been given to you by the agent. " +
			"The agent must first use `give_discoverable_user_tool` to give this tool to you."
	}
	return ""
}

// logUserCall is _log_user_tool_call.
func (db *DB) logUserCall(name string, args *Obj) {
	db.addRecord("user_discoverable_tool_calls", userDiscoverableToolCallID(name, args),
		objOf("tool_name", name, "arguments", args, "called_at", todayStr, "status", "CALLED"))
}

// userBodies are the user's discoverable tools.
func userBodies() map[string]discoverableFunc {
	return map[string]discoverableFunc{
		"submit_cash_back_dispute_0589": submitCashBackDispute,
		"get_referral_link":             getReferralLink,
		"get_card_last_4_digits":        getCardLast4,
		"deposit_check_3847":            depositCheck,
	}
}

func submitCashBackDispute(db *DB, a *Obj) string {
	const name = "submit_cash_back_dispute_0589"
	if e := db.checkGiven(name); e != "" {
		return e
	}
	user, txn := arg(a, "user_id"), arg(a, "transaction_id")
	args := objOf("user_id", user, "transaction_id", txn)
	db.logUserCall(name, args)
	id := disputeID(pyStr(user), pyStr(txn))
	auto := false
	if cfg := db.table("task_config").Data; cfg.Len() > 0 {
		if ds := cfg.Sub("dispute_settings"); ds != nil {
			auto = truthy(arg(ds, "auto_resolve_disputes"))
		}
	}
	rec := objOf("dispute_id", id, "user_id", user, "transaction_id", txn, "submitted_at", todayStr)
	status := "Status: SUBMITTED - Your dispute has been queued for review."
	if auto {
		rec.Set("status", "RESOLVED")
		rec.Set("resolution", "APPROVED")
		status = "Status: RESOLVED - The dispute has been reviewed and approved. The transaction rewards need to be updated."
	} else {
		rec.Set("status", "SUBMITTED")
	}
	res := "Cash back dispute submitted successfully. Your case has been queued for review.\n\nExecuted: " + name +
		"\nArguments: " + pyDumps(args, 2) + "\n"
	if db.addRecord("cash_back_disputes", id, rec) {
		return res + "Dispute ID: " + id + "\n" + status
	}
	return res + "Note: Dispute may have already been submitted for this transaction."
}

func getReferralLink(db *DB, a *Obj) string {
	const name = "get_referral_link"
	if e := db.checkGiven(name); e != "" {
		return e
	}
	user, card := arg(a, "user_id"), arg(a, "card_name")
	args := objOf("user_id", user, "card_name", card)
	db.logUserCall(name, args)
	id := referralLinkID(pyStr(user), pyStr(card))
	rec := objOf("referral_id", id, "referrer_id", user, "referred_account_type", card,
		"referral_status", "NO_PROGRESS", "date", todayStr)
	res := "Referral link generated successfully. Share this link with the person you want to refer.\n\nExecuted: " + name +
		"\nArguments: " + pyDumps(args, 2) + "\n"
	if db.addRecord("referrals", id, rec) {
		return res + "Referral ID: " + id + "\nReferral link: https://rhobank.com/refer/" + id
	}
	return res + "Note: A referral link for this card may have already been generated."
}

func getCardLast4(db *DB, a *Obj) string {
	const name = "get_card_last_4_digits"
	if e := db.checkGiven(name); e != "" {
		return e
	}
	acct := arg(a, "credit_card_account_id")
	args := objOf("credit_card_account_id", acct)
	db.logUserCall(name, args)
	res := db.queryField("credit_card_accounts", "account_id", pyStr(acct))
	if strings.Contains(res, "No results found") || strings.Contains(res, "No records found") {
		return errorf("Credit card account '%s' not found.", pyStr(acct))
	}
	sum := sha256.Sum256([]byte("card_last4:" + pyStr(acct)))
	last4 := ""
	for _, c := range hex.EncodeToString(sum[:]) {
		if c >= '0' && c <= '9' {
			last4 += string(c)
			if len(last4) == 4 {
				break
			}
		}
	}
	last4 += strings.Repeat("0", 4-len(last4))
	return "Card information retrieved successfully.\n\nExecuted: " + name + "\nArguments: " + pyDumps(args, 2) +
		"\nLast 4 digits of card: " + last4
}

func depositCheck(db *DB, a *Obj) string {
	const name = "deposit_check_3847"
	if e := db.checkGiven(name); e != "" {
		return e
	}
	acct, amount := arg(a, "account_id"), arg(a, "check_amount")
	args := objOf("account_id", acct, "check_amount", amount)
	db.logUserCall(name, args)
	amt, ok := pyFloat(amount)
	if !ok {
		return errorf("Invalid check amount '%s'. Must be a number.", pyStr(amount))
	}
	if amt <= 0 {
		return "Error: Check amount must be positive."
	}
	id := pyStr(acct)
	account, ok := db.record("accounts", id)
	if !ok {
		return errorf("Account '%s' not found.", id)
	}
	if st, _ := account.Str("status"); st != "ACTIVE" && st != "OPEN" {
		return errorf("Account '%s' is not active.", id)
	}
	prev := accountBalance(account)
	next := prev + amt
	account.Set("current_holdings", "$"+pyFixed2(next))
	return "Check deposited successfully. Funds will be available according to your account's deposit policy.\n\nExecuted: " +
		name + "\nArguments: " + pyDumps(args, 2) + "\nCheck deposit processed!\n  - Account: " + id +
		"\n  - Check Amount: $" + pyFixed2(amt) + "\n  - Previous Balance: $" + pyFixed2(prev) + "\n  - New Balance: $" + pyFixed2(next)
}

// parseBalance is _parse_balance: a number, or text like "$2,850.00".
func parseBalance(v any) float64 {
	switch x := v.(type) {
	case int64, float64:
		f, _ := asFloat(x)
		return f
	case string:
		f, _ := pyFloat(strings.NewReplacer("$", "", ",", "").Replace(x))
		return f
	}
	return 0
}

// accountBalance is _get_account_balance: current_holdings, else balance.
func accountBalance(account *Obj) float64 {
	if v, ok := account.Get("current_holdings"); ok {
		return parseBalance(v)
	}
	if v, ok := account.Get("balance"); ok {
		return parseBalance(v)
	}
	return 0
}
