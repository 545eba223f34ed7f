package banking

import (
	"slices"
	"strings"
)

// payCreditCardFromChecking is pay_credit_card_from_checking_9182.
func payCreditCardFromChecking(db *DB, a *Obj) string {
	user, checking, acct, amount := arg(a, "user_id"), arg(a, "checking_account_id"), arg(a, "credit_card_account_id"), arg(a, "amount")
	if !truthy(user) || !truthy(checking) || !truthy(acct) || amount == nil {
		return "Error: Missing required parameters (user_id, checking_account_id, credit_card_account_id, amount)."
	}
	amt, ok := pyFloat(amount)
	if !ok {
		return "Error: Invalid payment amount. Must be a positive number."
	}
	if amt <= 0 {
		return "Error: Payment amount must be a positive number."
	}
	account, typeErr := db.lookup("accounts", checking)
	switch {
	case typeErr != "":
		return typeErr
	case account == nil:
		return errorf("Checking account '%s' not found.", pyStr(checking))
	case !pyEqual(arg(account, "user_id"), user):
		return errorf("Checking account '%s' does not belong to user '%s'.", pyStr(checking), pyStr(user))
	case arg(account, "class") != "checking":
		return errorf("Account '%s' is not a checking account.", pyStr(checking))
	}
	balance := accountBalance(account)
	if amt > balance {
		return errorf("Insufficient funds in checking account. Available balance: $%s, requested payment: $%s.", pyFixed2(balance), pyFixed2(amt))
	}
	card, typeErr := db.lookup("credit_card_accounts", acct)
	switch {
	case typeErr != "":
		return typeErr
	case card == nil:
		return errorf("Credit card account '%s' not found.", pyStr(acct))
	case !pyEqual(arg(card, "user_id"), user):
		return errorf("Credit card account '%s' does not belong to user '%s'.", pyStr(acct), pyStr(user))
	}
	owed, ok := card.Get("current_balance")
	if !ok {
		owed = "$0.00"
	}
	cardBalance := pyMoney(owed)
	if amt > cardBalance {
		return errorf("Payment amount ($%s) exceeds credit card balance ($%s). Please specify an amount up to the outstanding balance.", pyFixed2(amt), pyFixed2(cardBalance))
	}
	newChecking, newCard := balance-amt, cardBalance-amt
	account.Set("current_holdings", pyFixed2(newChecking))
	card.Set("current_balance", "$"+pyFixed2(newCard))
	return "Payment processed successfully!\n  - Payment Amount: $" + pyFixed2(amt) + "\n  - From Checking Account: " + pyStr(checking) +
		"\n  - To Credit Card Account: " + pyStr(acct) + "\n  - New Checking Balance: $" + pyFixed2(newChecking) +
		"\n  - New Credit Card Balance: $" + pyFixed2(newCard) + "\nThe payment has been applied immediately."
}

// submitCLIRequest is submit_credit_limit_increase_request_7392.
func submitCLIRequest(db *DB, a *Obj) string {
	acct, user, requested := arg(a, "credit_card_account_id"), arg(a, "user_id"), arg(a, "requested_increase_amount")
	if !truthy(acct) || !truthy(user) || requested == nil {
		return "Error: Missing required parameters."
	}
	f, ok := pyFloat(requested)
	if !ok {
		return "Error: Invalid requested_increase_amount. Must be a whole number."
	}
	if f != float64(int64(f)) {
		return "Error: Invalid requested_increase_amount. Must be a whole number of dollars."
	}
	amount := int64(f)
	if amount <= 0 {
		return "Error: Requested increase amount must be positive."
	}
	card, typeErr := db.lookup("credit_card_accounts", acct)
	switch {
	case typeErr != "":
		return typeErr
	case card == nil:
		return errorf("Credit card account '%s' not found.", pyStr(acct))
	case !pyEqual(arg(card, "user_id"), user):
		return errorf("Credit card account '%s' does not belong to user '%s'.", pyStr(acct), pyStr(user))
	}
	id := cliRequestID(pyStr(acct), pyStr(user), amount)
	rec := objOf("request_id", id, "credit_card_account_id", acct, "user_id", user,
		"requested_increase_amount", amount, "submitted_at", todayStr, "status", "PENDING")
	if !db.addRecord("credit_limit_increase_requests", id, rec) {
		return "Error: A similar request may already exist."
	}
	return "Credit limit increase request submitted successfully.\n\nExecuted: submit_credit_limit_increase_request_7392\n  - Request ID: " +
		id + "\n  - Account: " + pyStr(acct) + "\n  - Requested Increase: $" + pyCommas(amount) + "\n  - Status: PENDING"
}

// cliBlocked is approve_credit_limit_increase_5847's eligibility checks:
// a pending dispute of the user, a replacement card on its way for the
// account, or an account not in good standing.
func (db *DB) cliBlocked(card *Obj, acct, user any) bool {
	disputes := db.table("transaction_disputes").Data
	for _, id := range disputes.Keys() {
		d := disputes.Sub(id)
		if pyEqual(arg(d, "user_id"), user) && inStrs(arg(d, "status"), "SUBMITTED", "UNDER_REVIEW", "PENDING") {
			return true
		}
	}
	orders := db.table("credit_card_orders").Data
	for _, id := range orders.Keys() {
		o := orders.Sub(id)
		if pyEqual(arg(o, "credit_card_account_id"), acct) && inStrs(arg(o, "status"), "PENDING", "PROCESSING", "SHIPPED") {
			return true
		}
	}
	status, _ := card.Str("account_status")
	return slices.Contains([]string{"PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED"}, strings.ToUpper(status))
}

// approveCLI is approve_credit_limit_increase_5847.
func approveCLI(db *DB, a *Obj) string {
	acct, user, limit := arg(a, "credit_card_account_id"), arg(a, "user_id"), arg(a, "new_credit_limit")
	if !truthy(acct) || !truthy(user) || limit == nil {
		return "Error: Missing required parameters."
	}
	card, typeErr := db.lookup("credit_card_accounts", acct)
	switch {
	case typeErr != "":
		return typeErr
	case card == nil:
		return errorf("Credit card account '%s' not found.", pyStr(acct))
	case !pyEqual(arg(card, "user_id"), user):
		return errorf("Credit card account '%s' does not belong to user '%s'.", pyStr(acct), pyStr(user))
	case db.cliBlocked(card, acct, user):
		return "Error: Credit limit increase request cannot be approved at this time."
	}
	current, ok := card.Get("credit_limit")
	if !ok {
		current = "$0.00"
	}
	previous := pyMoney(current)
	next, ok := pyFloat(limit)
	if s, isStr := limit.(string); !ok && isStr {
		return floatValueError(s)
	} else if !ok {
		return raiseTypeError("float() argument must be a string or a real number, not '" + pyTypeName(limit) + "'")
	}
	card.Set("credit_limit", "$"+pyFixed2(next))
	id := cliRequestID(pyStr(acct), pyStr(user), next-previous)
	db.addRecord("credit_limit_increase_requests", id, objOf("request_id", id, "credit_card_account_id", acct,
		"user_id", user, "previous_limit", "$"+pyFixed2(previous), "new_limit", "$"+pyFixed2(next),
		"increase_amount", "$"+pyFixed2(next-previous), "decision_date", todayStr, "status", "APPROVED"))
	return "Credit limit increase approved!\n  - Account: " + pyStr(acct) + "\n  - Previous Limit: $" + pyFixed2(previous) +
		"\n  - New Limit: $" + pyFixed2(next) + "\n  - Increase: $" + pyFixed2(next-previous) +
		"\n  - Effective Date: " + todayStr + "\nThe customer will receive a confirmation email."
}

// denyCLI is deny_credit_limit_increase_5848.
func denyCLI(db *DB, a *Obj) string {
	acct, user, reason := arg(a, "credit_card_account_id"), arg(a, "user_id"), arg(a, "denial_reason")
	if !truthy(acct) || !truthy(user) || !truthy(reason) {
		return "Error: Missing required parameters."
	}
	reasons := []string{"insufficient_account_age", "cooldown_period_active", "pending_disputes", "pending_replacement_card",
		"past_due_balance", "high_utilization", "insufficient_payment_history", "requested_amount_exceeds_limit", "other"}
	if !inStrs(reason, reasons...) {
		return "Error: Invalid denial_reason. Must be one of: " + strings.Join(reasons, ", ")
	}
	card, typeErr := db.lookup("credit_card_accounts", acct)
	if typeErr != "" {
		return typeErr
	}
	if card == nil {
		return errorf("Credit card account '%s' not found.", pyStr(acct))
	}
	id := cliRequestID(pyStr(acct), pyStr(user), 0.0)
	db.addRecord("credit_limit_increase_requests", id, objOf("request_id", id, "credit_card_account_id", acct,
		"user_id", user, "denial_reason", reason, "decision_date", todayStr, "status", "DENIED"))
	return "Credit limit increase request denied.\n  - Account: " + pyStr(acct) + "\n  - Denial Reason: " + pyStr(reason) +
		"\n  - Date: " + todayStr + "\nThe customer will receive a notification explaining the denial."
}
