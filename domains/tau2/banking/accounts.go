package banking

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bank accounts (checking and savings): tau2's KnowledgeTools methods of
// the same names.

// accountAgeDays is open_bank_account_4821's get_account_age_days: 0 for
// a date_opened strptime refuses, an error answer for one that is not a
// str (strptime's TypeError, which call_discoverable_agent_tool catches).
func accountAgeDays(acc *Obj) (int64, string) {
	v := getDefault(acc, "date_opened", "")
	s, ok := v.(string)
	if !ok {
		return 0, strptimeTypeError(v)
	}
	t, ok := pyStrptime(s, false)
	if !ok {
		return 0, ""
	}
	return daysBeforeToday(t), ""
}

// hasOpenAccount reports whether one of the accounts is open (OPEN or
// ACTIVE), of one of the types, and at least minDays old (minDays < 0:
// any age).
func hasOpenAccount(accounts []*Obj, types []string, minDays int64) (bool, string) {
	for _, acc := range accounts {
		kind := getDefault(acc, "account_type", getDefault(acc, "class", ""))
		if !inStrs(kind, types...) || !inStrs(getDefault(acc, "status", ""), "OPEN", "ACTIVE") {
			continue
		}
		if minDays < 0 {
			return true, ""
		}
		age, errMsg := accountAgeDays(acc)
		if errMsg != "" {
			return false, errMsg
		}
		if age >= minDays {
			return true, ""
		}
	}
	return false, ""
}

// accountEligibility is open_bank_account_4821's eligibility rules: ""
// when the user may open an account of the type.
func accountEligibility(kind string, accounts []*Obj) string {
	const notMet = "Error: Account eligibility requirements not met."
	var ok bool
	var errMsg string
	switch kind {
	case "savings":
		ok, errMsg = hasOpenAccount(accounts, []string{"checking", "personal_checking"}, 14)
	case "business_checking":
		for _, acc := range accounts {
			if pyEqual(arg(acc, "status"), "CLOSED") {
				return notMet
			}
		}
		ok, errMsg = hasOpenAccount(accounts, []string{"checking", "personal_checking"}, -1)
	case "business_savings":
		for _, acc := range accounts {
			if accountBalance(acc) < 0 {
				return notMet
			}
		}
		ok, errMsg = hasOpenAccount(accounts, []string{"business_checking"}, 30)
	default:
		return ""
	}
	if errMsg != "" {
		return errMsg
	}
	if !ok {
		return notMet
	}
	return ""
}

// openBankAccount is tau2's open_bank_account_4821: a new account, when
// the user's other accounts make them eligible.
func openBankAccount(db *DB, a *Obj) string {
	user, kind, class := arg(a, "user_id"), arg(a, "account_type"), arg(a, "account_class")
	if !truthy(user) || !truthy(kind) || !truthy(class) {
		return "Error: Missing required parameters."
	}
	types := []string{"checking", "savings", "business_checking", "business_savings"}
	if !inStrs(kind, types...) {
		return "Error: Invalid account_type. Must be one of: " + strList(types...)
	}
	var owned []*Obj
	accounts := db.table("accounts").Data
	for _, id := range accounts.Keys() {
		if acc := accounts.Sub(id); pyEqual(arg(acc, "user_id"), user) {
			owned = append(owned, acc)
		}
	}
	if errMsg := accountEligibility(kind.(string), owned); errMsg != "" {
		return errMsg
	}
	id := deterministicID("account:"+pyStr(user)+":"+pyStr(kind)+":"+pyStr(class), 16)
	rec := objOf("account_id", id, "user_id", user, "account_type", kind, "account_class", class,
		"current_holdings", "0.00", "status", "OPEN", "date_opened", todayStr)
	if !db.addRecord("accounts", id, rec) {
		return "Failed to open account: Account ID '" + id + "' may already exist."
	}
	return "Bank account opened successfully!\n  - Account ID: " + id + "\n  - User ID: " + pyStr(user) +
		"\n  - Account Type: " + pyStr(kind) + "\n  - Account Class: " + pyStr(class) +
		"\n  - Status: OPEN\n  - Initial Balance: $0.00\n  - Date Opened: " + todayStr
}

// earlyClosureFee is close_bank_account_7392's early closure fee of a
// personal account by class and level, and the days after opening it
// applies for.
func earlyClosureFee(class, level any) (fee int64, windowDays int64, ok bool) {
	c, _ := class.(string)
	l, _ := level.(string)
	type rule struct{ fee, days int64 }
	var r rule
	switch c {
	case "checking":
		r, ok = map[string]rule{
			"Light Blue Account": {15, 30}, "Light Green Account": {15, 30}, "Green Fee-Free Account": {15, 30},
			"Blue Account": {25, 60}, "Green Account": {25, 60}, "Evergreen Account": {50, 90}, "Bluest Account": {100, 180},
		}[l]
	case "savings":
		r, ok = map[string]rule{
			"Bronze Account": {20, 60}, "Silver Account": {35, 90}, "Silver Plus Account": {35, 90},
			"Gold Account": {75, 180}, "Gold Plus Account": {75, 180}, "Gold Years Account": {75, 180},
			"Platinum Account": {150, 270}, "Platinum Plus Account": {150, 270}, "Diamond Elite Account": {150, 270},
		}[l]
	}
	return r.fee, r.days, ok
}

// closureFeeApplied is the early closure fee close_bank_account_7392
// takes from the balance, or its error answer when the balance is short.
func closureFeeApplied(account *Obj, balance float64) (float64, string) {
	fee, window, ok := earlyClosureFee(getDefault(account, "class", ""), getDefault(account, "level", ""))
	opened := getDefault(account, "date_opened", "")
	if !ok || !truthy(opened) {
		return 0, ""
	}
	s, isStr := opened.(string)
	if !isStr {
		return 0, strptimeTypeError(opened)
	}
	t, parsed := pyStrptime(s, false)
	if !parsed || daysBeforeToday(t) >= window {
		return 0, ""
	}
	if balance < float64(fee) {
		return 0, "Error: Account unable to be closed."
	}
	return float64(fee), ""
}

// closeBankAccount is tau2's close_bank_account_7392: an account whose
// balance is nil once any early closure fee is taken is closed.
func closeBankAccount(db *DB, a *Obj) string {
	id := arg(a, "account_id")
	reason := getDefault(a, "reason", "Customer requested closure")
	waive := getDefault(a, "waive_early_closure_fee", false)
	if !truthy(id) {
		return "Error: Missing required parameter (account_id)."
	}
	account, errMsg := db.findRecord("accounts", id, errorf("Account '%s' not found.", pyStr(id)))
	if errMsg != "" {
		return errMsg
	}
	if pyEqual(arg(account, "status"), "CLOSED") {
		return errorf("Account '%s' is already closed.", pyStr(id))
	}
	balance, fee := accountBalance(account), 0.0
	if !truthy(waive) {
		var errMsg string
		if fee, errMsg = closureFeeApplied(account, balance); errMsg != "" {
			return errMsg
		}
	}
	if balance-fee != 0 {
		return errorf("Account balance must be $0.00 before closing. Current balance: $%s", pyFixed2(balance))
	}
	account.Set("status", "CLOSED")
	account.Set("date_closed", todayStr)
	account.Set("closure_reason", reason)
	account.Set("early_closure_fee_waived", waive)
	waived := "No"
	if truthy(waive) {
		waived = "Yes"
	}
	return "Bank account closed successfully!\n  - Account ID: " + pyStr(id) +
		"\n  - Account Type: " + pyStr(getDefault(account, "account_type", "N/A")) +
		"\n  - Account Class: " + pyStr(getDefault(account, "account_class", "N/A")) +
		"\n  - Status: CLOSED\n  - Date Closed: " + todayStr + "\n  - Reason: " + pyStr(reason) +
		"\n  - Early Closure Fee Waived: " + waived
}

// transactionTime is get_bank_account_transactions_9173's txn_sort_key:
// the date as "%m/%d/%Y %H:%M:%S" or "%m/%d/%Y", else datetime.min.
func transactionTime(rec *Obj) time.Time {
	s := pyStr(getDefault(rec, "date", ""))
	if t, ok := pyStrptime(s, true); ok {
		return t
	}
	if t, ok := pyStrptime(s, false); ok {
		return t
	}
	return pyDatetimeMin
}

// getBankAccountTransactions is tau2's get_bank_account_transactions_9173:
// an account's transactions, most recent first (records of the same date
// keep their stored order).
func getBankAccountTransactions(db *DB, a *Obj) string {
	acct := arg(a, "account_id")
	if !truthy(acct) {
		return "Error: Missing required parameter: account_id"
	}
	if _, errMsg := db.findRecord("accounts", acct, errorf("Account '%s' not found.", pyStr(acct))); errMsg != "" {
		return errMsg
	}
	ids, recs := db.queryIDs("bank_account_transaction_history", objOf("account_id", acct))
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return transactionTime(recs[j]).Compare(transactionTime(recs[i])) })
	parts := []string{"Bank account transactions retrieved successfully.", "", "Executed: get_bank_account_transactions_9173",
		"Transactions for account " + pyStr(acct) + ":"}
	if len(ids) == 0 {
		return strings.Join(append(parts, "\nNo transactions found for this account."), "\n")
	}
	lines := []string{fmt.Sprintf("Found %d record(s) in 'bank_account_transaction_history':\n", len(ids))}
	for n, i := range order {
		lines = append(lines, fmt.Sprintf("%d. Record ID: %s", n+1, ids[i]))
		for _, f := range recs[i].Keys() {
			lines = append(lines, "   "+f+": "+pyStr(recs[i].vals[f]))
		}
		lines = append(lines, "")
	}
	return strings.Join(append(parts, strings.Join(lines, "\n")), "\n")
}

// getAllUserAccounts is tau2's get_all_user_accounts_by_user_id_3847: a
// user's bank accounts and credit card accounts.
func getAllUserAccounts(db *DB, a *Obj) string {
	user := arg(a, "user_id")
	if !truthy(user) {
		return "Error: Missing required parameter: user_id"
	}
	bank := db.queryField("accounts", "user_id", pyStr(user))
	cards := db.queryField("credit_card_accounts", "user_id", pyStr(user))
	parts := []string{"User accounts retrieved successfully.", "", "Executed: get_all_user_accounts_by_user_id_3847",
		"Accounts for user " + pyStr(user) + ":", "", "Bank Accounts:"}
	if foundRecords(bank) {
		parts = append(parts, bank)
	} else {
		parts = append(parts, "  No bank accounts found.")
	}
	parts = append(parts, "\nCredit Card Accounts:")
	if foundRecords(cards) {
		parts = append(parts, cards)
	} else {
		parts = append(parts, "  No credit card accounts found.")
	}
	return strings.Join(parts, "\n")
}
