package banking

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A debit card's limits and the cards of an account: tau2's KnowledgeTools
// methods of the same names.

// defaultATMLimit is request_temporary_debit_card_limit_increase_8374's
// default_atm_limits: the daily ATM limit of an account level (lower
// case) whose card sets none.
func defaultATMLimit(level string) (int64, bool) {
	limit, ok := map[string]int64{
		"blue account": 500, "green account": 600, "light blue account": 400, "green fee-free account": 500,
		"evergreen account": 750, "bluest account": 1500, "dark green account": 300, "gold years account": 600,
		"purple account": 1000,
	}[level]
	return limit, ok
}

// readNewLimit reads new_limit as tau2 does: float(), then an int when it
// is whole; errMsg otherwise.
func readNewLimit(v any) (limit int64, errMsg string) {
	if v == nil {
		return 0, "Error: Missing required parameter: new_limit."
	}
	f, ok := pyFloatArg(v)
	if !ok {
		return 0, errorf("new_limit must be an integer, got '%s'.", pyStr(v))
	}
	if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return 0, errorf("new_limit must be an integer, got '%s'.", pyStr(f))
	}
	if f <= 0 {
		return 0, "Error: new_limit must be a positive amount."
	}
	return int64(f), ""
}

// limitCard finds the active card of an open account a limit increase is
// for, the account at least 60 days old.
func (db *DB) limitCard(cardID any) (card, account *Obj, errMsg string) {
	card, errMsg = db.findRecord("debit_cards", cardID, errorf("Debit card '%s' not found.", pyStr(cardID)))
	if errMsg != "" {
		return nil, nil, errMsg
	}
	if status := arg(card, "status"); !pyEqual(status, "ACTIVE") {
		return nil, nil, errorf("Debit card '%s' is not active. Current status: %s. Only ACTIVE cards can have limit increases.", pyStr(cardID), pyStr(status))
	}
	acct := arg(card, "account_id")
	noAccount := errorf("Could not find linked account for debit card '%s'.", pyStr(cardID))
	if !truthy(acct) {
		return nil, nil, noAccount
	}
	if account, errMsg = db.findRecord("accounts", acct, noAccount); errMsg != "" {
		return nil, nil, errMsg
	}
	if status := arg(account, "status"); !pyEqual(status, "OPEN") {
		return nil, nil, errorf("The linked account '%s' is not in good standing. Account status: %s.", pyStr(acct), pyStr(status))
	}
	if opened := arg(account, "date_opened"); truthy(opened) {
		s, isStr := opened.(string)
		if !isStr {
			return nil, nil, strptimeTypeError(opened)
		}
		if t, ok := pyStrptime(s, false); ok {
			if age := daysBeforeToday(t); age < 60 {
				return nil, nil, errorf("Account must be at least 60 days old for a temporary limit increase. Account age: %d days.", age)
			}
		}
	}
	return card, account, ""
}

// currentLimit is the card's limit of a type, its account's default ATM
// limit when the card has none.
func currentLimit(card, account *Obj, limitType string) (limit any, name, errMsg string) {
	if limitType != "atm" {
		limit, name = arg(card, "daily_purchase_limit"), "Daily Purchase Limit"
	} else if limit, name = arg(card, "daily_atm_limit"), "Daily ATM Withdrawal Limit"; limit == nil {
		level := strings.ToLower(pyStr(getDefault(account, "level", "")))
		if strings.Contains(level, "light green") {
			return nil, name, "Error: Light Green Account (teen checking) cards have policy-based limits that cannot be modified. The daily ATM withdrawal limit of $150 is fixed by account policy for safety reasons. The customer may request the parent/guardian to withdraw cash from their own account if needed."
		}
		d, ok := defaultATMLimit(level)
		if !ok {
			return nil, name, errorf("Could not determine the default ATM limit for account type '%s'. Please verify the account type.", pyStr(arg(account, "level")))
		}
		limit = d
	}
	if limit == nil {
		return nil, name, errorf("The card does not have a %s configured. This may be a restricted account type where limits are set by account policy and cannot be modified.", strings.ToLower(name))
	}
	return limit, name, ""
}

// requestTemporaryDebitLimitIncrease is tau2's
// request_temporary_debit_card_limit_increase_8374: a 24-hour raise of a
// card's daily ATM or purchase limit, up to 150% of it.
func requestTemporaryDebitLimitIncrease(db *DB, a *Obj) string {
	cardID, limitType := arg(a, "card_id"), arg(a, "limit_type")
	switch {
	case !truthy(cardID):
		return "Error: Missing required parameter: card_id."
	case !truthy(limitType):
		return "Error: Missing required parameter: limit_type."
	case !inStrs(limitType, "atm", "purchase"):
		return errorf("Invalid limit_type '%s'. Must be 'atm' or 'purchase'.", pyStr(limitType))
	}
	kind := limitType.(string)
	newLimit, errMsg := readNewLimit(arg(a, "new_limit"))
	if errMsg != "" {
		return errMsg
	}
	card, account, errMsg := db.limitCard(cardID)
	if errMsg != "" {
		return errMsg
	}
	current, name, errMsg := currentLimit(card, account, kind)
	if errMsg != "" {
		return errMsg
	}
	cur, ok := asFloat(current)
	if !ok {
		return raiseTypeError("unsupported operand type(s) for *: '" + pyTypeName(current) + "' and 'float'")
	}
	if maxAllowed := int64(cur * 1.5); newLimit > maxAllowed {
		return fmt.Sprintf("Error: Requested limit $%d exceeds the maximum allowed temporary increase. Maximum temporary limit is $%d (150%% of current $%s limit).",
			newLimit, maxAllowed, pyStr(current))
	}
	if float64(newLimit) <= cur {
		return fmt.Sprintf("Error: Requested limit $%d is not higher than the current limit of $%s.", newLimit, pyStr(current))
	}
	card.Set("daily_"+kind+"_limit", newLimit)
	card.Set("temporary_"+kind+"_limit_increase", true)
	card.Set("original_"+kind+"_limit", current)
	card.Set("temporary_"+kind+"_limit_expires", todayStr)
	return strings.Join([]string{
		"Temporary " + name + " Increase Granted Successfully", "Card ID: " + pyStr(cardID),
		"Previous Limit: $" + pyStr(current), "New Temporary Limit: $" + strconv.FormatInt(newLimit, 10),
		"Increase Amount: $" + pyStr(pySubInt(newLimit, current)), "", "Important Information:",
		"- This temporary increase expires in 24 hours", "- After expiration, the limit will revert to $" + pyStr(current),
		"- Only one temporary increase is allowed per 24-hour period", "",
		"Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own",
		"per-transaction or daily limits that Rho-Bank cannot override. The customer may need to",
		"use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs.",
	}, "\n")
}

// pySubInt is Python's n - v for an int n and a number v: an int unless v
// is a float.
func pySubInt(n int64, v any) any {
	switch x := v.(type) {
	case float64:
		return float64(n) - x
	case int64:
		return n - x
	case bool:
		if x {
			return n - 1
		}
	}
	return n
}

// getDebitCardsByAccount is tau2's get_debit_cards_by_account_id_7823: a
// checking account's cards, newest first, as JSON.
func getDebitCardsByAccount(db *DB, a *Obj) string {
	acct := arg(a, "account_id")
	if !truthy(acct) {
		return "Error: Missing required parameter 'account_id'."
	}
	account, errMsg := db.findRecord("accounts", acct, errorf("Account '%s' not found.", pyStr(acct)))
	if errMsg != "" {
		return errMsg
	}
	if !inStrs(strings.ToLower(pyStr(getDefault(account, "class", ""))), "checking", "business_checking") {
		return errorf("Account '%s' is not a checking account. Debit cards are only available for checking accounts.", pyStr(acct))
	}
	var found []*Obj
	cards := db.table("debit_cards").Data
	for _, id := range cards.Keys() {
		if card := cards.Sub(id); pyEqual(arg(card, "account_id"), acct) {
			found = append(found, debitCardInfo(id, card))
		}
	}
	if len(found) == 0 {
		return fmt.Sprintf("No debit cards found for account '%s'.", pyStr(acct))
	}
	issued := func(c *Obj) string {
		if v := arg(c, "date_issued"); truthy(v) {
			return pyStr(v)
		}
		return ""
	}
	slices.SortStableFunc(found, func(x, y *Obj) int { return strings.Compare(issued(y), issued(x)) })
	list := make([]any, len(found))
	for i, c := range found {
		list[i] = c
	}
	return pyDumps(list, 2)
}

// debitCardInfo is a card as get_debit_cards_by_account_id_7823 shows it:
// its id first, last_4_digits renamed card_number_last_4 and issue_date
// (or created_date) date_issued, moved last.
func debitCardInfo(id string, card *Obj) *Obj {
	info := objOf("card_id", id)
	for _, k := range card.Keys() {
		info.Set(k, card.vals[k])
	}
	rename := func(from, to string) bool {
		v, ok := info.Get(from)
		if !ok || info.Has(to) {
			return false
		}
		info.Delete(from)
		info.Set(to, v)
		return true
	}
	rename("last_4_digits", "card_number_last_4")
	if _, ok := info.Get("issue_date"); ok && !info.Has("date_issued") {
		rename("issue_date", "date_issued")
	} else {
		rename("created_date", "date_issued")
	}
	return info
}
