package banking

import (
	"strings"
)

// Debit card disputes and the read-only order and dispute look-ups of
// tau2's KnowledgeTools.

// The valid values of file_debit_card_transaction_dispute_6281's
// enumerated arguments, in tau2's order.
var (
	debitDisputeCategories = []string{"unauthorized_transaction", "atm_cash_discrepancy", "atm_deposit_not_credited",
		"duplicate_charge", "incorrect_amount", "goods_services_not_received", "recurring_charge_after_cancellation",
		"card_present_fraud", "card_not_present_fraud"}
	debitTransactionTypes = []string{"pin_purchase", "signature_purchase", "online_purchase", "atm_withdrawal",
		"atm_deposit", "recurring_payment", "person_to_person"}
	debitPINStatuses = []string{"yes_shared", "yes_observed", "no", "unknown"}
	debitCardActions = []string{"keep_active", "freeze_pending_investigation", "close_and_reissue"}
)

// checkDebitDispute is file_debit_card_transaction_dispute_6281's
// validation: "" when the dispute can be filed.
func checkDebitDispute(a *Obj) string {
	for _, f := range []string{"transaction_id", "account_id", "card_id", "user_id", "dispute_category", "transaction_date",
		"discovery_date", "disputed_amount", "transaction_type", "pin_compromised", "card_action"} {
		if !truthy(arg(a, f)) {
			return "Error: Missing required parameters."
		}
	}
	if arg(a, "customer_max_liability_amount") == nil {
		return "Error: customer_max_liability_amount is required."
	}
	for _, f := range []string{"card_in_possession", "contacted_merchant", "police_report_filed", "written_statement_provided"} {
		if arg(a, f) == nil {
			return "Error: card_in_possession, contacted_merchant, police_report_filed, and written_statement_provided are required boolean fields."
		}
	}
	switch {
	case !inStrs(arg(a, "dispute_category"), debitDisputeCategories...):
		return "Error: Invalid dispute_category. Must be one of: " + strList(debitDisputeCategories...)
	case !inStrs(arg(a, "transaction_type"), debitTransactionTypes...):
		return "Error: Invalid transaction_type. Must be one of: " + strList(debitTransactionTypes...)
	case !inStrs(arg(a, "pin_compromised"), debitPINStatuses...):
		return "Error: Invalid pin_compromised. Must be one of: " + strList(debitPINStatuses...)
	case !inStrs(arg(a, "card_action"), debitCardActions...):
		return "Error: Invalid card_action. Must be one of: " + strList(debitCardActions...)
	}
	amount := arg(a, "disputed_amount")
	if e := compareIntError("<=", amount); e != "" {
		return e
	}
	if f, _ := asFloat(amount); f <= 0 {
		return "Error: disputed_amount must be a positive number."
	}
	return ""
}

// fileDebitCardDispute is tau2's file_debit_card_transaction_dispute_6281:
// a Regulation E dispute of a debit card transaction.
func fileDebitCardDispute(db *DB, a *Obj) string {
	if errMsg := checkDebitDispute(a); errMsg != "" {
		return errMsg
	}
	txn, amount, eligible := arg(a, "transaction_id"), arg(a, "disputed_amount"), arg(a, "provisional_credit_eligible")
	category, action := arg(a, "dispute_category").(string), arg(a, "card_action").(string)
	id := disputeID(pyStr(arg(a, "user_id")), pyStr(txn))
	fraud := inStrs(category, "unauthorized_transaction", "card_present_fraud", "card_not_present_fraud")
	pinShared := pyEqual(arg(a, "pin_compromised"), "yes_shared")
	rec := objOf("dispute_id", id)
	for _, f := range []string{"transaction_id", "account_id", "card_id", "user_id", "dispute_category", "transaction_date",
		"discovery_date", "disputed_amount", "transaction_type", "card_in_possession", "pin_compromised",
		"contacted_merchant", "police_report_filed", "written_statement_provided", "provisional_credit_eligible"} {
		rec.Set(f, arg(a, f))
	}
	rec.Set("provisional_credit_issued", eligible)
	if truthy(eligible) {
		rec.Set("provisional_credit_amount", amount)
	} else {
		rec.Set("provisional_credit_amount", nil)
	}
	for _, kv := range [][2]any{{"customer_max_liability_amount", arg(a, "customer_max_liability_amount")},
		{"card_action", action}, {"is_fraud_category", fraud}, {"pin_shared_voluntarily", pinShared},
		{"submitted_at", todayStr}, {"status", "OPEN"}} {
		rec.Set(kv[0].(string), kv[1])
	}
	if !db.addRecord("debit_card_disputes", id, rec) {
		return "Error: Dispute may have already been filed for this transaction."
	}
	parts := []string{"Dispute ID: " + id, "Transaction: " + pyStr(txn), "Account: " + pyStr(arg(a, "account_id")),
		"Category: " + pyTitle(strings.ReplaceAll(category, "_", " ")), "Disputed Amount: $" + pyFixed2(amount),
		"Card Action: " + pyTitle(strings.ReplaceAll(action, "_", " "))}
	if truthy(eligible) {
		parts = append(parts, "Provisional Credit: ISSUED - $"+pyFixed2(amount)+" credited within 10 business days per Regulation E.")
	} else {
		parts = append(parts, "Provisional Credit: Not eligible - see Debit Card Provisional Credit Guidelines for details.")
	}
	if pinShared {
		parts = append(parts, "WARNING: Customer indicated PIN was shared voluntarily. This may affect liability determination.")
	}
	if f, _ := asFloat(amount); fraud && !truthy(arg(a, "police_report_filed")) && f > 500 {
		parts = append(parts, "RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.")
	}
	return strings.Join(parts, "\n")
}

// queryReport is the answer of tau2's read tools that wrap one
// query_database_tool call: a header naming the tool, then the records
// found or, when none, a line saying so.
func (db *DB) queryReport(header, tool, title, table, field string, value any, none string) string {
	res := db.queryField(table, field, pyStr(value))
	parts := []string{header, "", "Executed: " + tool, title}
	if foundRecords(res) {
		return strings.Join(append(parts, res), "\n")
	}
	return strings.Join(append(parts, none), "\n")
}

// getDebitDisputeStatus is tau2's get_debit_dispute_status_7483: a user's
// debit card disputes.
func getDebitDisputeStatus(db *DB, a *Obj) string {
	user := arg(a, "user_id")
	if !truthy(user) {
		return "Error: Missing required parameter: user_id"
	}
	return db.queryReport("Debit card dispute history retrieved successfully.", "get_debit_dispute_status_7483",
		"Debit card dispute history for user "+pyStr(user)+":", "debit_card_disputes", "user_id", user,
		"\nNo debit card disputes found for this user.")
}

// getPendingReplacementOrders is tau2's
// get_pending_replacement_orders_5765: a credit card account's
// replacement card orders.
func getPendingReplacementOrders(db *DB, a *Obj) string {
	acct := arg(a, "credit_card_account_id")
	if !truthy(acct) {
		return "Error: Missing required parameter: credit_card_account_id"
	}
	return db.queryReport("Pending replacement orders check completed.", "get_pending_replacement_orders_5765",
		"Replacement orders for credit card account "+pyStr(acct)+":", "credit_card_orders", "credit_card_account_id", acct,
		"\nNo pending replacement orders found for this credit card account.")
}
