package banking

import (
	"math"
	"strings"
	"unicode/utf8"
)

// The debit card tools of tau2's KnowledgeTools that no task's gold
// trajectory calls: the recurring-payment block, ATM deposit images, the
// activation of new and of reissued cards, and the PIN change.

// setRecurringBlock is set_debit_card_recurring_block_7382.
func setRecurringBlock(db *DB, a *Obj) string {
	id, block := arg(a, "card_id"), arg(a, "block_recurring")
	if !truthy(id) {
		return "Error: Missing required parameter: card_id"
	}
	card, typeErr := db.lookup("debit_cards", id)
	if typeErr != "" {
		return typeErr
	}
	if !truthy(card) {
		return errorf("Debit card '%s' not found.", pyStr(id))
	}
	status, ok := card.Get("status")
	if !ok {
		status = ""
	}
	s, isStr := status.(string)
	if !isStr {
		return attrError(status, "upper")
	}
	if s = strings.ToUpper(s); s != "ACTIVE" {
		return errorf("Cannot update recurring block settings for a card with status '%s'. Card must be ACTIVE.", s)
	}
	card.Set("recurring_blocked", block)
	if truthy(block) {
		return "Recurring payments BLOCKED for debit card " + pyStr(id) + ".\nAll recurring/subscription charges will be declined.\n" +
			"One-time purchases are not affected.\nThis change takes effect within 24 hours."
	}
	return "Recurring payments UNBLOCKED for debit card " + pyStr(id) + ".\nRecurring/subscription charges will now be allowed.\n" +
		"This change takes effect within 24 hours."
}

// attrError is Python's AttributeError for a method a value's type lacks.
func attrError(v any, method string) string {
	return raiseError("'" + pyTypeName(v) + "' object has no attribute '" + method + "'")
}

// getATMDepositImages is get_atm_deposit_images_8473.
func getATMDepositImages(db *DB, a *Obj) string {
	id := arg(a, "transaction_id")
	if !truthy(id) {
		return "Error: Missing required parameter: transaction_id"
	}
	txn, typeErr := db.lookup("bank_account_transaction_history", id)
	switch {
	case typeErr != "":
		return typeErr
	case txn == nil:
		return errorf("Transaction '%s' not found.", pyStr(id))
	case arg(txn, "type") != "atm_deposit":
		return errorf("Transaction '%s' is not an ATM deposit. This tool only works for ATM deposit transactions.", pyStr(id))
	}
	desc, ok := txn.Get("description")
	if !ok {
		desc = ""
	}
	d, isStr := desc.(string)
	if !isStr {
		return attrError(desc, "upper")
	}
	if up := strings.ToUpper(d); !strings.Contains(up, "RHO-BANK") && !strings.Contains(up, "RHOBANK") {
		return errorf("Transaction '%s' is from a third-party ATM. Deposit images are only available for Rho-Bank ATM deposits. For third-party ATM disputes, a chargeback request must be submitted to the ATM network.", pyStr(id))
	}
	date, ok := txn.Get("date")
	if !ok {
		date = "Unknown"
	}
	head := "ATM Deposit Image Retrieval Results\n=====================================\nTransaction ID: " + pyStr(id) + "\nATM: "
	if img, ok := atmDepositImages()[pyStr(id)]; ok {
		return head + img.atm + "\nDeposit Date: " + pyStr(date) + "\n\n" + img.contents + "\n\n--- VERIFICATION NOTES ---\n" + img.notes + "\n"
	}
	amount, ok := txn.Get("amount")
	if !ok {
		amount = int64(0)
	}
	f, isNum := asFloat(amount)
	if !isNum {
		return raiseTypeError("bad operand type for abs(): '" + pyTypeName(amount) + "'")
	}
	return head + d + "\nDeposit Date: " + pyStr(date) + "\nAmount Recorded: $" + pyFixed2(math.Abs(f)) +
		"\n\n--- IMAGE STATUS ---\nStatus: IMAGES NOT AVAILABLE\nReason: Deposit images for this transaction have either expired (older than 90 days) or were not captured by the ATM system.\n\n" +
		"For deposits without available images, the dispute will proceed based on customer statement and ATM journal records only. Investigation timeline may be extended.\n"
}

// pinError is tau2's _validate_pin as its callers answer: "Error: " and
// the rule a PIN breaks, the AttributeError tau2 raises for a PIN that is
// no str, or "" for a PIN it accepts.
func pinError(pin any) string {
	const digits = "Error: PIN must be exactly 4 digits."
	if !truthy(pin) {
		return digits
	}
	if e := digitsOf(pin, 4, digits); e != "" {
		return e
	}
	s := pin.(string)
	if strings.Contains("0123456789 9876543210", s) {
		return "Error: PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
	}
	if r, _ := utf8.DecodeRuneInString(s); strings.Count(s, string(r)) == 4 {
		return "Error: PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN."
	}
	return ""
}

// digitsOf checks a str argument that must be n digits: the error, or the
// AttributeError tau2 raises when it is no str.
func digitsOf(v any, n int, msg string) string {
	s, ok := v.(string)
	if !ok {
		return attrError(v, "isdigit")
	}
	if !pyIsDigits(s, n) {
		return msg
	}
	return ""
}

// activationTool maps a card's issue_reason to the activation tool
// for it (_validate_activation_common's reason_map).
func activationTool(reason any) string {
	switch reason {
	case "new_account", "first_card":
		return "activate_debit_card_8291"
	case "lost", "stolen", "fraud":
		return "activate_debit_card_8292"
	case "expired", "damaged", "upgrade", "bank_reissue":
		return "activate_debit_card_8293"
	}
	return "unknown"
}

// activationCheck is tau2's _validate_activation_common: the error of an
// activation it refuses, or the card to activate.
func (db *DB) activationCheck(a *Obj, allowed []string, tool string) (string, *Obj) {
	id, last4, cvv, pin := arg(a, "card_id"), arg(a, "last_4_digits"), arg(a, "cvv"), arg(a, "pin")
	if !truthy(id) || !truthy(last4) || !truthy(arg(a, "expiration_date")) || !truthy(cvv) || !truthy(pin) {
		return "Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, pin.", nil
	}
	if e := pinError(pin); e != "" {
		return e, nil
	}
	if e := digitsOf(cvv, 3, "Error: CVV must be exactly 3 digits."); e != "" {
		return e, nil
	}
	if e := digitsOf(last4, 4, "Error: Last 4 digits must be exactly 4 digits."); e != "" {
		return e, nil
	}
	card, typeErr := db.lookup("debit_cards", id)
	if typeErr != "" {
		return typeErr, nil
	}
	if card == nil {
		return errorf("Debit card '%s' not found.", pyStr(id)), nil
	}
	reason, ok := card.Get("issue_reason")
	if !ok {
		reason = "new_account"
	}
	status := arg(card, "status")
	switch {
	case !inStrs(reason, allowed...):
		if typeErr := unhashableError(reason); typeErr != "" { // reason_map.get(issue_reason)
			return typeErr, nil
		}
		return errorf("Wrong activation tool. This card has issue_reason='%s'. Please use %s instead of %s.", pyStr(reason), activationTool(reason), tool), nil
	case status == "ACTIVE":
		return errorf("Debit card '%s' is already active.", pyStr(id)), nil
	case status != "PENDING":
		return errorf("Debit card '%s' cannot be activated. Current status: %s. Only PENDING cards can be activated.", pyStr(id), pyStr(status)), nil
	case !pyEqual(arg(card, "last_4_digits"), last4):
		return "Error: Card verification failed. The last 4 digits do not match our records.", nil
	}
	if acct := arg(card, "account_id"); truthy(acct) {
		account, typeErr := db.lookup("accounts", acct)
		if typeErr != "" {
			return typeErr, nil
		}
		if account != nil && arg(account, "status") != "OPEN" {
			return errorf("The linked checking account '%s' is no longer open. Card cannot be activated.", pyStr(acct)), nil
		}
	}
	return "", card
}

// activateOthers activates a card and moves the account's other ACTIVE
// cards to status, with the given fields; it returns their ids.
func (db *DB) activateOthers(id any, card *Obj, status, dateField, why string) []string {
	acct := arg(card, "account_id")
	card.Set("status", "ACTIVE")
	card.Set("activated_date", todayStr)
	var moved []string
	cards := db.table("debit_cards").Data
	for _, other := range cards.Keys() {
		c := cards.Sub(other)
		if !pyEqual(other, id) && pyEqual(arg(c, "account_id"), acct) && arg(c, "status") == "ACTIVE" {
			c, _ = db.record("debit_cards", other) // the DB's own, to change
			c.Set("status", status)
			c.Set(dateField, todayStr)
			c.Set("deactivation_reason", why)
			moved = append(moved, other)
		}
	}
	return moved
}

// activateNewDebitCard is activate_debit_card_8291.
func activateNewDebitCard(db *DB, a *Obj) string {
	e, card := db.activationCheck(a, []string{"new_account", "first_card"}, "activate_debit_card_8291")
	if e != "" {
		return e
	}
	id := arg(a, "card_id")
	moved := db.activateOthers(id, card, "DEACTIVATED", "deactivated_date", "New card activated")
	parts := []string{"New Debit Card Activation Successful", "Card ID: " + pyStr(id), "Status: ACTIVE",
		"Activation Date: " + todayStr, "", "Your card is now ready to use at any ATM or point of sale terminal.",
		"For security, please sign the back of your card."}
	if len(moved) > 0 {
		parts = append(parts, "\nNote: Previous card(s) have been deactivated: "+strings.Join(moved, ", "))
	}
	return strings.Join(parts, "\n")
}

// activateReissuedDebitCard is activate_debit_card_8293.
func activateReissuedDebitCard(db *DB, a *Obj) string {
	e, card := db.activationCheck(a, []string{"expired", "damaged", "upgrade", "bank_reissue"}, "activate_debit_card_8293")
	if e != "" {
		return e
	}
	id := arg(a, "card_id")
	reason, ok := card.Get("issue_reason")
	if !ok {
		reason = "expired"
	}
	moved := db.activateOthers(id, card, "GRACE_PERIOD", "grace_period_ends", "Reissued card activated ("+pyStr(reason)+")")
	parts := []string{"Reissued Debit Card Activation Successful", "Card ID: " + pyStr(id), "Reissue Reason: " + display(reason),
		"Status: ACTIVE", "Activation Date: " + todayStr, "", "Your reissued card is now ready to use."}
	if len(moved) > 0 {
		parts = append(parts, "\nNote: Your previous card(s) ("+strings.Join(moved, ", ")+") will remain active for 24 hours as a grace period.",
			"After 24 hours, the old card(s) will be automatically deactivated.")
	}
	if inStrs(reason, "expired", "bank_reissue") {
		parts = append(parts, "\nReminder: If your card number changed, please update any recurring payments with your new card details.")
	}
	return strings.Join(parts, "\n")
}

// changeDebitCardPIN is change_debit_card_pin_6285.
func changeDebitCardPIN(db *DB, a *Obj) string {
	id, current, next := arg(a, "card_id"), arg(a, "current_pin"), arg(a, "new_pin")
	if !truthy(id) || !truthy(current) || !truthy(next) {
		return "Error: Missing required parameters. Required: card_id, current_pin, new_pin."
	}
	if e := digitsOf(current, 4, "Error: Current PIN must be exactly 4 digits."); e != "" {
		return e
	}
	if e := pinError(next); e != "" {
		return e
	}
	if current == next {
		return "Error: New PIN must be different from current PIN."
	}
	card, typeErr := db.lookup("debit_cards", id)
	if typeErr != "" {
		return typeErr
	}
	if card == nil {
		return errorf("Debit card '%s' not found.", pyStr(id))
	}
	if status := arg(card, "status"); status != "ACTIVE" {
		return errorf("Cannot change PIN. Card status is %s. Only ACTIVE cards can have their PIN changed.", pyStr(status))
	}
	card.Set("pin_last_changed", todayStr)
	return strings.Join([]string{"Debit Card PIN Changed Successfully", "Card ID: " + pyStr(id), "PIN Changed: " + todayStr, "",
		"The new PIN is effective immediately.",
		"Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.", "",
		"Security reminder: Never share your PIN with anyone."}, "\n")
}
