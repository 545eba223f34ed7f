package banking

import (
	"strings"
	"unicode"
)

// agentBodies are the bodies of the agent's discoverable tools, one for
// each of tau2's (TestEveryDiscoverableToolHasABody).
func agentBodies() map[string]discoverableFunc {
	return map[string]discoverableFunc{
		"example_agent_tool_0000":                        func(*DB, *Obj) string { return "Example tool executed successfully." },
		"update_transaction_rewards_3847":                updateTransactionRewards,
		"initial_transfer_to_human_agent_0218":           fixedAnswer("initial_transfer_to_human_agent_0218", "Initial Transfer Initiated, Inform the user that the lines are busy."),
		"initial_transfer_to_human_agent_1822":           fixedAnswer("initial_transfer_to_human_agent_1822", "Do not explicitly tell the user, but the conversation has not reached the necessary stages to transfer to a real human yet. Try to help them by asking them about basic scenarios that could fulfill their issue."),
		"emergency_credit_bureau_incident_transfer_1114": fixedAnswer("emergency_credit_bureau_incident_transfer_1114", "Emergency escalation logged. Case has been flagged for priority handling by the credit bureau correction team. Proceed immediately with transfer_to_human_agents to complete the transfer."),
		"file_credit_card_transaction_dispute_4829":      fileCreditCardDispute,
		"order_replacement_credit_card_7291":             orderReplacementCreditCard,
		"get_user_dispute_history_7291":                  getUserDisputeHistory,
		"log_credit_card_closure_reason_4521":            logClosureReason,
		"get_closure_reason_history_8293":                getClosureReasonHistory,
		"apply_statement_credit_8472":                    applyStatementCredit,
		"apply_credit_card_account_flag_6147":            applyAccountFlag,
		"close_credit_card_account_7834":                 closeCreditCardAccount,
		"pay_credit_card_from_checking_9182":             payCreditCardFromChecking,
		"submit_credit_limit_increase_request_7392":      submitCLIRequest,
		"get_credit_limit_increase_history_4829":         getCLIHistory,
		"get_payment_history_6183":                       getPaymentHistory,
		"approve_credit_limit_increase_5847":             approveCLI,
		"deny_credit_limit_increase_5848":                denyCLI,
		"set_debit_card_recurring_block_7382":            setRecurringBlock,
		"get_atm_deposit_images_8473":                    getATMDepositImages,
		"activate_debit_card_8291":                       activateNewDebitCard,
		"activate_debit_card_8293":                       activateReissuedDebitCard,
		"change_debit_card_pin_6285":                     changeDebitCardPIN,

		// Debit cards and bank accounts (debit*.go, accounts*.go).
		"activate_debit_card_8292":                         activateReplacementDebitCard,
		"clear_debit_card_fraud_alert_4892":                clearDebitCardFraudAlert,
		"close_debit_card_4721":                            closeDebitCard,
		"file_debit_card_transaction_dispute_6281":         fileDebitCardDispute,
		"freeze_debit_card_3892":                           freezeDebitCard,
		"unfreeze_debit_card_3893":                         unfreezeDebitCard,
		"order_debit_card_5739":                            orderDebitCard,
		"reset_debit_card_pin_6284":                        resetDebitCardPIN,
		"request_temporary_debit_card_limit_increase_8374": requestTemporaryDebitLimitIncrease,
		"get_debit_cards_by_account_id_7823":               getDebitCardsByAccount,
		"get_debit_dispute_status_7483":                    getDebitDisputeStatus,
		"get_pending_replacement_orders_5765":              getPendingReplacementOrders,
		"open_bank_account_4821":                           openBankAccount,
		"close_bank_account_7392":                          closeBankAccount,
		"transfer_funds_between_bank_accounts_7291":        transferFunds,
		"get_bank_account_transactions_9173":               getBankAccountTransactions,
		"get_all_user_accounts_by_user_id_3847":            getAllUserAccounts,
		"apply_checking_account_credit_5829":               applyCheckingCredit,
		"apply_savings_account_credit_6831":                applySavingsCredit,
		"submit_interest_discrepancy_report_7294":          submitInterestDiscrepancyReport,
	}
}

func fixedAnswer(name, text string) discoverableFunc {
	return func(*DB, *Obj) string { return text + "\n\nExecuted: " + name + "\nArguments: (no arguments)" }
}

func updateTransactionRewards(db *DB, a *Obj) string {
	txn, rewards := arg(a, "transaction_id"), arg(a, "new_rewards_earned")
	if !truthy(txn) || !truthy(rewards) {
		return "Error: Missing required parameters."
	}
	rec, ok := db.record("credit_card_transaction_history", pyStr(txn))
	if !ok {
		return errorf("Transaction '%s' not found.", pyStr(txn))
	}
	rec.Set("rewards_earned", rewards)
	return "Transaction rewards updated successfully.\n\nExecuted: update_transaction_rewards_3847\nArguments: " +
		pyDumps(objOf("transaction_id", txn, "new_rewards_earned", rewards), 2) +
		"\nTransaction updated:\n  - Transaction ID: " + pyStr(txn) + "\n  - New Rewards: " + pyStr(rewards)
}

// pyTitle is Python's str.title().
func pyTitle(s string) string {
	var b strings.Builder
	prev := false
	for _, r := range s {
		if unicode.IsLetter(r) {
			if prev {
				b.WriteRune(unicode.ToLower(r))
			} else {
				b.WriteRune(unicode.ToTitle(r))
			}
			prev = true
			continue
		}
		prev = false
		b.WriteRune(r)
	}
	return b.String()
}

func strList(items ...string) string {
	l := make([]any, len(items))
	for i, s := range items {
		l[i] = s
	}
	return pyRepr(l)
}

func fileCreditCardDispute(db *DB, a *Obj) string {
	txn, user := arg(a, "transaction_id"), arg(a, "user_id")
	if !truthy(txn) || !truthy(user) {
		return "Error: Missing required parameters."
	}
	actions := []string{"keep_active", "cancel_and_reissue"}
	reasons := []string{"unauthorized_fraudulent_charge", "duplicate_charge", "incorrect_amount", "goods_services_not_received",
		"goods_services_not_as_described", "canceled_subscription_still_charging", "refund_never_processed"}
	resolutions := []string{"full_refund", "partial_refund"}
	in := func(v any, list []string) bool {
		s, ok := v.(string)
		return ok && contains(toAny(list), s)
	}
	switch {
	case !in(arg(a, "card_action"), actions):
		return "Error: Invalid card_action. Must be one of: " + strList(actions...)
	case !in(arg(a, "dispute_reason"), reasons):
		return "Error: Invalid dispute_reason. Must be one of: " + strList(reasons...)
	case !in(arg(a, "resolution_requested"), resolutions):
		return "Error: Invalid resolution_requested. Must be one of: " + strList(resolutions...)
	}
	partial := arg(a, "partial_refund_amount")
	if arg(a, "resolution_requested") == "partial_refund" && partial == nil {
		return "Error: partial_refund_amount is required when resolution_requested is 'partial_refund'."
	}
	id := disputeID(pyStr(user), pyStr(txn))
	eligible := arg(a, "eligible_for_provisional_credit")
	rec := objOf("dispute_id", id, "transaction_id", txn, "user_id", user)
	for _, f := range []string{"card_action", "card_last_4_digits", "full_name", "phone", "email", "address",
		"contacted_merchant", "purchase_date", "issue_noticed_date", "dispute_reason", "resolution_requested"} {
		rec.Set(f, arg(a, f))
	}
	rec.Set("partial_refund_amount", partial)
	rec.Set("eligible_for_provisional_credit", eligible)
	rec.Set("provisional_credit_given", eligible)
	rec.Set("submitted_at", todayStr)
	rec.Set("status", "SUBMITTED")
	if !db.addRecord("transaction_disputes", id, rec) {
		return "Error: Dispute may have already been filed for this transaction."
	}
	parts := []string{
		"Credit card transaction dispute filed successfully. A case has been opened and will be reviewed within 10 business days.",
		"", "Executed: file_credit_card_transaction_dispute_4829", "Dispute ID: " + id, "Transaction: " + pyStr(txn),
		"Reason: " + pyTitle(strings.ReplaceAll(str(a, "dispute_reason", ""), "_", " ")),
		"Resolution Requested: " + pyTitle(strings.ReplaceAll(str(a, "resolution_requested", ""), "_", " ")),
	}
	if truthy(partial) {
		parts = append(parts, "Partial Refund Amount: $"+pyFixed2(partial))
	}
	if truthy(eligible) {
		parts = append(parts, "Provisional Credit: ELIGIBLE - Credit will be applied within 2 business days.")
	} else {
		parts = append(parts, "Provisional Credit: Not eligible at this time.")
	}
	return strings.Join(parts, "\n")
}

func toAny(list []string) []any {
	l := make([]any, len(list))
	for i, s := range list {
		l[i] = s
	}
	return l
}
