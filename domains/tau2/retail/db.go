package retail

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/proctor-eval/proctor/domains/tau2/internal/dbhash"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// Order statuses. tau2 calls an order "pending" in two senses: strictly
// (StatusPending only; cancelling and modifying items) and loosely (any
// status containing "pending"; modifying the address or the payment).
const (
	StatusProcessed           = "processed"
	StatusPending             = "pending"
	StatusPendingItemModified = "pending (item modified)"
	StatusDelivered           = "delivered"
	StatusCancelled           = "cancelled"
	StatusExchangeRequested   = "exchange requested"
	StatusReturnRequested     = "return requested"
)

// Reasons accepted by cancel_pending_order.
const (
	ReasonNoLongerNeeded   = "no longer needed"
	ReasonOrderedByMistake = "ordered by mistake"
)

// Payment method sources.
const (
	SourceCreditCard = "credit_card"
	SourcePaypal     = "paypal"
	SourceGiftCard   = "gift_card"
)

// Transaction types of an order's payment history.
const (
	TransactionPayment = "payment"
	TransactionRefund  = "refund"
)

var (
	orderStatuses    = []string{StatusProcessed, StatusPending, StatusPendingItemModified, StatusDelivered, StatusCancelled, StatusExchangeRequested, StatusReturnRequested}
	cancelReasons    = []string{ReasonNoLongerNeeded, ReasonOrderedByMistake}
	paymentSources   = []string{SourceCreditCard, SourcePaypal, SourceGiftCard}
	transactionTypes = []string{TransactionPayment, TransactionRefund}
)

// Product is a product type and its variants, keyed by item id.
type Product struct {
	Name      string              `json:"name"`
	ProductID string              `json:"product_id"`
	Variants  map[string]*Variant `json:"variants"`

	variantKeys []string // the order of Variants in the database
}

// Variant is one purchasable item of a product.
type Variant struct {
	ItemID    string            `json:"item_id"`
	Options   map[string]string `json:"options"`
	Available bool              `json:"available"`
	Price     float64           `json:"price"`

	optionKeys []string // the order of Options in the database
}

// User is a customer account.
type User struct {
	UserID         string                   `json:"user_id"`
	Name           UserName                 `json:"name"`
	Address        Address                  `json:"address"`
	Email          string                   `json:"email"`
	PaymentMethods map[string]PaymentMethod `json:"payment_methods"`
	Orders         []string                 `json:"orders"`
}

// UserName is a customer's name.
type UserName struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// Address is a postal address, of a user or of an order. Address2 may be "".
type Address struct {
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	City     string `json:"city"`
	Country  string `json:"country"`
	State    string `json:"state"`
	Zip      string `json:"zip"`
}

// PaymentMethod is one of a user's payment methods. tau2 has three models,
// told apart by Source: a credit card (Brand, LastFour), a PayPal account
// (no further fields) and a gift card (Balance). Only the fields of its
// source are encoded and hashed.
type PaymentMethod struct {
	Source   string
	ID       string
	Brand    string
	LastFour string
	Balance  float64
}

// IsGiftCard reports whether the method is a gift card.
func (pm PaymentMethod) IsGiftCard() bool { return pm.Source == SourceGiftCard }

// Order is a customer order. The last seven fields are optional and null
// until a cancellation, exchange or return sets them; a nil slice or pointer
// is null, an empty slice is [].
type Order struct {
	OrderID        string        `json:"order_id"`
	UserID         string        `json:"user_id"`
	Address        Address       `json:"address"`
	Items          []OrderItem   `json:"items"`
	Status         string        `json:"status"`
	Fulfillments   []Fulfillment `json:"fulfillments"`
	PaymentHistory []Payment     `json:"payment_history"`

	CancelReason            *string   `json:"cancel_reason"`
	ExchangeItems           []string  `json:"exchange_items"`
	ExchangeNewItems        []string  `json:"exchange_new_items"`
	ExchangePaymentMethodID *string   `json:"exchange_payment_method_id"`
	ExchangePriceDifference *PyNumber `json:"exchange_price_difference"`
	ReturnItems             []string  `json:"return_items"`
	ReturnPaymentMethodID   *string   `json:"return_payment_method_id"`
}

// OrderItem is one item of an order.
type OrderItem struct {
	Name      string            `json:"name"`
	ProductID string            `json:"product_id"`
	ItemID    string            `json:"item_id"`
	Price     float64           `json:"price"`
	Options   map[string]string `json:"options"`

	optionKeys []string // the order of Options in the database
}

// Fulfillment is one shipment of an order.
type Fulfillment struct {
	TrackingID []string `json:"tracking_id"`
	ItemIDs    []string `json:"item_ids"`
}

// Payment is one transaction of an order's payment history.
type Payment struct {
	TransactionType string  `json:"transaction_type"`
	Amount          float64 `json:"amount"`
	PaymentMethodID string  `json:"payment_method_id"`
}

// PyNumber is a number as Python holds it: a float, or an int where tau2
// stores one without validating it. It matters for the hash, which writes
// 0 and 0.0 differently. The only such place is an exchange of no items,
// whose price difference is the int 0.
type PyNumber struct {
	Value float64
	IsInt bool
}

// MarshalJSON implements json.Marshaler.
func (n PyNumber) MarshalJSON() ([]byte, error) {
	if n.IsInt {
		return strconv.AppendInt(nil, int64(n.Value), 10), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON implements json.Unmarshaler: the field is a float in tau2's
// model, so a value read from a file is a float whatever its spelling.
func (n *PyNumber) UnmarshalJSON(data []byte) error {
	*n = PyNumber{}
	return json.Unmarshal(data, &n.Value)
}

func (n PyNumber) dump() any {
	if n.IsInt {
		return int64(n.Value)
	}
	return n.Value
}

// DB is the retail database: products, users and orders, each keyed by id.
//
// A DB made by [DB.Clone] shares the records of the DB it was cloned from and
// copies a record (and takes its own map entry for it) only when a tool
// changes it, so a simulation costs a few records, not a copy of the whole
// database. Use the accessors to read records; they return copies.
type DB struct {
	products table[Product]
	users    table[User]
	orders   table[Order]
	// incremental hashes the decoded database's clones; shared with them,
	// nil for a DB built otherwise.
	incremental *incremental
}

// incremental is the encoding of a decoded database's base records, made
// on the first hash of a clone and shared read-only by all clones (see
// dbhash): a clone's hash encodes only its private records.
type incremental struct {
	// cloned is set once the database has been cloned: only then is
	// encoding it worth its cost (a database merged with a task's
	// initialization data is used once).
	cloned atomic.Bool

	once sync.Once
	tmpl *dbhash.Template
	err  error
}

// template encodes db's base records, once for db and its clones.
func (db *DB) template() (*dbhash.Template, error) {
	inc := db.incremental
	inc.once.Do(func() {
		inc.tmpl, inc.err = dbhash.New(map[string]map[string]any{
			"products": db.products.baseDumps((*Product).dump),
			"users":    db.users.baseDumps((*User).dump),
			"orders":   db.orders.baseDumps((*Order).dump),
		})
	})
	return inc.tmpl, inc.err
}

// Clone implements domains.Cloner: the clone shares every record with db
// and copies one only when a tool changes it.
func (db *DB) Clone() *DB {
	if db.incremental != nil && !db.incremental.cloned.Load() {
		db.incremental.cloned.Store(true)
	}
	return &DB{
		products: db.products.clone((*Product).clone),
		users:    db.users.clone((*User).clone),
		orders:   db.orders.clone((*Order).clone),

		incremental: db.incremental,
	}
}

// Hash implements domains.Hasher: the SHA-256 of Python's
// json.dumps(db.model_dump(), sort_keys=True, default=str), tau2's DB hash.
// A decoded database's clones are hashed incrementally (see dbhash): only
// the records a clone changed are encoded, and a database seen before is
// not hashed again.
func (db *DB) Hash() (string, error) {
	if db.incremental == nil || !db.incremental.cloned.Load() {
		return db.FullHash()
	}
	tmpl, err := db.template()
	if err != nil {
		return "", err
	}
	var changes []dbhash.Change
	changes = db.products.changes(changes, "products", (*Product).dump)
	changes = db.users.changes(changes, "users", (*User).dump)
	changes = db.orders.changes(changes, "orders", (*Order).dump)
	return tmpl.Hash(changes)
}

// FullHash is Hash computed the plain way, over the whole model dump.
func (db *DB) FullHash() (string, error) {
	return pyjson.Hash(db.dump(true))
}

// Dump returns the database as pydantic's model_dump() gives it: every
// field present, unset optional fields nil, floats as float64, the int 0
// of an empty exchange as int64. The tree is the caller's: it shares
// nothing with the DB.
func (db *DB) Dump() any {
	return db.dump(false)
}

func (db *DB) dump(memo bool) map[string]any {
	return map[string]any{
		"products": db.products.dump((*Product).dump, memo),
		"users":    db.users.dump((*User).dump, memo),
		"orders":   db.orders.dump((*Order).dump, memo),
	}
}

// MarshalJSON encodes the database like its file, with every field present.
func (db *DB) MarshalJSON() ([]byte, error) {
	return json.Marshal(db.Dump())
}

// Product returns a copy of a product.
func (db *DB) Product(id string) (Product, bool) {
	if p, ok := db.products.get(id); ok {
		return *p.clone(), true
	}
	return Product{}, false
}

// User returns a copy of a user.
func (db *DB) User(id string) (User, bool) {
	if u, ok := db.users.get(id); ok {
		return *u.clone(), true
	}
	return User{}, false
}

// Order returns a copy of an order.
func (db *DB) Order(id string) (Order, bool) {
	if o, ok := db.orders.get(id); ok {
		return *o.clone(), true
	}
	return Order{}, false
}

// Counts returns the number of products, users and orders.
func (db *DB) Counts() (products, users, orders int) {
	return len(db.products.keys), len(db.users.keys), len(db.orders.keys)
}

// --- copies ---

func (p *Product) clone() *Product {
	c := *p
	c.Variants = make(map[string]*Variant, len(p.Variants))
	for id, v := range p.Variants {
		vc := *v
		vc.Options = maps.Clone(v.Options)
		c.Variants[id] = &vc
	}
	return &c
}

func (u *User) clone() *User {
	c := *u
	c.PaymentMethods = maps.Clone(u.PaymentMethods)
	c.Orders = slices.Clone(u.Orders)
	return &c
}

func (o *Order) clone() *Order {
	c := *o
	c.Items = slices.Clone(o.Items)
	for i := range c.Items {
		c.Items[i].Options = maps.Clone(c.Items[i].Options)
	}
	c.Fulfillments = slices.Clone(o.Fulfillments)
	for i := range c.Fulfillments {
		c.Fulfillments[i].TrackingID = slices.Clone(c.Fulfillments[i].TrackingID)
		c.Fulfillments[i].ItemIDs = slices.Clone(c.Fulfillments[i].ItemIDs)
	}
	c.PaymentHistory = slices.Clone(o.PaymentHistory)
	c.CancelReason = clonePtr(o.CancelReason)
	c.ExchangeItems = slices.Clone(o.ExchangeItems)
	c.ExchangeNewItems = slices.Clone(o.ExchangeNewItems)
	c.ExchangePaymentMethodID = clonePtr(o.ExchangePaymentMethodID)
	c.ExchangePriceDifference = clonePtr(o.ExchangePriceDifference)
	c.ReturnItems = slices.Clone(o.ReturnItems)
	c.ReturnPaymentMethodID = clonePtr(o.ReturnPaymentMethodID)
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// --- dumps (pydantic model_dump) ---
