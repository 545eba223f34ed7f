package retail

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/calc"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// TransferMessage is what transfer_to_human_agents returns, as in tau2.
const TransferMessage = "Transfer successful"

// The lookup failures, worded exactly as tau2 words them.
var (
	errUserNotFound          = errors.New("User not found")
	errOrderNotFound         = errors.New("Order not found")
	errProductNotFound       = errors.New("Product not found")
	errVariantNotFound       = errors.New("Variant not found")
	errItemNotFound          = errors.New("Item not found")
	errPaymentMethodNotFound = errors.New("Payment method not found")
)

const addressParams = `
			"address1": {"type": "string", "description": "First line of the street address, e.g. '123 Main St'."},
			"address2": {"type": "string", "description": "Second line (apartment, suite), or an empty string."},
			"city": {"type": "string", "description": "City, e.g. 'San Francisco'."},
			"state": {"type": "string", "description": "State or province code, e.g. 'CA'."},
			"country": {"type": "string", "description": "Country, e.g. 'USA'."},
			"zip": {"type": "string", "description": "Postal code, e.g. '94105'."}`

const itemSwapParams = `
			"item_ids": {"type": "array", "items": {"type": "string"}, "description": "Item ids of the order's items to replace, one entry per unit (repeat an id to replace several units of it)."},
			"new_item_ids": {"type": "array", "items": {"type": "string"}, "description": "Item ids of the replacements, paired by position with item_ids; each must be an available variant of the same product."},
			"payment_method_id": {"type": "string", "description": "Id of one of the user's payment methods, e.g. 'gift_card_0000000' or 'credit_card_0000000', that pays or receives the price difference."}`

// Tools returns the retail toolbox: the agent's tools of tau2's retail
// domain, with tau2's semantics and failure messages.
func Tools() *domains.Toolbox[DB] {
	tb := domains.NewToolbox[DB]()
	tb.EncodeWith(pyjson.ToolMessage) // tau2's json.dumps layout
	tb.Register("calculate",
		"Evaluate an arithmetic expression and return the result rounded to 2 decimal places. Allowed: numbers, + - * / ( ), ** (power) and // (floor division), and spaces.",
		`{"type": "object", "properties": {
			"expression": {"type": "string", "description": "The expression, e.g. '(129.99 + 45.5) * 2 - 10'."}
		}, "required": ["expression"]}`,
		toolCalculate)
	tb.Register("cancel_pending_order",
		"Cancel an order whose status is 'pending'. Every payment of the order is refunded to the method it came from: immediately for a gift card, in 5 to 7 business days otherwise. Confirm the details with the user before calling.",
		`{"type": "object", "properties": {
			"order_id": {"type": "string", "description": "The order id, with its leading '#', e.g. '#W0000000'."},
			"reason": {"type": "string", "enum": ["no longer needed", "ordered by mistake"], "description": "Why the user cancels."}
		}, "required": ["order_id", "reason"]}`,
		cancelPendingOrder)
	tb.Register("exchange_delivered_order_items",
		"Request an exchange of items of a delivered order for other variants of the same products. The order becomes 'exchange requested' and can then not be changed again, so collect every item to exchange first. The price difference is charged to, or refunded to, the given payment method; a gift card must cover it.",
		`{"type": "object", "properties": {
			"order_id": {"type": "string", "description": "The order id, with its leading '#', e.g. '#W0000000'."},`+itemSwapParams+`
		}, "required": ["order_id", "item_ids", "new_item_ids", "payment_method_id"]}`,
		exchangeDeliveredOrderItems)
	tb.Register("find_user_id_by_email",
		"Look up a user id from an email address (case-insensitive).",
		`{"type": "object", "properties": {
			"email": {"type": "string", "description": "The user's email, e.g. 'jane.doe1234@example.com'."}
		}, "required": ["email"]}`,
		findUserIDByEmail)
	tb.Register("find_user_id_by_name_zip",
		"Look up a user id from first name, last name (both case-insensitive) and zip code. Use it when the user does not give an email or the email lookup fails.",
		`{"type": "object", "properties": {
			"first_name": {"type": "string", "description": "First name, e.g. 'Jane'."},
			"last_name": {"type": "string", "description": "Last name, e.g. 'Doe'."},
			"zip": {"type": "string", "description": "Zip code of the user's address, e.g. '10001'."}
		}, "required": ["first_name", "last_name", "zip"]}`,
		findUserIDByNameZip)
	tb.Register("get_order_details",
		"Get an order: its user, address, items, status, fulfillments (tracking) and payment history.",
		`{"type": "object", "properties": {
			"order_id": {"type": "string", "description": "The order id, with its leading '#', e.g. '#W0000000'."}
		}, "required": ["order_id"]}`,
		getOrderDetails)
	tb.Register("get_product_details",
		"Get a product type and all its variants: item id, options, availability and price of each.",
		`{"type": "object", "properties": {
			"product_id": {"type": "string", "description": "The product id, e.g. '6086499569'. It is not an item id."}
		}, "required": ["product_id"]}`,
		getProductDetails)
	tb.Register("get_item_details",
		"Get one item (a product variant) by its item id: options, availability and price.",
		`{"type": "object", "properties": {
			"item_id": {"type": "string", "description": "The item id, e.g. '1008292230'."}
		}, "required": ["item_id"]}`,
		getItemDetails)
	tb.Register("get_user_details",
		"Get a user's profile: name, default address, email, payment methods (with gift card balances) and order ids.",
		`{"type": "object", "properties": {
			"user_id": {"type": "string", "description": "The user id, e.g. 'jane_doe_1234'."}
		}, "required": ["user_id"]}`,
		getUserDetails)
	tb.Register("list_all_product_types",
		"List every product type of the store as a JSON object mapping product name to product id.",
		`{"type": "object", "properties": {}, "required": []}`,
		listAllProductTypes)
	tb.Register("modify_pending_order_address",
		"Change the shipping address of an order that is still pending (including 'pending (item modified)'). Confirm the details with the user before calling.",
		`{"type": "object", "properties": {
			"order_id": {"type": "string", "description": "The order id, with its leading '#', e.g. '#W0000000'."},`+addressParams+`
		}, "required": ["order_id", "address1", "address2", "city", "state", "country", "zip"]}`,
		modifyPendingOrderAddress)
	tb.Register("modify_pending_order_items",
		"Replace items of a pending order with other variants of the same products. This can be done only once per order: it becomes 'pending (item modified)', so collect every item to change first. The price difference is charged to, or refunded to, the given payment method; a gift card must cover it. Confirm the details with the user before calling.",
		`{"type": "object", "properties": {
			"order_id": {"type": "string", "description": "The order id, with its leading '#', e.g. '#W0000000'."},`+itemSwapParams+`
		}, "required": ["order_id", "item_ids", "new_item_ids", "payment_method_id"]}`,
		modifyPendingOrderItems)
	tb.Register("modify_pending_order_payment",
		"Pay a pending order with a different payment method of the same user. The original payment is refunded (immediately for a gift card) and the new method is charged; a gift card must cover the amount. Confirm the details with the user before calling.",
		`{"type": "object", "properties": {
			"order_id": {"type": "string", "description": "The order id, with its leading '#', e.g. '#W0000000'."},
			"payment_method_id": {"type": "string", "description": "Id of the new payment method, e.g. 'gift_card_0000000'; it must differ from the current one."}
		}, "required": ["order_id", "payment_method_id"]}`,
		modifyPendingOrderPayment)
	tb.Register("modify_user_address",
		"Change a user's default address. Confirm the details with the user before calling.",
		`{"type": "object", "properties": {
			"user_id": {"type": "string", "description": "The user id, e.g. 'jane_doe_1234'."},`+addressParams+`
		}, "required": ["user_id", "address1", "address2", "city", "state", "country", "zip"]}`,
		modifyUserAddress)
	tb.Register("return_delivered_order_items",
		"Request a return of items of a delivered order. The order becomes 'return requested'. The refund goes to the original payment method or to one of the user's gift cards. Confirm the details with the user before calling.",
		`{"type": "object", "properties": {
			"order_id": {"type": "string", "description": "The order id, with its leading '#', e.g. '#W0000000'."},
			"item_ids": {"type": "array", "items": {"type": "string"}, "description": "Item ids of the order's items to return, one entry per unit."},
			"payment_method_id": {"type": "string", "description": "Where the refund goes: the order's original payment method or a gift card of the user."}
		}, "required": ["order_id", "item_ids", "payment_method_id"]}`,
		returnDeliveredOrderItems)
	tb.Register("transfer_to_human_agents",
		"Hand the conversation to a human agent, only when the user explicitly asks for one or the request cannot be handled with your tools under the policy.",
		`{"type": "object", "properties": {
			"summary": {"type": "string", "description": "A short summary of the user's issue for the human agent."}
		}, "required": ["summary"]}`,
		transferToHumanAgents)
	return tb
}

// --- lookups ---

func (db *DB) order(id string) (*Order, error) {
	if o, ok := db.orders.get(id); ok {
		return o, nil
	}
	return nil, errOrderNotFound
}

func (db *DB) user(id string) (*User, error) {
	if u, ok := db.users.get(id); ok {
		return u, nil
	}
	return nil, errUserNotFound
}

func (db *DB) variant(productID, itemID string) (*Variant, error) {
	p, ok := db.products.get(productID)
	if !ok {
		return nil, errProductNotFound
	}
	v, ok := p.Variants[itemID]
	if !ok {
		return nil, errVariantNotFound
	}
	return v, nil
}

// paymentMethod looks a method up on a user, who must exist.
func (db *DB) paymentMethod(userID, id string) (PaymentMethod, error) {
	u, err := db.user(userID)
	if err != nil {
		return PaymentMethod{}, err
	}
	pm, ok := u.PaymentMethods[id]
	if !ok {
		return PaymentMethod{}, errPaymentMethodNotFound
	}
	return pm, nil
}

// editOrder returns this DB's private copy of an order, for changing it.
func (db *DB) editOrder(id string) *Order {
	o, _ := db.orders.edit(id, (*Order).clone)
	return o
}

// addToGiftCard adds delta to a gift card's balance and rounds it to cents
// as tau2 does, on this DB's private copy of the user.
func (db *DB) addToGiftCard(userID, pmID string, delta float64) {
	u, _ := db.users.edit(userID, (*User).clone)
	pm := u.PaymentMethods[pmID]
	pm.Balance = calc.Round2(pm.Balance + delta)
	u.PaymentMethods[pmID] = pm
}

func isLooselyPending(status string) bool { return strings.Contains(status, "pending") }

// countCheck fails when an id occurs more often in ids than among the
// order's items.
func countCheck(o *Order, ids []string, fail func(id string) error) error {
	for _, id := range ids {
		want := 0
		for _, x := range ids {
			if x == id {
				want++
			}
		}
		have := 0
		for _, it := range o.Items {
			if it.ItemID == id {
				have++
			}
		}
		if want > have {
			return fail(id)
		}
	}
	return nil
}

func firstItem(o *Order, itemID string) int {
	return slices.IndexFunc(o.Items, func(it OrderItem) bool { return it.ItemID == itemID })
}

// --- read tools ---

func toolCalculate(_ *DB, args domains.Args) (any, error) {
	s, err := stringArgs("calculate", args, "expression")
	if err != nil {
		return nil, err
	}
	return calc.Calculate(s[0])
}

func transferToHumanAgents(_ *DB, args domains.Args) (any, error) {
	// tau2 ignores the summary, so any value is accepted.
	if err := pycompat.CheckKwargs(toolsClass, "transfer_to_human_agents", args, []string{"summary"}); err != nil {
		return nil, err
	}
	return TransferMessage, nil
}

func findUserIDByEmail(db *DB, args domains.Args) (any, error) {
	s, err := stringArgs("find_user_id_by_email", args, "email")
	if err != nil {
		return nil, err
	}
	email := strings.ToLower(s[0])
	var found string
	db.users.each(func(id string, u *User) bool {
		if strings.ToLower(u.Email) == email {
			found = id
			return false
		}
		return true
	})
	if found == "" {
		return nil, errUserNotFound
	}
	return found, nil
}

func findUserIDByNameZip(db *DB, args domains.Args) (any, error) {
	// tau2 lowers the names (a non-string fails) but compares the zip as
	// it comes: a zip of another type matches no user.
	if err := pycompat.CheckKwargs(toolsClass, "find_user_id_by_name_zip", args, []string{"first_name", "last_name", "zip"}); err != nil {
		return nil, err
	}
	first, err := stringArg(args, "first_name")
	if err != nil {
		return nil, err
	}
	last, err := stringArg(args, "last_name")
	if err != nil {
		return nil, err
	}
	zip, ok := args["zip"].(string)
	if !ok {
		return nil, errUserNotFound
	}
	first, last = strings.ToLower(first), strings.ToLower(last)
	var found string
	db.users.each(func(id string, u *User) bool {
		if strings.ToLower(u.Name.FirstName) == first && strings.ToLower(u.Name.LastName) == last && u.Address.Zip == zip {
			found = id
			return false
		}
		return true
	})
	if found == "" {
		return nil, errUserNotFound
	}
	return found, nil
}

func getOrderDetails(db *DB, args domains.Args) (any, error) {
	s, found, err := idArgs("get_order_details", args, "order_id")
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errOrderNotFound
	}
	return db.order(s[0])
}

func getUserDetails(db *DB, args domains.Args) (any, error) {
	s, found, err := idArgs("get_user_details", args, "user_id")
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errUserNotFound
	}
	return db.user(s[0])
}

func getProductDetails(db *DB, args domains.Args) (any, error) {
	s, found, err := idArgs("get_product_details", args, "product_id")
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errProductNotFound
	}
	if p, ok := db.products.get(s[0]); ok {
		return p, nil
	}
	return nil, errProductNotFound
}

func getItemDetails(db *DB, args domains.Args) (any, error) {
	s, err := stringArgs("get_item_details", args, "item_id")
	if err != nil {
		return nil, err
	}
	var found *Variant
	db.products.each(func(_ string, p *Product) bool {
		found = p.Variants[s[0]]
		return found == nil
	})
	if found == nil {
		return nil, errItemNotFound
	}
	return found, nil
}

// listAllProductTypes returns, as a string, json.dumps of a name → product
// id object with sorted keys, as tau2 does. A repeated name keeps the id of
// the last product with it.
func listAllProductTypes(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "list_all_product_types", args, nil); err != nil {
		return nil, err
	}
	types := map[string]any{}
	db.products.each(func(_ string, p *Product) bool {
		types[p.Name] = p.ProductID
		return true
	})
	b, err := pyjson.Marshal(types)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// --- write tools ---

func cancelPendingOrder(db *DB, args domains.Args) (any, error) {
	s, err := stringArgs("cancel_pending_order", args, "order_id", "reason")
	if err != nil {
		return nil, err
	}
	o, err := db.order(s[0])
	if err != nil {
		return nil, err
	}
	if o.Status != StatusPending {
		return nil, errors.New("Non-pending order cannot be cancelled")
	}
	reason := s[1]
	if !slices.Contains(cancelReasons, reason) {
		return nil, errors.New("Invalid reason")
	}
	// Every entry of the history is refunded, whatever its type. As in
	// tau2, gift cards are credited one by one, so a missing method fails
	// after the earlier credits have been made.
	refunds := make([]Payment, 0, len(o.PaymentHistory))
	for _, p := range o.PaymentHistory {
		refunds = append(refunds, Payment{TransactionType: TransactionRefund, Amount: p.Amount, PaymentMethodID: p.PaymentMethodID})
		pm, err := db.paymentMethod(o.UserID, p.PaymentMethodID)
		if err != nil {
			return nil, err
		}
		if pm.IsGiftCard() {
			db.addToGiftCard(o.UserID, p.PaymentMethodID, p.Amount)
		}
	}
	o = db.editOrder(s[0])
	o.Status = StatusCancelled
	o.CancelReason = &reason
	o.PaymentHistory = append(o.PaymentHistory, refunds...)
	return o, nil
}

func modifyPendingOrderAddress(db *DB, args domains.Args) (any, error) {
	s, err := stringArgs("modify_pending_order_address", args, "order_id", "address1", "address2", "city", "state", "country", "zip")
	if err != nil {
		return nil, err
	}
	o, err := db.order(s[0])
	if err != nil {
		return nil, err
	}
	if !isLooselyPending(o.Status) {
		return nil, errors.New("Non-pending order cannot be modified")
	}
	o = db.editOrder(s[0])
	o.Address = Address{Address1: s[1], Address2: s[2], City: s[3], State: s[4], Country: s[5], Zip: s[6]}
	return o, nil
}

func modifyUserAddress(db *DB, args domains.Args) (any, error) {
	s, err := stringArgs("modify_user_address", args, "user_id", "address1", "address2", "city", "state", "country", "zip")
	if err != nil {
		return nil, err
	}
	if _, err := db.user(s[0]); err != nil {
		return nil, err
	}
	u, _ := db.users.edit(s[0], (*User).clone)
	u.Address = Address{Address1: s[1], Address2: s[2], City: s[3], State: s[4], Country: s[5], Zip: s[6]}
	return u, nil
}

func modifyPendingOrderPayment(db *DB, args domains.Args) (any, error) {
	s, err := stringArgs("modify_pending_order_payment", args, "order_id", "payment_method_id")
	if err != nil {
		return nil, err
	}
	o, err := db.order(s[0])
	if err != nil {
		return nil, err
	}
	if !isLooselyPending(o.Status) {
		return nil, errors.New("Non-pending order cannot be modified")
	}
	pm, err := db.paymentMethod(o.UserID, s[1])
	if err != nil {
		return nil, err
	}
	if len(o.PaymentHistory) != 1 || o.PaymentHistory[0].TransactionType != TransactionPayment {
		return nil, errors.New("There should be exactly one payment for a pending order")
	}
	old := o.PaymentHistory[0]
	if old.PaymentMethodID == s[1] {
		return nil, errors.New("The new payment method should be different from the current one")
	}
	amount := old.Amount
	if pm.IsGiftCard() && pm.Balance < amount {
		return nil, errors.New("Insufficient gift card balance to pay for the order")
	}
	o = db.editOrder(s[0])
	o.PaymentHistory = append(o.PaymentHistory,
		Payment{TransactionType: TransactionPayment, Amount: amount, PaymentMethodID: s[1]},
		Payment{TransactionType: TransactionRefund, Amount: amount, PaymentMethodID: old.PaymentMethodID})
	if pm.IsGiftCard() {
		db.addToGiftCard(o.UserID, s[1], -amount)
	}
	// As in tau2, the old method is looked up only now: if it is gone the
	// call fails after the changes above.
	oldPM, err := db.paymentMethod(o.UserID, old.PaymentMethodID)
	if err != nil {
		return nil, err
	}
	if oldPM.IsGiftCard() {
		db.addToGiftCard(o.UserID, old.PaymentMethodID, amount)
	}
	return o, nil
}

// itemSwap is one (old, new) pair of an exchange or modification.
type itemSwap struct {
	oldID, newID string
	variant      *Variant
}

// checkSwaps runs the checks common to exchanges and modifications and
// returns the pairs with their new variants and the summed price
// difference (unrounded, in pair order, as tau2 sums it).
func (db *DB) checkSwaps(o *Order, oldIDs, newIDs []string, countFail func(string) error, lengthMsg string, distinct bool) ([]itemSwap, float64, error) {
	if err := countCheck(o, oldIDs, countFail); err != nil {
		return nil, 0, err
	}
	if len(oldIDs) != len(newIDs) {
		return nil, 0, errors.New(lengthMsg)
	}
	swaps := make([]itemSwap, len(oldIDs))
	diff := 0.0
	for k := range oldIDs {
		oldID, newID := oldIDs[k], newIDs[k]
		if distinct && oldID == newID {
			return nil, 0, errors.New("The new item id should be different from the old item id")
		}
		i := firstItem(o, oldID)
		if i < 0 {
			return nil, 0, fmt.Errorf("Item %s not found", oldID)
		}
		v, err := db.variant(o.Items[i].ProductID, newID)
		if err != nil {
			return nil, 0, err
		}
		if !v.Available {
			return nil, 0, fmt.Errorf("New item %s not found or available", newID)
		}
		diff += v.Price - o.Items[i].Price
		swaps[k] = itemSwap{oldID, newID, v}
	}
	return swaps, diff, nil
}

func swapArgs(tool string, args domains.Args) (orderID string, oldIDs, newIDs []string, pmID string, err error) {
	if err = pycompat.CheckKwargs(toolsClass, tool, args, []string{"order_id", "item_ids", "new_item_ids", "payment_method_id"}); err != nil {
		return
	}
	if orderID, err = stringArg(args, "order_id"); err != nil {
		return
	}
	if oldIDs, err = stringListArg(args, "item_ids"); err != nil {
		return
	}
	if newIDs, err = stringListArg(args, "new_item_ids"); err != nil {
		return
	}
	pmID, err = stringArg(args, "payment_method_id")
	return
}

func modifyPendingOrderItems(db *DB, args domains.Args) (any, error) {
	orderID, oldIDs, newIDs, pmID, err := swapArgs("modify_pending_order_items", args)
	if err != nil {
		return nil, err
	}
	o, err := db.order(orderID)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusPending {
		return nil, errors.New("Non-pending order cannot be modified")
	}
	swaps, diff, err := db.checkSwaps(o, oldIDs, newIDs,
		func(id string) error { return fmt.Errorf("%s not found", id) },
		"The number of items to be exchanged should match", true)
	if err != nil {
		return nil, err
	}
	pm, err := db.paymentMethod(o.UserID, pmID)
	if err != nil {
		return nil, err
	}
	if pm.IsGiftCard() && pm.Balance < diff {
		return nil, errors.New("Insufficient gift card balance to pay for the new item")
	}
	o = db.editOrder(orderID)
	kind := TransactionRefund
	if diff > 0 {
		kind = TransactionPayment
	}
	amount := math.Abs(diff) // a zero difference records a refund of 0.0
	o.PaymentHistory = append(o.PaymentHistory, Payment{TransactionType: kind, Amount: amount, PaymentMethodID: pmID})
	if pm.IsGiftCard() {
		db.addToGiftCard(o.UserID, pmID, -diff)
	}
	// tau2 quirk, kept for score parity: each old item gets its new item id,
	// but the price and options of the last pair's variant.
	if len(swaps) > 0 {
		last := swaps[len(swaps)-1].variant
		for _, sw := range swaps {
			i := firstItem(o, sw.oldID)
			o.Items[i].ItemID = sw.newID
			o.Items[i].Price = last.Price
			o.Items[i].Options = maps.Clone(last.Options)
			o.Items[i].optionKeys = last.optionKeys
		}
	}
	o.Status = StatusPendingItemModified
	return o, nil
}

func exchangeDeliveredOrderItems(db *DB, args domains.Args) (any, error) {
	orderID, oldIDs, newIDs, pmID, err := swapArgs("exchange_delivered_order_items", args)
	if err != nil {
		return nil, err
	}
	o, err := db.order(orderID)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusDelivered {
		return nil, errors.New("Non-delivered order cannot be exchanged")
	}
	_, diff, err := db.checkSwaps(o, oldIDs, newIDs,
		func(id string) error { return fmt.Errorf("Number of %s not found.", id) },
		"The number of items to be exchanged should match.", false)
	if err != nil {
		return nil, err
	}
	// round(0, 2) of tau2's integer start value stays the int 0.
	priceDiff := PyNumber{Value: calc.Round2(diff), IsInt: len(oldIDs) == 0}
	pm, err := db.paymentMethod(o.UserID, pmID)
	if err != nil {
		return nil, err
	}
	if pm.IsGiftCard() && pm.Balance < priceDiff.Value {
		return nil, errors.New("Insufficient gift card balance to pay for the price difference")
	}
	o = db.editOrder(orderID)
	o.Status = StatusExchangeRequested
	o.ExchangeItems = sortedStrings(oldIDs)
	o.ExchangeNewItems = sortedStrings(newIDs)
	o.ExchangePaymentMethodID = &pmID
	o.ExchangePriceDifference = &priceDiff
	return o, nil
}

func returnDeliveredOrderItems(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "return_delivered_order_items", args, []string{"order_id", "item_ids", "payment_method_id"}); err != nil {
		return nil, err
	}
	orderID, err := stringArg(args, "order_id")
	if err != nil {
		return nil, err
	}
	// tau2 iterates item_ids and counts its items: a string's characters
	// are items that no order has.
	itemIDs, err := iteratedListArg(args, "item_ids")
	if err != nil {
		return nil, err
	}
	pmID, err := stringArg(args, "payment_method_id")
	if err != nil {
		return nil, err
	}
	o, err := db.order(orderID)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusDelivered {
		return nil, errors.New("Non-delivered order cannot be returned")
	}
	pm, err := db.paymentMethod(o.UserID, pmID)
	if err != nil {
		return nil, err
	}
	if !pm.IsGiftCard() {
		if len(o.PaymentHistory) == 0 {
			return nil, errors.New("list index out of range")
		}
		if pmID != o.PaymentHistory[0].PaymentMethodID {
			return nil, errors.New("Payment method should be the original payment method")
		}
	}
	if err := countCheck(o, itemIDs, func(string) error { return errors.New("Some item not found") }); err != nil {
		return nil, err
	}
	o = db.editOrder(orderID)
	o.Status = StatusReturnRequested
	o.ReturnItems = sortedStrings(itemIDs)
	o.ReturnPaymentMethodID = &pmID
	return o, nil
}

// sortedStrings is Python's sorted() of a list of str: never nil, so an
// empty list is [] and not null.
func sortedStrings(s []string) []string {
	out := make([]string, len(s))
	copy(out, s)
	slices.Sort(out)
	return out
}
