package banking

import (
	"fmt"
	"sort"
	"strings"
)

// The credit card account tools of tau2's KnowledgeTools, ported byte for
// byte: their answers, their errors and their changes to the database.

// orderReplacementCreditCard is order_replacement_credit_card_7291.
func orderReplacementCreditCard(db *DB, a *Obj) string {
	acct, user, addr, reason := arg(a, "credit_card_account_id"), arg(a, "user_id"), arg(a, "shipping_address"), arg(a, "reason")
	if !truthy(acct) || !truthy(user) || !truthy(addr) || !truthy(reason) {
		return "Error: Missing required parameters (credit_card_account_id, user_id, shipping_address, reason)."
	}
	reasons := []string{"fraud_suspected", "lost", "stolen", "damaged", "expired", "other"}
	if !inStrs(reason, reasons...) {
		return "Error: Invalid reason. Must be one of: " + strList(reasons...)
	}
	if notFound(db.queryField("credit_card_accounts", "account_id", pyStr(acct))) {
		return errorf("Credit card account '%s' not found.", pyStr(acct))
	}
	expedited, ok := a.Get("expedited_shipping")
	if !ok {
		expedited = false
	}
	id := creditCardOrderID(pyStr(acct), pyStr(user), pyStr(reason))
	rec := objOf("order_id", id, "credit_card_account_id", acct, "user_id", user, "shipping_address", addr,
		"reason", reason, "expedited_shipping", expedited, "order_date", todayStr, "status", "ORDERED", "old_card_cancelled", true)
	if !db.addRecord("credit_card_orders", id, rec) {
		return "Error: Order may have already been placed for this card replacement."
	}
	card, typeErr := db.lookup("credit_card_accounts", acct)
	if typeErr != "" {
		return typeErr
	}
	if card != nil {
		card.Set("status", "CLOSED")
		card.Set("closed_date", todayStr)
	}
	method, delivery := "Standard", "7-10 business days"
	if truthy(expedited) {
		method, delivery = "Expedited", "2-3 business days"
	}
	return strings.Join([]string{
		"Order ID: " + id, "Card Account: " + pyStr(acct), "Reason: " + display(reason),
		"Shipping Address: " + pyStr(addr), "Shipping Method: " + method, "Expected Delivery: " + delivery, "",
		"The old card has been cancelled for security. The new card will have the same account number but a new card number and CVV.",
	}, "\n")
}

// getUserDisputeHistory is get_user_dispute_history_7291.
func getUserDisputeHistory(db *DB, a *Obj) string {
	user := arg(a, "user_id")
	if !truthy(user) {
		return "Error: Missing required parameter: user_id"
	}
	return db.historyReport("User transaction dispute history retrieved successfully.", "get_user_dispute_history_7291",
		"Transaction dispute history for user "+pyStr(user)+":", "transaction_disputes", "user_id", user,
		"No transaction disputes found for this user.")
}

// logClosureReason is log_credit_card_closure_reason_4521.
func logClosureReason(db *DB, a *Obj) string {
	acct, user, reason := arg(a, "credit_card_account_id"), arg(a, "user_id"), arg(a, "closure_reason")
	if !truthy(acct) || !truthy(user) || !truthy(reason) {
		return "Error: Missing required parameters."
	}
	reasons := []string{"annual_fee", "not_using_card", "found_better_card", "unhappy_with_rewards",
		"simplifying_finances", "negative_experience", "other"}
	if !inStrs(reason, reasons...) {
		return "Error: Invalid closure_reason. Must be one of: " + strList(reasons...)
	}
	id := closureReasonID(pyStr(acct), pyStr(user))
	db.addRecord("credit_card_closure_reasons", id, objOf("record_id", id, "credit_card_account_id", acct,
		"user_id", user, "closure_reason", reason, "logged_at", todayStr, "status", "LOGGED"))
	args := objOf("credit_card_account_id", acct, "user_id", user, "closure_reason", reason)
	return "Closure reason logged successfully.\n\nExecuted: log_credit_card_closure_reason_4521\nArguments: " +
		pyDumps(args, 2) + "\nClosure reason '" + pyStr(reason) + "' logged for account " + pyStr(acct) + "."
}

// getClosureReasonHistory is get_closure_reason_history_8293.
func getClosureReasonHistory(db *DB, a *Obj) string {
	acct := arg(a, "credit_card_account_id")
	if !truthy(acct) {
		return "Error: Missing required parameter: credit_card_account_id"
	}
	return db.historyReport("Closure reason history retrieved successfully.", "get_closure_reason_history_8293",
		"Closure reason history for credit card account "+pyStr(acct)+":", "credit_card_closure_reasons",
		"credit_card_account_id", acct, "No closure reason records found for this credit card account.")
}

// getCLIHistory is get_credit_limit_increase_history_4829.
func getCLIHistory(db *DB, a *Obj) string {
	acct := arg(a, "credit_card_account_id")
	if !truthy(acct) {
		return "Error: Missing required parameter: credit_card_account_id"
	}
	return db.historyReport("Credit limit increase history retrieved.", "get_credit_limit_increase_history_4829",
		"Credit limit increase history for account "+pyStr(acct)+":", "credit_limit_increase_requests",
		"credit_card_account_id", acct, "No credit limit increase requests found for this account.")
}

// applyStatementCredit is apply_statement_credit_8472.
func applyStatementCredit(db *DB, a *Obj) string {
	user, acct, amount, reason := arg(a, "user_id"), arg(a, "credit_card_account_id"), arg(a, "amount"), arg(a, "reason")
	if !truthy(user) || !truthy(acct) || amount == nil || !truthy(reason) {
		return "Error: Missing required parameters (user_id, credit_card_account_id, amount, reason)."
	}
	amt, ok := asFloat(amount)
	if !ok {
		return compareTypeError("<=", amount)
	}
	if amt <= 0 {
		return "Error: Credit amount must be positive."
	}
	reasons := []string{"goodwill_adjustment", "promotional_credit", "annual_fee_reversal", "late_fee_reversal",
		"interest_charge_reversal", "dispute_resolution", "price_match", "retention_offer", "error_correction", "other"}
	if !inStrs(reason, reasons...) {
		return "Error: Invalid reason. Must be one of: " + strList(reasons...)
	}
	if notFound(db.queryField("credit_card_accounts", "account_id", pyStr(acct))) {
		return errorf("Credit card account '%s' not found.", pyStr(acct))
	}
	userStr, ok := user.(string)
	if !ok { // ":".join of the id's seed
		return raiseTypeError("sequence item 1: expected str instance, " + pyTypeName(user) + " found")
	}
	id := transactionID(userStr, "STATEMENT_CREDIT", pyStr(reason), amount, "Statement Credit")
	rec := objOf("transaction_id", id, "user_id", user, "credit_card_account_id", acct, "credit_card_type", "N/A",
		"merchant_name", "Rho-Bank Statement Credit", "transaction_amount", "-$"+pyFixed2(amount),
		"transaction_date", todayStr, "category", "Statement Credit", "status", "COMPLETED",
		"rewards_earned", "0 points", "credit_reason", reason)
	if !db.addRecord("credit_card_transaction_history", id, rec) {
		return errorf("Failed to apply statement credit. Transaction ID '%s' may already exist.", id)
	}
	return "Statement credit applied successfully.\n\nExecuted: apply_statement_credit_8472\n  - Transaction ID: " + id +
		"\n  - User ID: " + userStr + "\n  - Account: " + pyStr(acct) + "\n  - Credit Amount: $" + pyFixed2(amount) +
		"\n  - Reason: " + display(reason) + "\n  - Date: " + todayStr
}

// applyAccountFlag is apply_credit_card_account_flag_6147.
func applyAccountFlag(db *DB, a *Obj) string {
	acct, user, flag, expires, reason := arg(a, "credit_card_account_id"), arg(a, "user_id"), arg(a, "flag_type"),
		arg(a, "expiration_date"), arg(a, "reason")
	if !truthy(acct) || !truthy(user) || !truthy(flag) || !truthy(expires) || !truthy(reason) {
		return "Error: Missing required parameters (credit_card_account_id, user_id, flag_type, expiration_date, reason)."
	}
	flags := []string{"annual_fee_waived", "promotional_apr", "rewards_bonus", "other"}
	if !inStrs(flag, flags...) {
		return "Error: Invalid flag_type. Must be one of: " + strList(flags...)
	}
	reasons := []string{"retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"}
	if !inStrs(reason, reasons...) {
		return "Error: Invalid reason. Must be one of: " + strList(reasons...)
	}
	if notFound(db.queryField("credit_card_accounts", "account_id", pyStr(acct))) {
		return errorf("Credit card account '%s' not found.", pyStr(acct))
	}
	id := accountFlagID(pyStr(acct), pyStr(flag), pyStr(expires))
	rec := objOf("flag_id", id, "credit_card_account_id", acct, "user_id", user, "flag_type", flag,
		"effective_date", todayStr, "expiration_date", expires, "reason", reason, "applied_at", todayStr, "status", "ACTIVE")
	if !db.addRecord("credit_card_account_flags", id, rec) {
		return errorf("Failed to apply account flag. Flag ID '%s' may already exist.", id)
	}
	return "Account flag applied successfully!\n  - Flag ID: " + id + "\n  - Account: " + pyStr(acct) +
		"\n  - User ID: " + pyStr(user) + "\n  - Flag Type: " + display(flag) + "\n  - Effective Date: " + todayStr +
		"\n  - Expiration Date: " + pyStr(expires) + "\n  - Reason: " + display(reason)
}

// closeCreditCardAccount is close_credit_card_account_7834.
func closeCreditCardAccount(db *DB, a *Obj) string {
	acct, user := arg(a, "credit_card_account_id"), arg(a, "user_id")
	if !truthy(acct) || !truthy(user) {
		return "Error: Missing required parameters (credit_card_account_id, user_id)."
	}
	if notFound(db.queryField("credit_card_accounts", "account_id", pyStr(acct))) {
		return errorf("Credit card account '%s' not found.", pyStr(acct))
	}
	card, typeErr := db.lookup("credit_card_accounts", acct)
	if typeErr != "" {
		return typeErr
	}
	if card == nil {
		return errorf("Failed to close credit card account '%s'.", pyStr(acct))
	}
	card.Set("status", "CLOSED")
	card.Set("closed_date", todayStr)
	card.Set("closed_by", user)
	return "Credit card account closed successfully.\n\nExecuted: close_credit_card_account_7834\nArguments: " +
		pyDumps(objOf("credit_card_account_id", acct, "user_id", user), 2) + "\nAccount " + pyStr(acct) + " has been closed."
}

// getPaymentHistory is get_payment_history_6183.
func getPaymentHistory(db *DB, a *Obj) string {
	acct, monthsArg := arg(a, "credit_card_account_id"), arg(a, "months")
	if !truthy(acct) || monthsArg == nil {
		return "Error: Missing required parameters (credit_card_account_id, months)."
	}
	months, ok := pyInt(monthsArg)
	if !ok {
		return "Error: Invalid months value. Must be a positive integer."
	}
	if months <= 0 {
		return "Error: months must be a positive integer."
	}
	var payments []*Obj
	t := db.table("payment_history").Data
	for _, id := range t.Keys() {
		if p := t.Sub(id); p != nil && pyEqual(arg(p, "credit_card_account_id"), acct) {
			payments = append(payments, p)
		}
	}
	if len(payments) == 0 {
		return fmt.Sprintf("No payment history found for account '%s'.", pyStr(acct))
	}
	date := func(p *Obj) string {
		if d := arg(p, "payment_date"); truthy(d) {
			return pyStr(d)
		}
		return ""
	}
	sort.SliceStable(payments, func(i, j int) bool { return date(payments[i]) > date(payments[j]) })
	if int64(len(payments)) > months {
		payments = payments[:months]
	}
	onTime := 0
	for _, p := range payments {
		if arg(p, "status") != "ON_TIME" {
			break
		}
		onTime++
	}
	parts := []string{fmt.Sprintf("Payment history for account '%s' (last %d months):", pyStr(acct), months),
		fmt.Sprintf("Consecutive on-time payments: %d", onTime)}
	for _, p := range payments {
		parts = append(parts, "\n  - Payment Date: "+pyStr(arg(p, "payment_date"))+"\n    Amount: "+pyStr(arg(p, "amount"))+
			"\n    Status: "+pyStr(arg(p, "status")))
	}
	return strings.Join(parts, "\n")
}
