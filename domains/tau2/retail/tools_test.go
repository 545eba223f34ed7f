package retail

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/calc"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// miniDB is a small store in tau2's format. File order matters: zed_9
// comes before ann_1 and shares her email up to case; the last product is
// a second "Keyboard".
const miniDB = `{
"products": {
  "P-TS": {"name": "T-Shirt", "product_id": "P-TS", "variants": {
    "T1": {"item_id": "T1", "options": {"size": "S"}, "available": true, "price": 20.5},
    "T2": {"item_id": "T2", "options": {"size": "M"}, "available": true, "price": 25.75},
    "T3": {"item_id": "T3", "options": {"size": "L"}, "available": true, "price": 25.75}}},
  "P-KB": {"name": "Keyboard", "product_id": "P-KB", "variants": {
    "K1": {"item_id": "K1", "options": {"switch": "clicky"}, "available": true, "price": 100.0},
    "K2": {"item_id": "K2", "options": {"switch": "linear"}, "available": true, "price": 129.3},
    "K3": {"item_id": "K3", "options": {"switch": "tactile"}, "available": false, "price": 90.15},
    "K4": {"item_id": "K4", "options": {"switch": "optical"}, "available": true, "price": 200.0},
    "K5": {"item_id": "K5", "options": {"switch": "silent"}, "available": true, "price": 80.25}}},
  "P-DUP": {"name": "Keyboard", "product_id": "P-DUP", "variants": {
    "D1": {"item_id": "D1", "options": {}, "available": true, "price": 1}}}
},
"users": {
  "zed_9": {"user_id": "zed_9", "name": {"first_name": "Zed", "last_name": "Ray"},
    "address": {"address1": "9 Elm St", "address2": "", "city": "Austin", "country": "USA", "state": "TX", "zip": "78701"},
    "email": "ANN@example.com", "payment_methods": {"paypal_9": {"source": "paypal", "id": "paypal_9"}}, "orders": []},
  "ann_1": {"user_id": "ann_1", "name": {"first_name": "Ann", "last_name": "Lee"},
    "address": {"address1": "1 Main St", "address2": "Apt 2", "city": "New York", "country": "USA", "state": "NY", "zip": "10001"},
    "email": "ann@example.com",
    "payment_methods": {
      "credit_card_1": {"source": "credit_card", "id": "credit_card_1", "brand": "visa", "last_four": "1111"},
      "paypal_1": {"source": "paypal", "id": "paypal_1"},
      "gift_card_1": {"source": "gift_card", "id": "gift_card_1", "balance": 50}},
    "orders": ["#W1", "#W2", "#W3", "#W4", "#W5"]}
},
"orders": {
  "#W1": {"order_id": "#W1", "user_id": "ann_1", "address": {"address1": "1 Main St", "address2": "Apt 2", "city": "New York", "country": "USA", "state": "NY", "zip": "10001"},
    "items": [
      {"name": "Keyboard", "product_id": "P-KB", "item_id": "K1", "price": 100.0, "options": {"switch": "clicky"}},
      {"name": "T-Shirt", "product_id": "P-TS", "item_id": "T1", "price": 20.5, "options": {"size": "S"}},
      {"name": "T-Shirt", "product_id": "P-TS", "item_id": "T1", "price": 20.5, "options": {"size": "S"}}],
    "status": "pending", "fulfillments": [],
    "payment_history": [{"transaction_type": "payment", "amount": 141.0, "payment_method_id": "credit_card_1"}]},
  "#W2": {"order_id": "#W2", "user_id": "ann_1", "address": {"address1": "1 Main St", "address2": "Apt 2", "city": "New York", "country": "USA", "state": "NY", "zip": "10001"},
    "items": [
      {"name": "Keyboard", "product_id": "P-KB", "item_id": "K1", "price": 100.0, "options": {"switch": "clicky"}},
      {"name": "T-Shirt", "product_id": "P-TS", "item_id": "T2", "price": 25.75, "options": {"size": "M"}}],
    "status": "delivered", "fulfillments": [{"tracking_id": ["111"], "item_ids": ["K1", "T2"]}],
    "payment_history": [{"transaction_type": "payment", "amount": 125.75, "payment_method_id": "paypal_1"}]},
  "#W3": {"order_id": "#W3", "user_id": "ann_1", "address": {"address1": "1 Main St", "address2": "Apt 2", "city": "New York", "country": "USA", "state": "NY", "zip": "10001"},
    "items": [{"name": "T-Shirt", "product_id": "P-TS", "item_id": "T2", "price": 25.75, "options": {"size": "M"}}],
    "status": "pending (item modified)", "fulfillments": [],
    "payment_history": [{"transaction_type": "payment", "amount": 20.5, "payment_method_id": "gift_card_1"}]},
  "#W4": {"order_id": "#W4", "user_id": "ann_1", "address": {"address1": "1 Main St", "address2": "Apt 2", "city": "New York", "country": "USA", "state": "NY", "zip": "10001"},
    "items": [{"name": "T-Shirt", "product_id": "P-TS", "item_id": "T2", "price": 25.75, "options": {"size": "M"}}],
    "status": "pending", "fulfillments": [],
    "payment_history": [{"transaction_type": "payment", "amount": 25.75, "payment_method_id": "gift_card_1"}]},
  "#W5": {"order_id": "#W5", "user_id": "ann_1", "address": {"address1": "1 Main St", "address2": "Apt 2", "city": "New York", "country": "USA", "state": "NY", "zip": "10001"},
    "items": [{"name": "T-Shirt", "product_id": "P-TS", "item_id": "T1", "price": 20.5, "options": {"size": "S"}}],
    "status": "processed", "fulfillments": [{"tracking_id": ["555"], "item_ids": ["T1"]}],
    "payment_history": [{"transaction_type": "payment", "amount": 20.5, "payment_method_id": "credit_card_1"}]}
}}`

func miniDomain(t *testing.T) *domains.Domain {
	t.Helper()
	d, err := domains.NewDomain(domains.Spec[DB]{Name: "retail-mini", DB: []byte(miniDB), Tools: Tools()})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func newEnv(t *testing.T) domains.Env {
	t.Helper()
	env, err := miniDomain(t).NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

type obj = map[string]any

// ok calls a tool that must succeed and returns its output parsed as JSON
// (or as a string when it is not JSON).
func ok(t *testing.T, env domains.Env, name string, args obj) any {
	t.Helper()
	res := env.Call(domains.ToolCall{Name: name, Arguments: args})
	if res.Error {
		t.Fatalf("%s(%v) failed: %s", name, args, res.Content)
	}
	var v any
	if json.Unmarshal([]byte(res.Content), &v) != nil {
		return res.Content
	}
	return v
}

// fails calls a tool that must fail with exactly "Error: "+want and leave
// the database unchanged.
func fails(t *testing.T, env domains.Env, name string, args obj, want string) {
	t.Helper()
	before, _ := env.Hash()
	res := env.Call(domains.ToolCall{Name: name, Arguments: args})
	if !res.Error || res.Content != "Error: "+want {
		t.Errorf("%s(%v) = %+v, want error %q", name, args, res, want)
	}
	if after, _ := env.Hash(); after != before {
		t.Errorf("%s(%v) failed but changed the database", name, args)
	}
}

func order(t *testing.T, env domains.Env, id string) obj {
	t.Helper()
	return ok(t, env, "get_order_details", obj{"order_id": id}).(obj)
}

func giftBalance(t *testing.T, env domains.Env) float64 {
	t.Helper()
	u := ok(t, env, "get_user_details", obj{"user_id": "ann_1"}).(obj)
	return u["payment_methods"].(obj)["gift_card_1"].(obj)["balance"].(float64)
}

func payments(o obj) []any { return o["payment_history"].([]any) }

func payment(kind string, amount float64, method string) obj {
	return obj{"transaction_type": kind, "amount": amount, "payment_method_id": method}
}

func TestLookups(t *testing.T) {
	env := newEnv(t)
	// First user in file order, email compared case-insensitively.
	if got := ok(t, env, "find_user_id_by_email", obj{"email": "Ann@Example.COM"}); got != "zed_9" {
		t.Errorf("find_user_id_by_email = %v, want zed_9 (first in file order)", got)
	}
	fails(t, env, "find_user_id_by_email", obj{"email": "nobody@example.com"}, "User not found")
	if got := ok(t, env, "find_user_id_by_name_zip", obj{"first_name": "ANN", "last_name": "lee", "zip": "10001"}); got != "ann_1" {
		t.Errorf("find_user_id_by_name_zip = %v", got)
	}
	fails(t, env, "find_user_id_by_name_zip", obj{"first_name": "Ann", "last_name": "Lee", "zip": "10002"}, "User not found")
	fails(t, env, "get_user_details", obj{"user_id": "ANN_1"}, "User not found")
	fails(t, env, "get_order_details", obj{"order_id": "W1"}, "Order not found")
	fails(t, env, "get_product_details", obj{"product_id": "K1"}, "Product not found")
	fails(t, env, "get_item_details", obj{"item_id": "P-KB"}, "Item not found")
	item := ok(t, env, "get_item_details", obj{"item_id": "K3"})
	if want := (obj{"item_id": "K3", "options": obj{"switch": "tactile"}, "available": false, "price": 90.15}); !cmp.Equal(item, want) {
		t.Errorf("get_item_details = %v", item)
	}
	// A string holding JSON with Python's separators and sorted keys; a
	// repeated name keeps the last product's id.
	if res := env.Call(domains.ToolCall{Name: "list_all_product_types", Arguments: obj{}}); res.Error || res.Content != `{"Keyboard": "P-DUP", "T-Shirt": "P-TS"}` {
		t.Errorf("list_all_product_types = %+v", res)
	}
	// Records come out with every field, unset optional ones null, and a
	// payment method with its own source's fields only.
	res := env.Call(domains.ToolCall{Name: "get_order_details", Arguments: obj{"order_id": "#W1"}})
	for _, s := range []string{`"cancel_reason": null`, `"exchange_price_difference": null`, `"return_items": null`, `"fulfillments": []`} {
		if !strings.Contains(res.Content, s) {
			t.Errorf("order output lacks %s: %s", s, res.Content)
		}
	}
	u := ok(t, env, "get_user_details", obj{"user_id": "ann_1"}).(obj)
	pms := u["payment_methods"].(obj)
	if !cmp.Equal(pms["paypal_1"], obj{"source": "paypal", "id": "paypal_1"}) ||
		!cmp.Equal(pms["credit_card_1"], obj{"source": "credit_card", "id": "credit_card_1", "brand": "visa", "last_four": "1111"}) ||
		!cmp.Equal(pms["gift_card_1"], obj{"source": "gift_card", "id": "gift_card_1", "balance": 50.0}) {
		t.Errorf("payment methods: %v", pms)
	}
}

func TestCancelPendingOrder(t *testing.T) {
	env := newEnv(t)
	fails(t, env, "cancel_pending_order", obj{"order_id": "#W3", "reason": "no longer needed"}, "Non-pending order cannot be cancelled")
	fails(t, env, "cancel_pending_order", obj{"order_id": "#W2", "reason": "because"}, "Non-pending order cannot be cancelled")
	fails(t, env, "cancel_pending_order", obj{"order_id": "#W1", "reason": "because"}, "Invalid reason")
	fails(t, env, "cancel_pending_order", obj{"order_id": "#W0", "reason": "no longer needed"}, "Order not found")

	// The gift card is credited at once, and rounded to cents.
	o := ok(t, env, "cancel_pending_order", obj{"order_id": "#W4", "reason": "ordered by mistake"}).(obj)
	if o["status"] != StatusCancelled || o["cancel_reason"] != "ordered by mistake" {
		t.Errorf("cancelled order: %v", o)
	}
	if want := []any{payment("payment", 25.75, "gift_card_1"), payment("refund", 25.75, "gift_card_1")}; !cmp.Equal(payments(o), want) {
		t.Errorf("payment history %v", payments(o))
	}
	if b := giftBalance(t, env); b != 75.75 {
		t.Errorf("gift card balance %v, want 75.75", b)
	}
	fails(t, env, "cancel_pending_order", obj{"order_id": "#W4", "reason": "no longer needed"}, "Non-pending order cannot be cancelled")

	// Every entry is refunded, whatever its type: after a payment change
	// the history holds payment, payment, refund and gets three refunds.
	ok(t, env, "modify_pending_order_payment", obj{"order_id": "#W1", "payment_method_id": "paypal_1"})
	o = ok(t, env, "cancel_pending_order", obj{"order_id": "#W1", "reason": "no longer needed"}).(obj)
	want := []any{
		payment("payment", 141.0, "credit_card_1"), payment("payment", 141.0, "paypal_1"), payment("refund", 141.0, "credit_card_1"),
		payment("refund", 141.0, "credit_card_1"), payment("refund", 141.0, "paypal_1"), payment("refund", 141.0, "credit_card_1"),
	}
	if !cmp.Equal(payments(o), want) {
		t.Errorf("payment history %v", payments(o))
	}
}

func TestModifyAddresses(t *testing.T) {
	env := newEnv(t)
	addr := obj{"address1": "5 Oak Rd", "address2": "", "city": "Boston", "state": "MA", "country": "USA", "zip": "02101"}
	with := func(k string, v any) obj {
		a := obj{k: v}
		for key, val := range addr {
			a[key] = val
		}
		return a
	}
	want := obj{"address1": "5 Oak Rd", "address2": "", "city": "Boston", "country": "USA", "state": "MA", "zip": "02101"}
	// Loosely pending: "pending (item modified)" qualifies.
	o := ok(t, env, "modify_pending_order_address", with("order_id", "#W3")).(obj)
	if !cmp.Equal(o["address"], want) || o["status"] != StatusPendingItemModified {
		t.Errorf("order after address change: %v", o)
	}
	fails(t, env, "modify_pending_order_address", with("order_id", "#W2"), "Non-pending order cannot be modified")
	fails(t, env, "modify_pending_order_address", with("order_id", "#W5"), "Non-pending order cannot be modified")
	u := ok(t, env, "modify_user_address", with("user_id", "ann_1")).(obj)
	if !cmp.Equal(u["address"], want) {
		t.Errorf("user address %v", u["address"])
	}
	fails(t, env, "modify_user_address", with("user_id", "nobody"), "User not found")
	// The order keeps its own address.
	if a := order(t, env, "#W1")["address"].(obj); a["city"] != "New York" {
		t.Errorf("#W1 address changed: %v", a)
	}
}

func TestModifyPendingOrderPayment(t *testing.T) {
	env := newEnv(t)
	fails(t, env, "modify_pending_order_payment", obj{"order_id": "#W2", "payment_method_id": "credit_card_1"}, "Non-pending order cannot be modified")
	fails(t, env, "modify_pending_order_payment", obj{"order_id": "#W1", "payment_method_id": "paypal_9"}, "Payment method not found")
	fails(t, env, "modify_pending_order_payment", obj{"order_id": "#W1", "payment_method_id": "credit_card_1"}, "The new payment method should be different from the current one")
	fails(t, env, "modify_pending_order_payment", obj{"order_id": "#W1", "payment_method_id": "gift_card_1"}, "Insufficient gift card balance to pay for the order")

	// Gift card to credit card: the gift card gets its money back.
	o := ok(t, env, "modify_pending_order_payment", obj{"order_id": "#W4", "payment_method_id": "credit_card_1"}).(obj)
	want := []any{payment("payment", 25.75, "gift_card_1"), payment("payment", 25.75, "credit_card_1"), payment("refund", 25.75, "gift_card_1")}
	if !cmp.Equal(payments(o), want) || o["status"] != StatusPending {
		t.Errorf("after payment change: %v", o)
	}
	if b := giftBalance(t, env); b != 75.75 {
		t.Errorf("gift card balance %v, want 75.75", b)
	}
	fails(t, env, "modify_pending_order_payment", obj{"order_id": "#W4", "payment_method_id": "paypal_1"}, "There should be exactly one payment for a pending order")

	// Loosely pending, and a gift card that covers the amount is charged.
	ok(t, env, "modify_pending_order_payment", obj{"order_id": "#W3", "payment_method_id": "paypal_1"})
	if b := giftBalance(t, env); b != 96.25 {
		t.Errorf("gift card balance %v, want 96.25", b)
	}
	env2 := newEnv(t)
	ok(t, env2, "modify_pending_order_payment", obj{"order_id": "#W4", "payment_method_id": "paypal_1"})
	ok(t, env2, "cancel_pending_order", obj{"order_id": "#W4", "reason": "no longer needed"})
	// 50 + 25.75 (payment moved off the card) + 25.75 (first entry refunded
	// again by the cancellation) + 0 (paypal) + 25.75 (refund entry refunded)
	if b := giftBalance(t, env2); b != 127.25 {
		t.Errorf("gift card balance %v, want 127.25", b)
	}
}

func TestModifyPendingOrderItems(t *testing.T) {
	swap := func(order string, old, new []string, pm string) obj {
		return obj{"order_id": order, "item_ids": old, "new_item_ids": new, "payment_method_id": pm}
	}
	env := newEnv(t)
	l := func(ids ...string) []string { return ids }
	fails(t, env, "modify_pending_order_items", swap("#W3", l("T2"), l("T3"), "paypal_1"), "Non-pending order cannot be modified")
	fails(t, env, "modify_pending_order_items", swap("#W2", l("T2"), l("T3"), "paypal_1"), "Non-pending order cannot be modified")
	fails(t, env, "modify_pending_order_items", swap("#W1", l("T1", "T1", "T1"), l("T2", "T2", "T2"), "paypal_1"), "T1 not found")
	fails(t, env, "modify_pending_order_items", swap("#W1", l("T1", "T1"), l("T2"), "paypal_1"), "The number of items to be exchanged should match")
	fails(t, env, "modify_pending_order_items", swap("#W1", l("K1"), l("K1"), "paypal_1"), "The new item id should be different from the old item id")
	fails(t, env, "modify_pending_order_items", swap("#W1", l("K1"), l("T2"), "paypal_1"), "Variant not found")
	fails(t, env, "modify_pending_order_items", swap("#W1", l("K1"), l("K3"), "paypal_1"), "New item K3 not found or available")
	fails(t, env, "modify_pending_order_items", swap("#W1", l("K1"), l("K4"), "paypal_9"), "Payment method not found")
	fails(t, env, "modify_pending_order_items", swap("#W1", l("K1"), l("K4"), "gift_card_1"), "Insufficient gift card balance to pay for the new item")

	// Two pairs: the amount is the unrounded float sum, and (tau2 quirk)
	// both modified items carry the last pair's price and options.
	o := ok(t, env, "modify_pending_order_items", swap("#W1", l("K1", "T1"), l("K2", "T2"), "gift_card_1")).(obj)
	// In float64 arithmetic at run time (Go constants would be exact).
	prices := []float64{129.3, 100.0, 25.75, 20.5}
	diff := 0.0
	diff += prices[0] - prices[1]
	diff += prices[2] - prices[3]
	if diff == 34.55 {
		t.Fatal("the test needs a sum that is not exact")
	}
	if want := []any{payment("payment", 141.0, "credit_card_1"), payment("payment", diff, "gift_card_1")}; !cmp.Equal(payments(o), want) {
		t.Errorf("payment history %v, want amount %v", payments(o), diff)
	}
	items := o["items"].([]any)
	wantItems := []any{
		obj{"name": "Keyboard", "product_id": "P-KB", "item_id": "K2", "price": 25.75, "options": obj{"size": "M"}},
		obj{"name": "T-Shirt", "product_id": "P-TS", "item_id": "T2", "price": 25.75, "options": obj{"size": "M"}},
		obj{"name": "T-Shirt", "product_id": "P-TS", "item_id": "T1", "price": 20.5, "options": obj{"size": "S"}},
	}
	if !cmp.Equal(items, wantItems) || o["status"] != StatusPendingItemModified {
		t.Errorf("items %v status %v", items, o["status"])
	}
	if b, want := giftBalance(t, env), calc.Round2(50-diff); b != want {
		t.Errorf("gift card balance %v, want %v", b, want)
	}
	fails(t, env, "modify_pending_order_items", swap("#W1", l("T1"), l("T3"), "paypal_1"), "Non-pending order cannot be modified")

	// Equal prices record a refund of 0.0; a cheaper item refunds the gift card.
	env = newEnv(t)
	o = ok(t, env, "modify_pending_order_items", swap("#W4", l("T2"), l("T3"), "credit_card_1")).(obj)
	if p := payments(o); !cmp.Equal(p[len(p)-1], payment("refund", 0.0, "credit_card_1")) {
		t.Errorf("zero difference: %v", p)
	}
	ok(t, env, "modify_pending_order_items", swap("#W1", l("K1"), l("K5"), "gift_card_1"))
	if b := giftBalance(t, env); b != 69.75 {
		t.Errorf("gift card balance %v, want 69.75", b)
	}
	// No pairs at all is accepted: a 0.0 refund and the status change.
	o = ok(t, newEnv(t), "modify_pending_order_items", swap("#W1", l(), l(), "paypal_1")).(obj)
	if p := payments(o); len(p) != 2 || !cmp.Equal(p[1], payment("refund", 0.0, "paypal_1")) || o["status"] != StatusPendingItemModified {
		t.Errorf("empty modification: %v", o)
	}
}

func TestExchangeDeliveredOrderItems(t *testing.T) {
	l := func(ids ...string) []string { return ids }
	swap := func(old, new []string, pm string) obj {
		return obj{"order_id": "#W2", "item_ids": old, "new_item_ids": new, "payment_method_id": pm}
	}
	env := newEnv(t)
	fails(t, env, "exchange_delivered_order_items", obj{"order_id": "#W1", "item_ids": l("K1"), "new_item_ids": l("K2"), "payment_method_id": "paypal_1"}, "Non-delivered order cannot be exchanged")
	fails(t, env, "exchange_delivered_order_items", swap(l("K1", "K1"), l("K2", "K2"), "paypal_1"), "Number of K1 not found.")
	fails(t, env, "exchange_delivered_order_items", swap(l("K1"), l(), "paypal_1"), "The number of items to be exchanged should match.")
	fails(t, env, "exchange_delivered_order_items", swap(l("K1"), l("K3"), "paypal_1"), "New item K3 not found or available")
	fails(t, env, "exchange_delivered_order_items", swap(l("K1"), l("K4"), "gift_card_1"), "Insufficient gift card balance to pay for the price difference")

	// Old and new lists are sorted independently; the difference is rounded;
	// no money moves.
	o := ok(t, env, "exchange_delivered_order_items", swap(l("T2", "K1"), l("T3", "K2"), "gift_card_1")).(obj)
	if o["status"] != StatusExchangeRequested ||
		!cmp.Equal(o["exchange_items"], []any{"K1", "T2"}) ||
		!cmp.Equal(o["exchange_new_items"], []any{"K2", "T3"}) ||
		o["exchange_payment_method_id"] != "gift_card_1" || o["exchange_price_difference"] != 29.3 ||
		len(payments(o)) != 1 {
		t.Errorf("exchange: %v", o)
	}
	if b := giftBalance(t, env); b != 50 {
		t.Errorf("gift card balance %v, want 50", b)
	}
	fails(t, env, "exchange_delivered_order_items", swap(l("K1"), l("K2"), "paypal_1"), "Non-delivered order cannot be exchanged")

	// The same item is allowed (no old != new check), and no items at all
	// leave tau2's integer 0 as the difference, which the hash tells apart.
	ok(t, newEnv(t), "exchange_delivered_order_items", swap(l("K1"), l("K1"), "paypal_1"))
	env = newEnv(t)
	res := env.Call(domains.ToolCall{Name: "exchange_delivered_order_items", Arguments: swap(l(), l(), "paypal_1")})
	if res.Error || !strings.Contains(res.Content, `"exchange_price_difference": 0,`) || !strings.Contains(res.Content, `"exchange_items": []`) {
		t.Errorf("empty exchange: %+v", res)
	}
	db := decodeMini(t)
	if _, err := exchangeDeliveredOrderItems(db, domains.Args(swap(l(), l(), "paypal_1"))); err != nil {
		t.Fatal(err)
	}
	if d := db.Dump().(obj)["orders"].(obj)["#W2"].(obj)["exchange_price_difference"]; d != int64(0) {
		t.Errorf("dumped difference %#v, want int64(0)", d)
	}
	h1, _ := db.Hash()
	o2, _ := db.orders.edit("#W2", (*Order).clone)
	o2.ExchangePriceDifference = &PyNumber{Value: 0}
	if h2, _ := db.Hash(); h1 == h2 {
		t.Error("0 and 0.0 hash alike")
	}
}

func TestReturnDeliveredOrderItems(t *testing.T) {
	l := func(ids ...string) []string { return ids }
	ret := func(ids []string, pm string) obj {
		return obj{"order_id": "#W2", "item_ids": ids, "payment_method_id": pm}
	}
	env := newEnv(t)
	fails(t, env, "return_delivered_order_items", obj{"order_id": "#W1", "item_ids": l("K1"), "payment_method_id": "credit_card_1"}, "Non-delivered order cannot be returned")
	fails(t, env, "return_delivered_order_items", ret(l("K1"), "paypal_9"), "Payment method not found")
	fails(t, env, "return_delivered_order_items", ret(l("K1"), "credit_card_1"), "Payment method should be the original payment method")
	fails(t, env, "return_delivered_order_items", ret(l("T2", "T2"), "paypal_1"), "Some item not found")
	fails(t, env, "return_delivered_order_items", ret(l("T3"), "paypal_1"), "Some item not found")

	o := ok(t, env, "return_delivered_order_items", ret(l("T2", "K1"), "paypal_1")).(obj)
	if o["status"] != StatusReturnRequested || !cmp.Equal(o["return_items"], []any{"K1", "T2"}) ||
		o["return_payment_method_id"] != "paypal_1" || len(payments(o)) != 1 {
		t.Errorf("return: %v", o)
	}
	fails(t, env, "return_delivered_order_items", ret(l("K1"), "paypal_1"), "Non-delivered order cannot be returned")
	// Any gift card of the user will do.
	if o := ok(t, newEnv(t), "return_delivered_order_items", ret(l("K1"), "gift_card_1")).(obj); o["return_payment_method_id"] != "gift_card_1" {
		t.Errorf("return to gift card: %v", o)
	}
}

func TestArguments(t *testing.T) {
	env := newEnv(t)
	fails(t, env, "get_user_details", obj{"user_id": "ann_1", "verbose": true}, "RetailTools.get_user_details() got an unexpected keyword argument 'verbose'")
	fails(t, env, "get_user_details", obj{}, "RetailTools.get_user_details() missing 1 required positional argument: 'user_id'")
	fails(t, env, "get_user_details", nil, "RetailTools.get_user_details() missing 1 required positional argument: 'user_id'")
	fails(t, env, "find_user_id_by_name_zip", obj{"zip": "10001"}, "RetailTools.find_user_id_by_name_zip() missing 2 required positional arguments: 'first_name' and 'last_name'")
	fails(t, env, "modify_user_address", obj{"user_id": "ann_1", "zip": "1"},
		"RetailTools.modify_user_address() missing 5 required positional arguments: 'address1', 'address2', 'city', 'state', and 'country'")
	fails(t, env, "list_all_product_types", obj{"x": 1.0}, "RetailTools.list_all_product_types() got an unexpected keyword argument 'x'")
	fails(t, env, "get_order_details", obj{"order_id": 1.0}, "Order not found")
	fails(t, env, "modify_user_address", obj{"user_id": "ann_1", "address1": "a", "address2": nil, "city": "c", "state": "s", "country": "c", "zip": "z"}, "argument 'address2' must be a string, got null")
	fails(t, env, "return_delivered_order_items", obj{"order_id": "#W2", "item_ids": "K1", "payment_method_id": "paypal_1"}, "Some item not found") // tau2 iterates the characters
	fails(t, env, "return_delivered_order_items", obj{"order_id": "#W2", "item_ids": []any{"K1", 2.0}, "payment_method_id": "paypal_1"}, "argument 'item_ids' must be an array of strings, but element 1 is a number")
	fails(t, env, "return_delivered_order_items", obj{"order_id": "#W2", "item_ids": nil, "payment_method_id": "paypal_1"}, "argument 'item_ids' must be an array of strings, got null")
	// As in tau2, an empty string or object is an empty list.
	if o := ok(t, newEnv(t), "return_delivered_order_items", obj{"order_id": "#W2", "item_ids": "", "payment_method_id": "paypal_1"}).(obj); !cmp.Equal(o["return_items"], []any{}) {
		t.Errorf("return of \"\": %v", o)
	}
	if o := ok(t, newEnv(t), "exchange_delivered_order_items", obj{"order_id": "#W2", "item_ids": obj{}, "new_item_ids": []any{}, "payment_method_id": "paypal_1"}).(obj); !cmp.Equal(o["exchange_new_items"], []any{}) {
		t.Errorf("exchange of {}: %v", o)
	}
	fails(t, env, "calculate", obj{"expression": "2 + x"}, "Invalid characters in expression")
	if got := ok(t, env, "calculate", obj{"expression": "(129.3 - 100) * 2"}); got != 58.6 {
		t.Errorf("calculate = %v", got)
	}
	// tau2 never looks at the summary.
	for _, s := range []any{"wants a refund", 3.0, nil} {
		if got := ok(t, env, "transfer_to_human_agents", obj{"summary": s}); got != TransferMessage {
			t.Errorf("transfer = %v", got)
		}
	}
	fails(t, env, "transfer_to_human_agents", obj{}, "RetailTools.transfer_to_human_agents() missing 1 required positional argument: 'summary'")
}

func TestToolSpecs(t *testing.T) {
	d := miniDomain(t)
	want := []string{"calculate", "cancel_pending_order", "exchange_delivered_order_items", "find_user_id_by_email",
		"find_user_id_by_name_zip", "get_order_details", "get_product_details", "get_item_details", "get_user_details",
		"list_all_product_types", "modify_pending_order_address", "modify_pending_order_items", "modify_pending_order_payment",
		"modify_user_address", "return_delivered_order_items", "transfer_to_human_agents"}
	if diff := cmp.Diff(want, d.ToolNames()); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	for _, s := range d.Tools {
		var schema struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(s.Parameters, &schema); err != nil || s.Description == "" {
			t.Errorf("%s: schema %v, description %q", s.Name, err, s.Description)
			continue
		}
		if len(schema.Required) != len(schema.Properties) {
			t.Errorf("%s: every parameter is required in tau2, schema requires %v of %d", s.Name, schema.Required, len(schema.Properties))
		}
	}
}

func decodeMini(t *testing.T) *DB {
	t.Helper()
	db := new(DB)
	if err := json.Unmarshal([]byte(miniDB), db); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestCloneIsolation(t *testing.T) {
	d := miniDomain(t)
	a, _ := d.NewEnv(nil)
	b, _ := d.NewEnv(nil)
	fresh, _ := a.Hash()
	ok(t, a, "cancel_pending_order", obj{"order_id": "#W4", "reason": "no longer needed"})
	ok(t, a, "modify_user_address", obj{"user_id": "ann_1", "address1": "x", "address2": "", "city": "c", "state": "s", "country": "c", "zip": "z"})
	if ha, _ := a.Hash(); ha == fresh {
		t.Fatal("writes did not change the hash")
	}
	if hb, _ := b.Hash(); hb != fresh {
		t.Error("a write in one environment changed another")
	}
	c, _ := d.NewEnv(nil)
	if hc, _ := c.Hash(); hc != fresh || order(t, c, "#W4")["status"] != StatusPending || giftBalance(t, c) != 50 {
		t.Error("a write reached the template")
	}

	// A clone of a changed DB has its state, and the two then part ways.
	tmpl := decodeMini(t)
	x := tmpl.Clone()
	args := func(m obj) domains.Args { return domains.Args(m) }
	if _, err := cancelPendingOrder(x, args(obj{"order_id": "#W4", "reason": "no longer needed"})); err != nil {
		t.Fatal(err)
	}
	y := x.Clone()
	hx, _ := x.Hash()
	if hy, _ := y.Hash(); hy != hx {
		t.Fatal("clone of a changed DB differs from it")
	}
	if _, err := modifyPendingOrderAddress(x, args(obj{"order_id": "#W1", "address1": "x", "address2": "", "city": "c", "state": "s", "country": "c", "zip": "z"})); err != nil {
		t.Fatal(err)
	}
	if _, err := modifyPendingOrderPayment(x, args(obj{"order_id": "#W3", "payment_method_id": "paypal_1"})); err != nil {
		t.Fatal(err)
	}
	if hy, _ := y.Hash(); hy != hx {
		t.Error("changing a DB changed its earlier clone")
	}
	if _, err := returnDeliveredOrderItems(y, args(obj{"order_id": "#W2", "item_ids": []any{"K1"}, "payment_method_id": "paypal_1"})); err != nil {
		t.Fatal(err)
	}
	if o, _ := x.Order("#W2"); o.Status != StatusDelivered {
		t.Error("changing a clone changed its source")
	}
	if u, _ := y.User("ann_1"); u.PaymentMethods["gift_card_1"].Balance != 75.75 {
		t.Errorf("clone lost its source's gift card credit: %v", u.PaymentMethods["gift_card_1"])
	}
	if u, _ := tmpl.User("ann_1"); u.PaymentMethods["gift_card_1"].Balance != 50 {
		t.Error("the template changed")
	}
	// Accessors hand out copies.
	o, _ := tmpl.Order("#W1")
	o.Items[0].Options["switch"] = "broken"
	o.PaymentHistory[0].Amount = 0
	if again, _ := tmpl.Order("#W1"); again.Items[0].Options["switch"] != "clicky" || again.PaymentHistory[0].Amount != 141 {
		t.Error("Order() shares its record")
	}
}

// TestConcurrentEnvironments runs writers in parallel over one template;
// under -race it catches any write to shared records.
func TestConcurrentEnvironments(t *testing.T) {
	d := miniDomain(t)
	calls := []domains.ToolCall{
		{Name: "cancel_pending_order", Arguments: obj{"order_id": "#W4", "reason": "no longer needed"}},
		{Name: "modify_pending_order_items", Arguments: obj{"order_id": "#W1", "item_ids": []any{"K1", "T1"}, "new_item_ids": []any{"K2", "T2"}, "payment_method_id": "gift_card_1"}},
		{Name: "exchange_delivered_order_items", Arguments: obj{"order_id": "#W2", "item_ids": []any{"K1"}, "new_item_ids": []any{"K5"}, "payment_method_id": "gift_card_1"}},
		{Name: "modify_pending_order_payment", Arguments: obj{"order_id": "#W3", "payment_method_id": "credit_card_1"}},
		{Name: "modify_user_address", Arguments: obj{"user_id": "ann_1", "address1": "x", "address2": "", "city": "c", "state": "s", "country": "c", "zip": "z"}},
	}
	hashes := make([]string, 8)
	var wg sync.WaitGroup
	for g := range hashes {
		wg.Go(func() {
			env, err := d.NewEnv(nil)
			if err != nil {
				t.Error(err)
				return
			}
			for _, c := range calls {
				if res := env.Call(c); res.Error {
					t.Errorf("%s: %s", c.Name, res.Content)
				}
				env.Call(domains.ToolCall{Name: "get_order_details", Arguments: obj{"order_id": "#W1"}})
			}
			hashes[g], _ = env.Hash()
		})
	}
	wg.Wait()
	for _, h := range hashes[1:] {
		if h != hashes[0] {
			t.Fatalf("same calls, different hashes: %v", hashes)
		}
	}
}

func TestDumpAndHash(t *testing.T) {
	db := decodeMini(t)
	o := db.Dump().(obj)["orders"].(obj)["#W1"].(obj)
	if len(o) != 14 {
		t.Errorf("order dump has %d fields, want 14", len(o))
	}
	for _, k := range []string{"cancel_reason", "exchange_items", "exchange_new_items", "exchange_payment_method_id", "exchange_price_difference", "return_items", "return_payment_method_id"} {
		if v, present := o[k]; !present || v != nil {
			t.Errorf("%s = %v (present %v), want null", k, v, present)
		}
	}
	if p := db.Dump().(obj)["products"].(obj)["P-DUP"].(obj)["variants"].(obj)["D1"].(obj)["price"]; p != 1.0 {
		t.Errorf("an integral price dumps as %#v, want float64", p)
	}
	// Hash (which reuses the dumps of shared records) equals the hash of a
	// fresh Dump, before and after changes.
	check := func(db *DB) {
		t.Helper()
		h, err := db.Hash()
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := pyjson.Hash(db.Dump()); h != want {
			t.Errorf("Hash %s, pyjson.Hash(Dump()) %s", h, want)
		}
	}
	x := db.Clone()
	check(x)
	if _, err := cancelPendingOrder(x, domains.Args{"order_id": "#W4", "reason": "no longer needed"}); err != nil {
		t.Fatal(err)
	}
	check(x)
	check(db)
	if h1, _ := x.Hash(); func() string { h, _ := db.Hash(); return h }() == h1 {
		t.Error("the change did not reach the hash")
	}
}

func TestDecodeIsStrict(t *testing.T) {
	cases := map[string][2]string{
		"unknown order field":    {`"status": "processed",`, `"status": "processed", "note": 1,`},
		"missing status":         {`"status": "processed",`, ``},
		"bad status":             {`"status": "processed",`, `"status": "lost",`},
		"null address2":          {`"address2": "", "city": "Austin"`, `"address2": null, "city": "Austin"`},
		"gift card with brand":   {`"balance": 50}`, `"balance": 50, "brand": "visa"}`},
		"gift card no balance":   {`"id": "gift_card_1", "balance": 50}`, `"id": "gift_card_1"}`},
		"unknown source":         {`"source": "paypal", "id": "paypal_9"`, `"source": "cash", "id": "paypal_9"`},
		"bad transaction type":   {`"transaction_type": "payment", "amount": 20.5, "payment_method_id": "credit_card_1"`, `"transaction_type": "gift", "amount": 20.5, "payment_method_id": "credit_card_1"`},
		"string price":           {`"price": 80.25`, `"price": "80.25"`},
		"missing available":      {`"available": false, `, ``},
		"unknown top-level":      {`"products": {`, `"extra": {}, "products": {`},
		"bad cancel reason":      {`"status": "processed",`, `"status": "processed", "cancel_reason": "meh",`},
		"null fulfillments list": {`"status": "processed", "fulfillments": [{"tracking_id": ["555"], "item_ids": ["T1"]}]`, `"status": "processed", "fulfillments": null`},
	}
	for name, c := range cases {
		if !strings.Contains(miniDB, c[0]) {
			t.Fatalf("%s: %q not in miniDB", name, c[0])
		}
		data := strings.Replace(miniDB, c[0], c[1], 1)
		if err := json.Unmarshal([]byte(data), new(DB)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	if err := json.Unmarshal([]byte(`{"products": {}, "users": {}}`), new(DB)); err == nil || !strings.Contains(err.Error(), `"orders"`) {
		t.Errorf("missing orders: %v", err)
	}
	// Optional fields given in the file are kept, as floats and lists.
	data := strings.Replace(miniDB, `"status": "processed",`, `"status": "processed", "exchange_price_difference": 5, "exchange_items": [], "cancel_reason": null,`, 1)
	db := new(DB)
	if err := json.Unmarshal([]byte(data), db); err != nil {
		t.Fatal(err)
	}
	o := db.Dump().(obj)["orders"].(obj)["#W5"].(obj)
	if o["exchange_price_difference"] != 5.0 || !cmp.Equal(o["exchange_items"], []any{}) || o["exchange_new_items"] != nil {
		t.Errorf("optional fields: %v", o)
	}
	if p, u, n := db.Counts(); p != 3 || u != 2 || n != 5 {
		t.Errorf("counts %d %d %d", p, u, n)
	}
}

func ExampleTools() {
	d, err := domains.NewDomain(domains.Spec[DB]{Name: "retail-mini", DB: []byte(miniDB), Tools: Tools()})
	if err != nil {
		panic(err)
	}
	env, _ := d.NewEnv(nil)
	res := env.Call(domains.ToolCall{Name: "find_user_id_by_name_zip", Arguments: map[string]any{"first_name": "ann", "last_name": "lee", "zip": "10001"}})
	fmt.Println(res.Content, res.Error)
	res = env.Call(domains.ToolCall{Name: "cancel_pending_order", Arguments: map[string]any{"order_id": "#W5", "reason": "no longer needed"}})
	fmt.Println(res.Content, res.Error)
	// Output:
	// ann_1 false
	// Error: Non-pending order cannot be cancelled true
}
