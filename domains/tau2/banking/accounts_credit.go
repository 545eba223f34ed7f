package banking

import (
	"strings"
)

// Money moved into or between bank accounts, and interest discrepancy
// reports: tau2's KnowledgeTools methods of the same names.

// activeAccount finds an ACTIVE or OPEN account; role names it in the
// error answers ("Source account", "Account").
func (db *DB) activeAccount(id any, role string) (*Obj, string) {
	account, errMsg := db.findRecord("accounts", id, errorf("%s '%s' not found.", role, pyStr(id)))
	if errMsg != "" {
		return nil, errMsg
	}
	if !inStrs(arg(account, "status"), "ACTIVE", "OPEN") {
		return nil, errorf("%s '%s' is not active.", role, pyStr(id))
	}
	return account, ""
}

// transferFunds is tau2's transfer_funds_between_bank_accounts_7291.
func transferFunds(db *DB, a *Obj) string {
	from, to, raw := arg(a, "source_account_id"), arg(a, "destination_account_id"), arg(a, "amount")
	if !truthy(from) || !truthy(to) || raw == nil {
		return "Error: Missing required parameters (source_account_id, destination_account_id, amount)."
	}
	amount, ok := pyFloatArg(raw)
	switch {
	case !ok:
		return errorf("Invalid amount '%s'. Must be a number.", pyStr(raw))
	case amount <= 0:
		return "Error: Transfer amount must be positive."
	case pyEqual(from, to):
		return "Error: Source and destination accounts cannot be the same."
	}
	if _, errMsg := db.findRecord("accounts", from, errorf("Source account '%s' not found.", pyStr(from))); errMsg != "" {
		return errMsg
	}
	if _, errMsg := db.findRecord("accounts", to, errorf("Destination account '%s' not found.", pyStr(to))); errMsg != "" {
		return errMsg
	}
	source, errMsg := db.activeAccount(from, "Source account")
	if errMsg != "" {
		return errMsg
	}
	dest, errMsg := db.activeAccount(to, "Destination account")
	if errMsg != "" {
		return errMsg
	}
	sourceBalance := accountBalance(source)
	if sourceBalance < amount {
		return errorf("Insufficient funds. Source account balance is $%s, but transfer amount is $%s.", pyFixed2(sourceBalance), pyFixed2(amount))
	}
	newSource, newDest := sourceBalance-amount, accountBalance(dest)+amount
	source.Set("current_holdings", "$"+pyFixed2(newSource))
	dest.Set("current_holdings", "$"+pyFixed2(newDest))
	return "Transfer completed successfully!\n  - Amount: $" + pyFixed2(amount) +
		"\n  - From: " + pyStr(from) + " (new balance: $" + pyFixed2(newSource) + ")" +
		"\n  - To: " + pyStr(to) + " (new balance: $" + pyFixed2(newDest) + ")"
}

// accountCredit is one of tau2's account credit tools: the account class
// it takes, its credit types with their transaction descriptions, and how
// it writes the new balance.
type accountCredit struct {
	seed, notClass string
	classes        []string
	types          []string
	descriptions   []string
	dollar         bool
}

// apply is the body of the credit tools: it credits the account and logs
// the credit as a bank account transaction.
func (c accountCredit) apply(db *DB, a *Obj) string {
	id, raw, kind := arg(a, "account_id"), arg(a, "amount"), arg(a, "credit_type")
	if !truthy(id) || raw == nil || !truthy(kind) {
		return "Error: Missing required parameters."
	}
	amount, ok := pyFloatArg(raw)
	switch {
	case !ok:
		return "Error: Invalid credit amount. Must be a number."
	case amount <= 0:
		return "Error: Credit amount must be positive."
	case !inStrs(kind, c.types...):
		return "Error: Invalid credit_type. Must be one of: " + strList(c.types...)
	}
	account, errMsg := db.findRecord("accounts", id, errorf("Account '%s' not found.", pyStr(id)))
	if errMsg != "" {
		return errMsg
	}
	if !inStrs(strings.ToLower(pyStr(getDefault(account, "class", ""))), c.classes...) {
		return errorf("Account '%s' is not a %s", pyStr(id), c.notClass)
	}
	if _, errMsg := db.activeAccount(id, "Account"); errMsg != "" {
		return errMsg
	}
	previous := accountBalance(account)
	next := previous + amount
	if c.dollar {
		account.Set("current_holdings", "$"+pyFixed2(next))
	} else {
		account.Set("current_holdings", pyFixed2(next))
	}
	txnID := "txn_" + deterministicID(c.seed+":"+pyStr(id)+":"+pyStr(kind)+":"+pyStr(amount)+":"+todayStr, 16)
	description := c.descriptions[len(c.descriptions)-1]
	for i, t := range c.types[:len(c.types)-1] {
		if kind == t {
			description = c.descriptions[i]
		}
	}
	db.put("bank_account_transaction_history", txnID, objOf("transaction_id", txnID, "account_id", id,
		"date", todayStr, "description", description, "amount", amount, "type", kind, "status", "posted"))
	return "\nCredit applied successfully!\n  - Transaction ID: " + txnID + "\n  - Account: " + pyStr(id) +
		"\n  - Credit Type: " + pyStr(kind) + "\n  - Amount: $" + pyFixed2(amount) +
		"\n  - Previous Balance: $" + pyFixed2(previous) + "\n  - New Balance: $" + pyFixed2(next)
}

// applyCheckingCredit is tau2's apply_checking_account_credit_5829.
func applyCheckingCredit(db *DB, a *Obj) string {
	return accountCredit{
		seed: "checking_credit", classes: []string{"checking"},
		notClass:     "checking account. Credits can only be applied to checking accounts.",
		types:        []string{"rebate_credit", "fee_refund"},
		descriptions: []string{"REBATE CREDIT - CUSTOMER SERVICE", "FEE REFUND - CUSTOMER SERVICE"},
		dollar:       true,
	}.apply(db, a)
}

// applySavingsCredit is tau2's apply_savings_account_credit_6831.
func applySavingsCredit(db *DB, a *Obj) string {
	return accountCredit{
		seed: "savings_credit", classes: []string{"saving", "savings"},
		notClass: "savings account. This tool only applies to savings accounts.",
		types:    []string{"interest_correction", "fee_refund", "goodwill_credit"},
		descriptions: []string{"INTEREST CORRECTION - CUSTOMER SERVICE", "FEE REFUND - CUSTOMER SERVICE",
			"GOODWILL CREDIT - CUSTOMER SERVICE"},
	}.apply(db, a)
}

// submitInterestDiscrepancyReport is tau2's
// submit_interest_discrepancy_report_7294. tau2 adds the report to a
// table its database lacks, so nothing is stored: only the answer tells.
func submitInterestDiscrepancyReport(db *DB, a *Obj) string {
	id, user := arg(a, "account_id"), arg(a, "user_id")
	if !truthy(id) || !truthy(user) || arg(a, "expected_apy") == nil || arg(a, "actual_apy") == nil || arg(a, "amount_difference") == nil {
		return "Error: Missing required parameters."
	}
	expected, ok1 := pyFloatArg(arg(a, "expected_apy"))
	actual, ok2 := pyFloatArg(arg(a, "actual_apy"))
	diff, ok3 := pyFloatArg(arg(a, "amount_difference"))
	if !ok1 || !ok2 || !ok3 {
		return "Error: expected_apy, actual_apy, and amount_difference must be numbers."
	}
	account, errMsg := db.findRecord("accounts", id, errorf("Account '%s' not found.", pyStr(id)))
	if errMsg != "" {
		return errMsg
	}
	person, errMsg := db.findRecord("users", user, errorf("User '%s' not found.", pyStr(user)))
	if errMsg != "" {
		return errMsg
	}
	reportID := "IDR_" + deterministicID("interest_report:"+pyStr(id)+":"+pyStr(user)+":"+pyStr(expected)+":"+pyStr(actual)+":"+todayStr, 16)
	return "\nInterest Discrepancy Report Submitted Successfully!\n  - Report ID: " + reportID +
		"\n  - Account: " + pyStr(id) + " (" + pyStr(getDefault(account, "level", "Unknown")) + ")" +
		"\n  - Customer: " + pyStr(getDefault(person, "name", "Unknown")) +
		"\n  - Expected APY: " + pyStr(expected) + "%\n  - Actual APY: " + pyStr(actual) + "%" +
		"\n  - APY Difference: " + pyStr(pyRound4(expected-actual)) + "%" +
		"\n  - Amount Difference: $" + pyFixed2(diff) + "\n  - Status: PENDING_REVIEW" +
		"\n\nThe backend team will investigate this discrepancy and ensure correct APY calculations are applied going forward."
}
