// Package retail is tau2-bench's retail domain for proctor: an online
// store's customer service with 50 products, 500 users and 1000 orders, and
// the agent tools of tau2's retail toolkit (lookups, cancellations, order
// modifications, returns, exchanges, address changes, calculate and transfer
// to a human agent).
//
// The data are tau2-bench's own files (MIT licence) and are not part of
// proctor: [New] reads them at run time from a directory laid out like
// tau2's data/tau2/domains/retail (db.json, tasks.json, policy.md,
// split_tasks.json).
//
// The tools reproduce tau2's behaviour, including its failure messages and
// its quirks (see domains-spec.md section 3), because rewards compare
// database hashes with tau2's: [DB.Hash] is tau2's hash, the SHA-256 of
// Python's json.dumps(model_dump(), sort_keys=True), computed with package
// pyjson over [DB.Dump]. Environments share the database decoded once and
// copy a record only when a tool changes it ([DB.Clone]).
//
// Tool messages are tau2's bytes (its bad_calls.json fixture is replayed
// by TestBadCalls): json.dumps layout, variants and options in db.json's
// key order, argument TypeErrors naming RetailTools. Like tau2, the tools
// check no argument type up front where tau2's code would not fail: an id
// that is a number or a boolean names no record ("User not found",
// "Order not found", "Product not found"; also a non-string zip in
// find_user_id_by_name_zip), a list or object id fails as Python's
// hashing does ("unhashable type: 'list'"), transfer_to_human_agents
// accepts any summary (a number succeeds), and return_delivered_order_items
// given a string for item_ids iterates its characters, as Python does, so
// none is found ("Some item not found"). Other arguments of the wrong JSON
// type fail with a type error where tau2 would fail with Python's.
//
// See ExampleNew for an environment of a task and a tool call.
package retail
