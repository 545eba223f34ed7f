package banking

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/proctor-eval/proctor/domains/tau2/internal/dbhash"
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
//
// Tables and records are copy-on-write: a clone shares them with its
// parent until it writes, and every write goes through record, addRecord
// or Merge, which copy what the DB does not own first. A decoded database
// and its clones are hashed incrementally (see dbhash): only the records
// they changed are encoded.
type DB struct {
	tables map[string]*Table
	// ownTables and own are the tables and records (table -> ids) this DB
	// made itself and may change in place; all others may be shared.
	ownTables map[string]bool
	own       map[string]map[string]bool
	// changed lists the records (table -> ids) that may differ from the
	// decoded database's; inherited by clones.
	changed map[string]map[string]bool
	// hashing is the incremental hashing state of the decoded database,
	// shared with its clones; nil for a DB built otherwise.
	hashing *hashing

	unlocked  map[string]bool
	readAllow map[string]bool
	// initData is the task's initialization data in file order, for
	// Merge (see setupOrdered).
	initData *Obj
}

// table returns a table by name; every name of tableNames exists.
func (db *DB) table(name string) *Table { return db.tables[name] }

// record returns a record of a table, the DB's own (copied first when
// shared): the caller may change it.
func (db *DB) record(table, id string) (*Obj, bool) {
	t := db.tables[table]
	if t == nil {
		return nil, false
	}
	v, ok := t.Data.Get(id)
	r, _ := v.(*Obj)
	if !ok || r == nil {
		return nil, false
	}
	if db.own[table][id] {
		return r, true
	}
	r = deepCopy(r).(*Obj)
	db.put(table, id, r)
	return r, true
}

// writable returns a table the DB owns, copying the shared one first (its
// records stay shared).
func (db *DB) writable(name string) *Table {
	t := db.tables[name]
	if db.ownTables[name] {
		return t
	}
	c := &Table{Data: &Obj{keys: slices.Clone(t.Data.keys), vals: make(map[string]any, len(t.Data.vals))}, Notes: t.Notes}
	for k, v := range t.Data.vals {
		c.Data.vals[k] = v
	}
	if db.ownTables == nil {
		db.ownTables = map[string]bool{}
	}
	db.ownTables[name] = true
	db.tables[name] = c
	return c
}

// put stores a record the DB made (a new one or its copy of a shared one)
// in its own copy of the table and marks it owned and changed.
func (db *DB) put(table, id string, rec *Obj) {
	db.writable(table).Data.Set(id, rec)
	mark(&db.own, table, id)
	mark(&db.changed, table, id)
}

// mark adds table's id to a set of records.
func mark(set *map[string]map[string]bool, table, id string) {
	if *set == nil {
		*set = map[string]map[string]bool{}
	}
	if (*set)[table] == nil {
		(*set)[table] = map[string]bool{}
	}
	(*set)[table][id] = true
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
	if err := db.load(root); err != nil {
		return err
	}
	db.hashing = &hashing{tables: maps.Clone(db.tables)}
	return nil
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
	db.tables, db.ownTables, db.own, db.changed = tables, nil, nil, nil
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

// Clone implements domains.Cloner: a copy that shares the tables and
// records until either side writes (copy-on-write; see DB).
func (db *DB) Clone() *DB {
	c := &DB{tables: maps.Clone(db.tables), unlocked: maps.Clone(db.unlocked), readAllow: maps.Clone(db.readAllow), hashing: db.hashing}
	if c.unlocked == nil {
		c.unlocked = map[string]bool{}
	}
	if c.readAllow == nil {
		c.readAllow = map[string]bool{}
	}
	for table, ids := range db.changed {
		for id := range ids {
			mark(&c.changed, table, id)
		}
	}
	// What db owned is shared now: neither may change it in place. (A
	// template owns nothing, so concurrent clones of it only read it.)
	if len(db.own) > 0 || len(db.ownTables) > 0 {
		db.own, db.ownTables = nil, nil
	}
	if db.hashing != nil && !db.hashing.cloned.Load() {
		db.hashing.cloned.Store(true)
	}
	return c
}

// hashing holds the decoded database's tables, never changed (every DB
// copies before writing), and their encoding, made on the first hash of a
// clone and shared read-only by all clones.
type hashing struct {
	tables map[string]*Table
	// cloned is set once the database has been cloned: only then is
	// encoding it worth its cost.
	cloned atomic.Bool

	once sync.Once
	tmpl *dbhash.Template
	err  error
}

// template encodes the decoded database, once for it and its clones.
func (h *hashing) template() (*dbhash.Template, error) {
	h.once.Do(func() {
		tables := make(map[string]map[string]any, len(h.tables))
		frames := make(map[string]dbhash.Frame, len(h.tables))
		for name, t := range h.tables {
			tables[name] = make(map[string]any, t.Data.Len())
			for id, rec := range t.Data.vals {
				tables[name][id] = rec
			}
			frames[name] = dbhash.Frame{Open: `{"data": {`, Close: `}, "notes": ` + string(pyjson.AppendString(nil, t.Notes)) + "}"}
		}
		h.tmpl, h.err = dbhash.NewFramed(tables, frames)
	})
	return h.tmpl, h.err
}

// changes lists the records of db that may differ from the decoded ones.
func (db *DB) changes() []dbhash.Change {
	var out []dbhash.Change
	for table, ids := range db.changed {
		for id := range ids {
			rec, ok := db.tables[table].Data.Get(id)
			out = append(out, dbhash.Change{Table: table, Key: id, Dump: rec, Deleted: !ok})
		}
	}
	return out
}

// Hash implements domains.Hasher as tau2 does: the SHA-256 of
// json.dumps(model_dump(), sort_keys=True, default=str). A decoded
// database's clones are hashed incrementally (see dbhash), the same hash.
func (db *DB) Hash() (string, error) {
	h := db.hashing
	if h == nil || !h.cloned.Load() {
		return db.FullHash()
	}
	for name, t := range h.tables {
		if db.tables[name].Notes != t.Notes {
			return db.FullHash() // the template's frames hold its notes
		}
	}
	tmpl, err := h.template()
	if err != nil {
		return "", err
	}
	return tmpl.Hash(db.changes())
}

// FullHash is Hash computed the plain way, over the whole model dump.
func (db *DB) FullHash() (string, error) {
	return pyjson.Hash(db.dump())
}

// Merge implements domains.Merger as tau2's update_db does (an addict
// update of the model dump, validated again): the data is checked as the
// validation would, then merged record by record, copy-on-write.
func (db *DB) Merge(data map[string]any) error {
	src, ok := fromArg(data).(*Obj)
	if !ok {
		return fmt.Errorf("banking database: initialization data is not an object")
	}
	src = db.orderedInit(src)
	if err := checkMerge(src); err != nil {
		return err
	}
	for _, name := range src.Keys() {
		tv := src.vals[name].(*Obj)
		if notes, ok := tv.Str("notes"); ok {
			db.writable(name).Notes = notes
		}
		recs := tv.Sub("data")
		for _, id := range recs.Keys() {
			so := recs.vals[id].(*Obj)
			if rec, ok := db.record(name, id); ok {
				mergeObj(rec, so)
			} else {
				db.put(name, id, deepCopy(so).(*Obj))
			}
		}
	}
	return nil
}

// checkMerge fails, as validating the merged dump would, for data that
// would leave the database invalid: an unknown table or table field, or
// a table, data or record that is no object, or notes no str.
func checkMerge(src *Obj) error {
	for _, name := range src.Keys() {
		if !slices.Contains(tableNames, name) {
			return fmt.Errorf("banking database: unknown table %q (tau2's TransactionalDB forbids extra fields)", name)
		}
	}
	for _, name := range tableNames {
		v, ok := src.Get(name)
		if !ok {
			continue
		}
		tv, ok := v.(*Obj)
		if !ok {
			return fmt.Errorf("banking database: table %s is not an object", name)
		}
		if err := checkMergeTable(name, tv); err != nil {
			return err
		}
	}
	return nil
}

// checkMergeTable checks one table's data for checkMerge, in the order
// load checks the merged table's fields (data, notes, others).
func checkMergeTable(name string, tv *Obj) error {
	if v, ok := tv.Get("data"); ok {
		data, ok := v.(*Obj)
		if !ok {
			return fmt.Errorf("banking database: %s.data is not an object", name)
		}
		for _, id := range data.Keys() {
			if _, ok := data.vals[id].(*Obj); !ok {
				return fmt.Errorf("banking database: %s.data[%q] is not an object", name, id)
			}
		}
	}
	if v, ok := tv.Get("notes"); ok {
		if _, ok := v.(string); !ok {
			return fmt.Errorf("banking database: %s.notes is not a string", name)
		}
	}
	for _, k := range tv.Keys() {
		if k != "data" && k != "notes" {
			return fmt.Errorf("banking database: table %s has unknown field %q", name, k)
		}
	}
	return nil
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
	db.put(table, id, rec)
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
