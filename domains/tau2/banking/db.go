package banking

import (
	"fmt"
	"slices"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// tableNames are the tables of tau2's TransactionalDB, in its field order
// (model_dump's order; the hash sorts them anyway).
var tableNames = []string{
	"users", "accounts", "debit_cards", "referrals", "credit_card_applications",
	"user_discoverable_tools", "user_discoverable_tool_calls", "verification_history",
	"credit_card_transaction_history", "cash_back_disputes", "bank_account_transaction_history",
	"credit_card_accounts", "agent_discoverable_tools", "task_config", "human_transfer_requests",
	"transaction_disputes", "credit_card_orders", "debit_card_orders", "credit_card_closure_reasons",
	"credit_card_account_flags", "credit_limit_increase_requests", "payment_history", "debit_card_disputes",
}

// queryableNames are the tables query_database_tool knows, in the order its
// "Available: [...]" error lists them (db_query._load_databases).
var queryableNames = []string{
	"users", "accounts", "referrals", "credit_card_applications", "user_discoverable_tools",
	"user_discoverable_tool_calls", "agent_discoverable_tools", "task_config", "verification_history",
	"credit_card_transaction_history", "cash_back_disputes", "bank_account_transaction_history",
	"credit_card_accounts", "human_transfer_requests", "transaction_disputes", "credit_card_orders",
	"credit_card_closure_reasons", "credit_card_account_flags", "debit_cards", "debit_card_orders",
	"debit_card_disputes", "credit_limit_increase_requests", "payment_history",
}

// Table is one table of the database: records by id, and a note.
type Table struct {
	// Data maps a record id to its record (an *Obj).
	Data  *Obj
	Notes string
}

// DB is the banking database (tau2's TransactionalDB), shared by the
// agent's and the user's tools, plus the toolkit state tau2 keeps outside
// it: which discoverable tools the agent unlocked and which read-only ones
// the task's gold trajectory calls (those calls are logged).
type DB struct {
	tables map[string]*Table

	unlocked  map[string]bool
	readAllow map[string]bool
	// initData is the task's initialization data in file order, for
	// Merge (see setupOrdered).
	initData *Obj
}

// table returns a table by name; every name of tableNames exists.
func (db *DB) table(name string) *Table { return db.tables[name] }

// record returns a record of a table.
func (db *DB) record(table, id string) (*Obj, bool) {
	t := db.tables[table]
	if t == nil {
		return nil, false
	}
	v, ok := t.Data.Get(id)
	r, _ := v.(*Obj)
	return r, ok && r != nil
}

// UnmarshalJSON implements json.Unmarshaler: the database as tau2's
// TransactionalDB.model_validate reads it.
func (db *DB) UnmarshalJSON(raw []byte) error {
	v, err := parseJSON(string(raw), false)
	if err != nil {
		return fmt.Errorf("banking database: %w", err)
	}
	root, ok := v.(*Obj)
	if !ok {
		return fmt.Errorf("banking database: not a JSON object")
	}
	return db.load(root)
}

// load validates a model dump into the database, as pydantic does with
// TransactionalDB (extra tables forbidden, absent ones empty).
func (db *DB) load(root *Obj) error {
	tables := make(map[string]*Table, len(tableNames))
	for _, name := range root.Keys() {
		if !slices.Contains(tableNames, name) {
			return fmt.Errorf("banking database: unknown table %q (tau2's TransactionalDB forbids extra fields)", name)
		}
	}
	for _, name := range tableNames {
		t := &Table{Data: NewObj()}
		tables[name] = t
		v, ok := root.Get(name)
		if !ok {
			continue
		}
		tv, ok := v.(*Obj)
		if !ok {
			return fmt.Errorf("banking database: table %s is not an object", name)
		}
		for _, k := range tv.Keys() {
			switch k {
			case "data":
				data, ok := tv.vals[k].(*Obj)
				if !ok {
					return fmt.Errorf("banking database: %s.data is not an object", name)
				}
				for _, id := range data.Keys() {
					if _, ok := data.vals[id].(*Obj); !ok {
						return fmt.Errorf("banking database: %s.data[%q] is not an object", name, id)
					}
				}
				t.Data = data
			case "notes":
				s, ok := tv.vals[k].(string)
				if !ok {
					return fmt.Errorf("banking database: %s.notes is not a string", name)
				}
				t.Notes = s
			default:
				return fmt.Errorf("banking database: table %s has unknown field %q", name, k)
			}
		}
	}
	db.tables = tables
	return nil
}

// dump is the database's model_dump(): every table, in field order.
func (db *DB) dump() *Obj {
	root := NewObj()
	for _, name := range tableNames {
		t := db.tables[name]
		root.Set(name, objOf("data", t.Data, "notes", t.Notes))
	}
	return root
}

// Clone implements domains.Cloner: a deep copy of the tables and state.
func (db *DB) Clone() *DB {
	c := &DB{tables: make(map[string]*Table, len(db.tables)), unlocked: map[string]bool{}, readAllow: map[string]bool{}}
	for name, t := range db.tables {
		c.tables[name] = &Table{Data: deepCopy(t.Data).(*Obj), Notes: t.Notes}
	}
	for k, v := range db.unlocked {
		c.unlocked[k] = v
	}
	for k, v := range db.readAllow {
		c.readAllow[k] = v
	}
	return c
}

// Hash implements domains.Hasher as tau2 does: the SHA-256 of
// json.dumps(model_dump(), sort_keys=True, default=str).
func (db *DB) Hash() (string, error) {
	return pyjson.Hash(db.dump())
}

// Merge implements domains.Merger as tau2's update_db does (an addict
// update of the model dump, validated again).
func (db *DB) Merge(data map[string]any) error {
	root := db.dump()
	src, ok := fromArg(data).(*Obj)
	if !ok {
		return fmt.Errorf("banking database: initialization data is not an object")
	}
	mergeObj(root, db.orderedInit(src))
	return db.load(root)
}

// mergeObj merges src into dst as addict's Dict.update: dicts under the
// same key merge, anything else replaces.
func mergeObj(dst, src *Obj) {
	for _, k := range src.Keys() {
		sv := src.vals[k]
		so, sok := sv.(*Obj)
		do, dok := dst.vals[k].(*Obj)
		if sok && dok {
			mergeObj(do, so)
			continue
		}
		dst.Set(k, deepCopy(sv))
	}
}

// addRecord is db_query.add_to_db: false when the id exists.
func (db *DB) addRecord(table, id string, rec *Obj) bool {
	t := db.tables[table]
	if t == nil || t.Data.Has(id) {
		return false
	}
	t.Data.Set(id, rec)
	return true
}

// UserView is the user side's database: the agent's, shared (tau2 gives
// both toolkits one TransactionalDB). syncSides points it at the agent's.
type UserView struct {
	db *DB
}

// Hash implements domains.Hasher: the shared database's hash.
func (u *UserView) Hash() (string, error) {
	if u.db == nil {
		return "", fmt.Errorf("banking user side: database not shared yet")
	}
	return u.db.Hash()
}

// syncSides shares the agent's database with the user side (Spec.Sync).
func syncSides(agent *DB, user any) error {
	u, ok := user.(*UserView)
	if !ok {
		return fmt.Errorf("banking: user side is %T", user)
	}
	u.db = agent
	return nil
}
