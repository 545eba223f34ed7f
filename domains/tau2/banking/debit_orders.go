package banking

import (
	"fmt"
	"strings"
)

// order_debit_card_5739 of tau2's KnowledgeTools: a new debit card for a
// checking account, its order, its fees and the pending card.

// debitDeliveryTime is order_debit_card_5739's delivery_times: the
// expected delivery of a delivery option.
func debitDeliveryTime(option string) string {
	switch option {
	case "STANDARD":
		return "7-10 business days"
	case "EXPEDITED":
		return "3-5 business days"
	}
	return "1-2 business days"
}

// debitOrder is an order_debit_card_5739 call once its arguments are read.
type debitOrder struct {
	accountID, userID, address any
	delivery, design           string
	deliveryFee, designFee     float64
	excessFee                  any // a float, or the int 0 when float() refused it
	total, holdings            float64
	id, date                   string
}

// readDebitOrderFees reads the fees as order_debit_card_5739 does: nil
// for a fee given as None, an error answer where float() refuses one.
func readDebitOrderFees(a *Obj) (delivery, design, excess any, errMsg string) {
	excess = arg(a, "excess_replacement_fee")
	if !truthy(excess) {
		excess = int64(0)
	}
	if v := arg(a, "delivery_fee"); v != nil {
		f, ok := pyFloatArg(v)
		if !ok {
			return nil, nil, nil, "Error: delivery_fee must be a number."
		}
		delivery = f
	}
	if v := arg(a, "design_fee"); v != nil {
		f, ok := pyFloatArg(v)
		if !ok {
			return nil, nil, nil, "Error: design_fee must be a number."
		}
		design = f
	}
	if f, ok := pyFloatArg(excess); ok {
		excess = f
	} else {
		excess = int64(0)
	}
	return delivery, design, excess, ""
}

// readDebitOrder checks an order_debit_card_5739 call's arguments.
func readDebitOrder(a *Obj) (*debitOrder, string) {
	delivery, design, excess, errMsg := readDebitOrderFees(a)
	if errMsg != "" {
		return nil, errMsg
	}
	o := &debitOrder{accountID: arg(a, "account_id"), userID: arg(a, "user_id"), address: arg(a, "shipping_address"), excessFee: excess}
	if !truthy(o.accountID) || !truthy(o.userID) || !truthy(arg(a, "delivery_option")) || delivery == nil ||
		!truthy(arg(a, "card_design")) || design == nil || !truthy(o.address) {
		return nil, "Error: Missing required parameters. Required: account_id, user_id, delivery_option, delivery_fee, card_design, design_fee, shipping_address."
	}
	o.delivery = strings.ToUpper(pyStr(arg(a, "delivery_option")))
	if !inStrs(o.delivery, "STANDARD", "EXPEDITED", "RUSH") {
		return nil, "Error: Invalid delivery_option. Must be one of: " + strList("STANDARD", "EXPEDITED", "RUSH")
	}
	o.design = strings.ToUpper(pyStr(arg(a, "card_design")))
	if !inStrs(o.design, "CLASSIC", "PREMIUM", "CUSTOM") {
		return nil, "Error: Invalid card_design. Must be one of: " + strList("CLASSIC", "PREMIUM", "CUSTOM")
	}
	o.deliveryFee, o.designFee = delivery.(float64), design.(float64)
	excessF, _ := asFloat(excess)
	o.total = o.deliveryFee + o.designFee + excessF
	return o, ""
}

// checkDebitOrderAccount checks the account an order is for: an open
// checking account of the user, $25 in it, no pending order, no active
// card, funds for the fees. It sets the order's holdings.
func (db *DB) checkDebitOrderAccount(o *debitOrder) string {
	id := pyStr(o.accountID)
	account, errMsg := db.findRecord("accounts", o.accountID, errorf("Account '%s' not found.", id))
	if errMsg != "" {
		return errMsg
	}
	if class := arg(account, "class"); !pyEqual(class, "checking") {
		return errorf("Debit cards can only be ordered for checking accounts. Account '%s' is a %s account.", id, pyStr(class))
	}
	if status := arg(account, "status"); !pyEqual(status, "OPEN") {
		return errorf("Account must be OPEN. Account '%s' has status: %s", id, pyStr(status))
	}
	if !pyEqual(arg(account, "user_id"), o.userID) {
		return errorf("Account '%s' does not belong to user '%s'.", id, pyStr(o.userID))
	}
	o.holdings, _ = pyFloatText(strings.ReplaceAll(pyStr(getDefault(account, "current_holdings", "0")), ",", ""))
	if o.holdings < 25.0 {
		return errorf("Account must have a minimum balance of $25. Current balance: $%s", pyFixed2(o.holdings))
	}
	orders := db.table("debit_card_orders").Data
	for _, k := range orders.Keys() {
		if order := orders.Sub(k); pyEqual(arg(order, "account_id"), o.accountID) && pyEqual(arg(order, "status"), "PENDING") {
			return errorf("There is already a pending debit card order for account '%s'.", id)
		}
	}
	cards := db.table("debit_cards").Data
	for _, k := range cards.Keys() {
		if card := cards.Sub(k); pyEqual(arg(card, "account_id"), o.accountID) && pyEqual(arg(card, "status"), "ACTIVE") {
			return errorf("Account '%s' already has an active debit card. Maximum 1 active card per checking account.", id)
		}
	}
	if o.total > 0 && o.holdings < o.total {
		return errorf("Insufficient funds for fees. Total fees: $%s. Current balance: $%s", pyFixed2(o.total), pyFixed2(o.holdings))
	}
	return ""
}

// orderDebitCard is tau2's order_debit_card_5739.
func orderDebitCard(db *DB, a *Obj) string {
	o, errMsg := readDebitOrder(a)
	if errMsg != "" {
		return errMsg
	}
	if errMsg := db.checkDebitOrderAccount(o); errMsg != "" {
		return errMsg
	}
	o.date = todayStr
	o.id = debitCardOrderID(pyStr(o.accountID), pyStr(o.userID), o.delivery)
	rec := objOf("order_id", o.id, "account_id", o.accountID, "user_id", o.userID, "delivery_option", o.delivery,
		"card_design", o.design, "shipping_address", o.address, "delivery_fee", o.deliveryFee, "design_fee", o.designFee,
		"excess_replacement_fee", o.excessFee, "total_fee", o.total, "order_date", o.date,
		"expected_delivery", debitDeliveryTime(o.delivery), "status", "PENDING")
	if !db.addRecord("debit_card_orders", o.id, rec) {
		return "Error: Failed to create debit card order. Order may already exist."
	}
	if o.total > 0 {
		db.chargeDebitOrderFees(o)
	}
	cardID, typeErr := db.addPendingDebitCard(o)
	if typeErr != "" {
		return typeErr
	}
	return debitOrderReceipt(o, cardID)
}

// feeParts are the fees an order charges, as its messages list them
// (sep between a fee's name and its amount).
func (o *debitOrder) feeParts(sep string) []string {
	var parts []string
	if o.deliveryFee > 0 {
		parts = append(parts, "Delivery"+sep+"$"+pyStr(o.deliveryFee))
	}
	if o.designFee > 0 {
		parts = append(parts, "Design"+sep+"$"+pyStr(o.designFee))
	}
	if f, _ := asFloat(o.excessFee); f > 0 {
		parts = append(parts, "Excess Replacement"+sep+"$"+pyFormat(o.excessFee, 'f', 0))
	}
	return parts
}

// chargeDebitOrderFees takes an order's fees from its account and logs
// them as a bank account transaction.
func (db *DB) chargeDebitOrderFees(o *debitOrder) {
	account, _ := db.lookup("accounts", o.accountID) // checked by checkDebitOrderAccount
	account.Set("current_holdings", pyFixed2(o.holdings-o.total))
	txnID := "btxn_dcfee_" + o.id[len(o.id)-8:]
	db.addRecord("bank_account_transaction_history", txnID, objOf("transaction_id", txnID, "account_id", o.accountID,
		"date", o.date, "description", "DEBIT CARD ORDER FEE - "+strings.Join(o.feeParts(" "), ", "),
		"amount", -o.total, "type", "debit_card_fee", "status", "posted"))
}

// debitIssueReason is the issue_reason of an account's new card: the
// closure reason of its first closed card when lost, stolen or fraud,
// else first_card, or new_account for an account without cards.
func (db *DB) debitIssueReason(accountID any) string {
	cards := db.table("debit_cards").Data
	existing := false
	for _, k := range cards.Keys() {
		card := cards.Sub(k)
		if !pyEqual(arg(card, "account_id"), accountID) {
			continue
		}
		existing = true
		if !pyEqual(arg(card, "status"), "CLOSED") {
			continue
		}
		reason := getDefault(card, "closure_reason", "first_card")
		if inStrs(reason, "lost", "stolen", "fraud") {
			return reason.(string)
		}
		if reason == "fraud_suspected" {
			return "fraud"
		}
		return "first_card"
	}
	if existing {
		return "first_card"
	}
	return "new_account"
}

// addPendingDebitCard adds an order's card, PENDING, with its last 4
// digits and CVV drawn from its id; it returns the card's id, or the
// TypeError of a user id Python cannot hash (the order and its fees stay).
func (db *DB) addPendingDebitCard(o *debitOrder) (cardID, typeErr string) {
	cardID = debitCardID(pyStr(o.accountID), pyStr(o.userID), o.date)
	seed := "card_details:" + cardID
	last4 := pyZfill(hexDigits(deterministicID(seed+":last4", 8), 4), 4)
	cvv := pyZfill(hexDigits(deterministicID(seed+":cvv", 6), 3), 3)
	name := any("CARDHOLDER")
	user, typeErr := db.lookup("users", o.userID)
	if typeErr != "" {
		return "", typeErr
	}
	if user != nil {
		name = strings.ToUpper(pyStr(getDefault(user, "name", "CARDHOLDER")))
	}
	expiration := "12/31/2029"
	if parts := strings.Split(o.date, "/"); len(parts) == 3 {
		var year int
		if _, err := fmt.Sscanf(parts[2], "%d", &year); err == nil {
			day := "30"
			switch parts[0] {
			case "01", "03", "05", "07", "08", "10", "12":
				day = "31"
			case "02":
				day = "28"
			}
			expiration = fmt.Sprintf("%s/%s/%d", parts[0], day, year+4)
		}
	}
	db.addRecord("debit_cards", cardID, objOf("card_id", cardID, "account_id", o.accountID, "user_id", o.userID,
		"cardholder_name", name, "last_4_digits", last4, "cvv", cvv, "status", "PENDING", "issue_date", o.date,
		"expiration_date", expiration, "card_design", o.design, "issue_reason", db.debitIssueReason(o.accountID)))
	return cardID, ""
}

// debitOrderReceipt is order_debit_card_5739's answer.
func debitOrderReceipt(o *debitOrder, cardID string) string {
	parts := []string{
		"Debit Card Order Confirmed", "Order ID: " + o.id, "Card ID: " + cardID, "Linked Account: " + pyStr(o.accountID),
		"Delivery Option: " + o.delivery, "Card Design: " + o.design, "Shipping Address: " + pyStr(o.address),
		"Expected Delivery: " + debitDeliveryTime(o.delivery), "",
		"Note: Card will arrive with status PENDING. Customer must call to activate after receiving the card.",
	}
	if o.total > 0 {
		parts = append(parts,
			"Total Fees: $"+pyFixed2(o.total)+" ("+strings.Join(o.feeParts(": "), ", ")+") - CHARGED to account "+pyStr(o.accountID),
			"New Account Balance: $"+pyFixed2(o.holdings-o.total))
	} else {
		parts = append(parts, "Total Fees: $0 (No additional charges)")
	}
	return strings.Join(parts, "\n")
}
