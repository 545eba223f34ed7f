package retail

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
)

// UnmarshalJSON implements json.Unmarshaler. Like tau2's pydantic models it
// rejects unknown and missing fields, nulls in required fields and values
// outside the enumerations. It keeps the file's key order of each table (a
// repeated key keeps its first position and its last value, as Python's
// json.load does).
func (db *DB) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := expectDelim(dec, '{', "database"); err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("database: %w", err)
		}
		key, _ := tok.(string)
		switch key {
		case "products":
			db.products, err = decodeTable(dec, key, convertProduct)
		case "users":
			db.users, err = decodeTable(dec, key, convertUser)
		case "orders":
			db.orders, err = decodeTable(dec, key, convertOrder)
		default:
			return fmt.Errorf("database: unknown field %q", key)
		}
		if err != nil {
			return err
		}
		seen[key] = true
	}
	for _, k := range []string{"products", "users", "orders"} {
		if !seen[k] {
			return fmt.Errorf("database: missing field %q", k)
		}
	}
	db.incremental = new(incremental)
	return expectDelim(dec, '}', "database")
}

func expectDelim(dec *json.Decoder, d json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if tok != d {
		return fmt.Errorf("%s: must be an object", what)
	}
	return nil
}

// decodeTable reads one table, an object of records, from dec.
func decodeTable[T, R any](dec *json.Decoder, what string, convert func(*R, *checker) *T) (table[T], error) {
	t := table[T]{base: map[string]*T{}, memo: new(dumpMemo)}
	if err := expectDelim(dec, '{', what); err != nil {
		return t, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return t, fmt.Errorf("%s: %w", what, err)
		}
		key := tok.(string)
		var raw R
		if err := dec.Decode(&raw); err != nil {
			return t, fmt.Errorf("%s[%q]: %w", what, key, err)
		}
		c := newChecker()
		rec := convert(&raw, c)
		if c.Err() != nil {
			return t, fmt.Errorf("%s[%q]: %w", what, key, c.Err())
		}
		if _, dup := t.base[key]; !dup {
			t.keys = append(t.keys, key)
		}
		t.base[key] = rec
	}
	return t, expectDelim(dec, '}', what)
}

// checker keeps the first problem found while converting a decoded record;
// a missing field reads "field <name> is missing or null".
type checker struct{ pycompat.Fields }

func newChecker() *checker {
	return &checker{pycompat.Fields{Missing: func(field string) error {
		return fmt.Errorf("field %q is missing or null", field)
	}}}
}

func (c *checker) strMap(field string, m map[string]string) map[string]string {
	c.Present(field, m != nil)
	return m
}

func (c *checker) enum(field, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		c.Failf("%s %q is not one of %q", field, v, allowed)
	}
}

// The raw* types are what the file holds; pointers and nil maps reveal
// missing and null fields.

type rawProduct struct {
	Name      *string            `json:"name"`
	ProductID *string            `json:"product_id"`
	Variants  keyed[*rawVariant] `json:"variants"`
}

type rawVariant struct {
	ItemID    *string       `json:"item_id"`
	Options   keyed[string] `json:"options"`
	Available *bool         `json:"available"`
	Price     *float64      `json:"price"`
}

func convertProduct(r *rawProduct, c *checker) *Product {
	p := &Product{Name: c.Str("name", r.Name), ProductID: c.Str("product_id", r.ProductID), Variants: make(map[string]*Variant, len(r.Variants.m)), variantKeys: r.Variants.keys}
	if r.Variants.m == nil {
		c.Present("variants", false)
	}
	for id, rv := range r.Variants.m {
		if rv == nil {
			c.Failf("variant %s is null", id)
			continue
		}
		v := &Variant{ItemID: c.Str("item_id", rv.ItemID), Options: c.strMap("options", rv.Options.m), optionKeys: rv.Options.keys, Price: c.Float("price", rv.Price)}
		if rv.Available == nil {
			c.Failf(`variant %s: field "available" is missing or null`, id)
		} else {
			v.Available = *rv.Available
		}
		p.Variants[id] = v
	}
	return p
}

type rawUser struct {
	UserID         *string                      `json:"user_id"`
	Name           *rawName                     `json:"name"`
	Address        *rawAddress                  `json:"address"`
	Email          *string                      `json:"email"`
	PaymentMethods map[string]*rawPaymentMethod `json:"payment_methods"`
	Orders         *[]string                    `json:"orders"`
}

type rawName struct {
	FirstName *string `json:"first_name"`
	LastName  *string `json:"last_name"`
}

type rawAddress struct {
	Address1 *string `json:"address1"`
	Address2 *string `json:"address2"`
	City     *string `json:"city"`
	Country  *string `json:"country"`
	State    *string `json:"state"`
	Zip      *string `json:"zip"`
}

type rawPaymentMethod struct {
	Source   *string  `json:"source"`
	ID       *string  `json:"id"`
	Brand    *string  `json:"brand"`
	LastFour *string  `json:"last_four"`
	Balance  *float64 `json:"balance"`
}

func (c *checker) address(r *rawAddress) Address {
	if r == nil {
		c.Present("address", false)
		return Address{}
	}
	return Address{
		Address1: c.Str("address1", r.Address1), Address2: c.Str("address2", r.Address2), City: c.Str("city", r.City),
		Country: c.Str("country", r.Country), State: c.Str("state", r.State), Zip: c.Str("zip", r.Zip),
	}
}

func convertUser(r *rawUser, c *checker) *User {
	u := &User{UserID: c.Str("user_id", r.UserID), Address: c.address(r.Address), Email: c.Str("email", r.Email), Orders: c.Strings("orders", r.Orders)}
	if r.Name == nil {
		c.Present("name", false)
	} else {
		u.Name = UserName{FirstName: c.Str("first_name", r.Name.FirstName), LastName: c.Str("last_name", r.Name.LastName)}
	}
	if r.PaymentMethods == nil {
		c.Present("payment_methods", false)
	}
	u.PaymentMethods = make(map[string]PaymentMethod, len(r.PaymentMethods))
	for id, rp := range r.PaymentMethods {
		if rp == nil {
			c.Failf("payment method %s is null", id)
			continue
		}
		pm := PaymentMethod{Source: c.Str("source", rp.Source), ID: c.Str("id", rp.ID)}
		c.enum("source", pm.Source, paymentSources)
		// A field of another source's model is an extra field.
		hasCard, hasBalance := rp.Brand != nil || rp.LastFour != nil, rp.Balance != nil
		switch pm.Source {
		case SourceCreditCard:
			pm.Brand, pm.LastFour = c.Str("brand", rp.Brand), c.Str("last_four", rp.LastFour)
			hasCard = false
		case SourceGiftCard:
			pm.Balance = c.Float("balance", rp.Balance)
			hasBalance = false
		}
		if hasCard || hasBalance {
			c.Failf("payment method %s: field of another source for a %s", id, pm.Source)
		}
		u.PaymentMethods[id] = pm
	}
	return u
}

type rawOrder struct {
	OrderID        *string           `json:"order_id"`
	UserID         *string           `json:"user_id"`
	Address        *rawAddress       `json:"address"`
	Items          *[]rawOrderItem   `json:"items"`
	Status         *string           `json:"status"`
	Fulfillments   *[]rawFulfillment `json:"fulfillments"`
	PaymentHistory *[]rawPayment     `json:"payment_history"`

	CancelReason            *string   `json:"cancel_reason"`
	ExchangeItems           *[]string `json:"exchange_items"`
	ExchangeNewItems        *[]string `json:"exchange_new_items"`
	ExchangePaymentMethodID *string   `json:"exchange_payment_method_id"`
	ExchangePriceDifference *float64  `json:"exchange_price_difference"`
	ReturnItems             *[]string `json:"return_items"`
	ReturnPaymentMethodID   *string   `json:"return_payment_method_id"`
}

type rawOrderItem struct {
	Name      *string       `json:"name"`
	ProductID *string       `json:"product_id"`
	ItemID    *string       `json:"item_id"`
	Price     *float64      `json:"price"`
	Options   keyed[string] `json:"options"`
}

type rawFulfillment struct {
	TrackingID *[]string `json:"tracking_id"`
	ItemIDs    *[]string `json:"item_ids"`
}

type rawPayment struct {
	TransactionType *string  `json:"transaction_type"`
	Amount          *float64 `json:"amount"`
	PaymentMethodID *string  `json:"payment_method_id"`
}

// optList keeps null (nil) apart from [] (empty, not nil).
func optList(p *[]string) []string {
	if p == nil {
		return nil
	}
	if *p == nil {
		return []string{}
	}
	return *p
}

func convertOrder(r *rawOrder, c *checker) *Order {
	o := &Order{
		OrderID: c.Str("order_id", r.OrderID), UserID: c.Str("user_id", r.UserID), Address: c.address(r.Address),
		Status:       c.Str("status", r.Status),
		CancelReason: r.CancelReason, ExchangeItems: optList(r.ExchangeItems), ExchangeNewItems: optList(r.ExchangeNewItems),
		ExchangePaymentMethodID: r.ExchangePaymentMethodID,
		ReturnItems:             optList(r.ReturnItems), ReturnPaymentMethodID: r.ReturnPaymentMethodID,
		Items: []OrderItem{}, Fulfillments: []Fulfillment{}, PaymentHistory: []Payment{},
	}
	c.enum("status", o.Status, orderStatuses)
	if r.CancelReason != nil {
		c.enum("cancel_reason", *r.CancelReason, cancelReasons)
	}
	if r.ExchangePriceDifference != nil {
		o.ExchangePriceDifference = &PyNumber{Value: *r.ExchangePriceDifference}
	}
	if r.Items == nil || r.Fulfillments == nil || r.PaymentHistory == nil {
		c.Failf("fields items, fulfillments and payment_history must be present and not null")
		return o
	}
	for _, ri := range *r.Items {
		o.Items = append(o.Items, OrderItem{
			Name: c.Str("name", ri.Name), ProductID: c.Str("product_id", ri.ProductID), ItemID: c.Str("item_id", ri.ItemID),
			Price: c.Float("price", ri.Price), Options: c.strMap("options", ri.Options.m), optionKeys: ri.Options.keys,
		})
	}
	for _, rf := range *r.Fulfillments {
		o.Fulfillments = append(o.Fulfillments, Fulfillment{TrackingID: c.Strings("tracking_id", rf.TrackingID), ItemIDs: c.Strings("item_ids", rf.ItemIDs)})
	}
	for _, rp := range *r.PaymentHistory {
		p := Payment{TransactionType: c.Str("transaction_type", rp.TransactionType), Amount: c.Float("amount", rp.Amount), PaymentMethodID: c.Str("payment_method_id", rp.PaymentMethodID)}
		c.enum("transaction_type", p.TransactionType, transactionTypes)
		o.PaymentHistory = append(o.PaymentHistory, p)
	}
	return o
}
