package banking

import (
	"slices"
	"strings"
)

// The discoverable agent tools that change a debit card's state: tau2's
// KnowledgeTools methods of the same names.

// activateReplacementDebitCard is tau2's activate_debit_card_8292: it
// activates a card replacing a lost, stolen or fraud-suspected one and
// deactivates the account's other active cards.
func activateReplacementDebitCard(db *DB, a *Obj) string {
	errMsg, card := db.activationCheck(a, []string{"lost", "stolen", "fraud"}, "activate_debit_card_8292")
	if errMsg != "" {
		return errMsg
	}
	cardID := arg(a, "card_id")
	accountID, reason := arg(card, "account_id"), pyStr(getDefault(card, "issue_reason", "lost"))
	card.Set("status", "ACTIVE")
	card.Set("activated_date", todayStr)
	var deactivated []string
	cards := db.table("debit_cards").Data
	for _, id := range cards.Keys() {
		other := cards.Sub(id)
		if pyEqual(id, cardID) || !pyEqual(arg(other, "account_id"), accountID) || !pyEqual(arg(other, "status"), "ACTIVE") {
			continue
		}
		other, _ = db.record("debit_cards", id) // the DB's own, to change
		other.Set("status", "DEACTIVATED")
		other.Set("deactivated_date", todayStr)
		other.Set("deactivation_reason", "Replacement card activated ("+reason+")")
		deactivated = append(deactivated, id)
	}
	parts := []string{
		"Replacement Debit Card Activation Successful", "Card ID: " + pyStr(cardID),
		"Replacement Reason: " + pyTitle(strings.ReplaceAll(reason, "_", " ")), "Status: ACTIVE",
		"Activation Date: " + todayStr, "", "Your replacement card is now ready to use.", "",
		"IMPORTANT SECURITY REMINDERS:", "- Please review your recent transactions for any unauthorized charges",
		"- Report any suspicious activity immediately",
	}
	if reason == "fraud" {
		parts = append(parts, "- Since fraud was suspected, we recommend changing your online banking password")
	}
	if len(deactivated) > 0 {
		parts = append(parts, "\nPrevious card(s) have been deactivated for security: "+strings.Join(deactivated, ", "))
	}
	return strings.Join(parts, "\n")
}

// closeDebitCardReasons are close_debit_card_4721's valid reasons.
var closeDebitCardReasons = []string{"lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"}

// closeDebitCard is tau2's close_debit_card_4721: it closes an active or
// pending card for good.
func closeDebitCard(db *DB, a *Obj) string {
	cardID, rawReason := arg(a, "card_id"), arg(a, "reason")
	if !truthy(cardID) || !truthy(rawReason) {
		return "Error: Missing required parameters. Required: card_id, reason."
	}
	reason := strings.ToLower(pyStr(rawReason))
	if !slices.Contains(closeDebitCardReasons, reason) {
		return "Error: Invalid reason. Must be one of: " + strList(closeDebitCardReasons...)
	}
	card, errMsg := db.findRecord("debit_cards", cardID, errorf("Debit card '%s' not found.", pyStr(cardID)))
	if errMsg != "" {
		return errMsg
	}
	previous := arg(card, "status")
	if !inStrs(previous, "ACTIVE", "PENDING") {
		return errorf("Debit card '%s' cannot be closed. Current status: %s. Only ACTIVE or PENDING cards can be closed.",
			pyStr(cardID), pyStr(previous))
	}
	card.Set("status", "CLOSED")
	card.Set("closed_date", todayStr)
	card.Set("closure_reason", reason)
	parts := []string{
		"Debit Card Closed Successfully", "Card ID: " + pyStr(cardID), "Previous Status: " + pyStr(previous),
		"New Status: CLOSED", "Closure Reason: " + pyTitle(strings.ReplaceAll(reason, "_", " ")),
		"Closure Date: " + todayStr, "",
	}
	if inStrs(reason, "lost", "stolen", "fraud_suspected") {
		parts = append(parts, "IMPORTANT: This card has been immediately deactivated for security.",
			"Any pending transactions may still be processed.")
		if reason == "fraud_suspected" {
			parts = append(parts, "Please advise the customer to review recent transactions and file disputes for any unauthorized charges.",
				"Also recommend changing their online banking password.")
		}
	}
	parts = append(parts, "",
		"Note: This card cannot be reactivated. If the customer needs a new card, they can order one through the standard ordering process.",
		"Any recurring payments linked to this card will need to be updated with new payment information.")
	return strings.Join(parts, "\n")
}

// freezeDebitCard is tau2's freeze_debit_card_3892: an active card is
// frozen until unfrozen.
func freezeDebitCard(db *DB, a *Obj) string {
	cardID := arg(a, "card_id")
	if !truthy(cardID) {
		return "Error: Missing required parameter: card_id."
	}
	card, errMsg := db.findRecord("debit_cards", cardID, errorf("Debit card '%s' not found.", pyStr(cardID)))
	if errMsg != "" {
		return errMsg
	}
	switch status := arg(card, "status"); {
	case pyEqual(status, "FROZEN"):
		return errorf("Debit card '%s' is already frozen.", pyStr(cardID))
	case !pyEqual(status, "ACTIVE"):
		return errorf("Debit card '%s' cannot be frozen. Current status: %s. Only ACTIVE cards can be frozen.", pyStr(cardID), pyStr(status))
	}
	card.Set("status", "FROZEN")
	card.Set("frozen_date", todayStr)
	return strings.Join([]string{
		"Debit Card Frozen Successfully", "Card ID: " + pyStr(cardID), "Status: FROZEN", "Frozen Date: " + todayStr, "",
		"While frozen:", "- All new purchase transactions will be declined",
		"- Recurring payments and subscriptions will be declined",
		"- Pending transactions already authorized may still process", "",
		"To unfreeze, the customer can call customer service or use the mobile app.",
		"If the card is confirmed lost or stolen, recommend closing the card permanently instead.",
	}, "\n")
}

// unfreezeDebitCard is tau2's unfreeze_debit_card_3893: a frozen card of
// an open account is active again.
func unfreezeDebitCard(db *DB, a *Obj) string {
	cardID := arg(a, "card_id")
	if !truthy(cardID) {
		return "Error: Missing required parameter: card_id."
	}
	card, errMsg := db.findRecord("debit_cards", cardID, errorf("Debit card '%s' not found.", pyStr(cardID)))
	if errMsg != "" {
		return errMsg
	}
	switch status := arg(card, "status"); {
	case pyEqual(status, "ACTIVE"):
		return errorf("Debit card '%s' is already active.", pyStr(cardID))
	case !pyEqual(status, "FROZEN"):
		return errorf("Debit card '%s' cannot be unfrozen. Current status: %s. Only FROZEN cards can be unfrozen.", pyStr(cardID), pyStr(status))
	}
	if acct := arg(card, "account_id"); truthy(acct) {
		account, typeErr := db.lookup("accounts", acct)
		if typeErr != "" {
			return typeErr
		}
		if account != nil && !pyEqual(arg(account, "status"), "OPEN") {
			return errorf("The linked checking account '%s' is no longer open. Card cannot be unfrozen.", pyStr(acct))
		}
	}
	card.Set("status", "ACTIVE")
	card.Set("unfrozen_date", todayStr)
	return strings.Join([]string{
		"Debit Card Unfrozen Successfully", "Card ID: " + pyStr(cardID), "Status: ACTIVE", "Unfrozen Date: " + todayStr, "",
		"The card is now active and ready to use immediately.", "All transactions will process normally.",
	}, "\n")
}

// clearDebitCardFraudAlert is tau2's clear_debit_card_fraud_alert_4892:
// it lifts a velocity block or a fraud alert the bank did not raise.
func clearDebitCardFraudAlert(db *DB, a *Obj) string {
	cardID, reason := arg(a, "card_id"), arg(a, "reason")
	switch {
	case !truthy(cardID):
		return "Error: Missing required parameter: card_id."
	case !truthy(reason):
		return "Error: Missing required parameter: reason."
	case !inStrs(reason, "customer_verified", "velocity_clear"):
		return errorf("Invalid reason '%s'. Must be one of: customer_verified, velocity_clear", pyStr(reason))
	}
	card, errMsg := db.findRecord("debit_cards", cardID, errorf("Debit card '%s' not found.", pyStr(cardID)))
	if errMsg != "" {
		return errMsg
	}
	if reason == "velocity_clear" {
		if !truthy(getDefault(card, "velocity_blocked", false)) {
			return errorf("Debit card '%s' does not have an active velocity block.", pyStr(cardID))
		}
		card.Set("velocity_blocked", false)
		card.Set("velocity_cleared_date", todayStr)
		return strings.Join([]string{
			"Velocity Block Cleared Successfully", "Card ID: " + pyStr(cardID), "Cleared Date: " + todayStr, "",
			"The card is now unblocked and ready for normal use.",
			"The velocity monitoring will continue - if the same unusual patterns recur,",
			"the card may be blocked again automatically.",
		}, "\n")
	}
	if !truthy(getDefault(card, "fraud_alert_active", false)) {
		return errorf("Debit card '%s' does not have an active fraud alert.", pyStr(cardID))
	}
	if pyEqual(arg(card, "alert_source"), "bank_initiated") {
		return "Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection system and cannot be cleared by customer service agents. Please transfer the customer to the security team using transfer_to_human_agents."
	}
	card.Set("fraud_alert_active", false)
	card.Set("alert_source", nil)
	card.Set("fraud_alert_cleared_date", todayStr)
	return strings.Join([]string{
		"Fraud Alert Cleared Successfully", "Card ID: " + pyStr(cardID), "Cleared Date: " + todayStr, "",
		"The fraud alert has been removed from the card.", "All transactions will process normally.", "",
		"Remind the customer to review recent transactions and report any unauthorized charges.",
	}, "\n")
}

// resetDebitCardPIN is tau2's reset_debit_card_pin_6284: an active card
// gets a new PIN and is unlocked.
func resetDebitCardPIN(db *DB, a *Obj) string {
	cardID, last4, pin := arg(a, "card_id"), arg(a, "last_4_digits"), arg(a, "new_pin")
	if !truthy(cardID) || !truthy(last4) || !truthy(pin) {
		return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin."
	}
	if !pyIsDigits(last4, 4) {
		return "Error: Last 4 digits must be exactly 4 digits."
	}
	if e := pinError(pin); e != "" {
		return e
	}
	card, errMsg := db.findRecord("debit_cards", cardID, errorf("Debit card '%s' not found.", pyStr(cardID)))
	if errMsg != "" {
		return errMsg
	}
	if !pyEqual(arg(card, "last_4_digits"), last4) {
		return "Error: Card verification failed. The last 4 digits do not match our records."
	}
	if status := arg(card, "status"); !pyEqual(status, "ACTIVE") {
		return errorf("Cannot reset PIN. Card status is %s. Only ACTIVE cards can have their PIN reset.", pyStr(status))
	}
	card.Set("pin_last_changed", todayStr)
	card.Set("pin_locked", false)
	card.Set("pin_attempts_remaining", int64(3))
	return strings.Join([]string{
		"Debit Card PIN Reset Successfully", "Card ID: " + pyStr(cardID), "PIN Changed: " + todayStr, "",
		"The new PIN is effective immediately.", "Your card has been unlocked and is ready to use.",
		"Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.", "",
		"Security reminder: Never share your PIN with anyone.",
	}, "\n")
}
