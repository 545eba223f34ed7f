package retail

import (
	"sync"

	"github.com/proctor-eval/proctor/domains/tau2/internal/dbhash"
)

// table is one keyed collection of a DB, copy-on-write: base (and keys) may
// be shared with other DBs and are never written; own holds the records this
// DB has copied before changing them, and shadows base.
type table[T any] struct {
	keys []string // the file's key order, as Python's dict keeps it
	base map[string]*T
	own  map[string]*T
	memo *dumpMemo // model dumps of the base records, shared like base
}

// dumpMemo holds the model dumps of a table's base records, made once on
// first use and then only read (pyjson does not change what it encodes), so
// hashing an environment rebuilds only the records it changed.
type dumpMemo struct {
	once  sync.Once
	dumps map[string]map[string]any
}

func (t *table[T]) get(id string) (*T, bool) {
	if r, ok := t.own[id]; ok {
		return r, true
	}
	r, ok := t.base[id]
	return r, ok
}

// edit returns this DB's private copy of a record, making it first.
func (t *table[T]) edit(id string, cp func(*T) *T) (*T, bool) {
	if r, ok := t.own[id]; ok {
		return r, true
	}
	r, ok := t.base[id]
	if !ok {
		return nil, false
	}
	c := cp(r)
	if t.own == nil {
		t.own = make(map[string]*T)
	}
	t.own[id] = c
	return c, true
}

// clone shares keys and base and copies the private records: the source
// keeps changing its own copies in place.
func (t *table[T]) clone(cp func(*T) *T) table[T] {
	c := table[T]{keys: t.keys, base: t.base, memo: t.memo}
	if len(t.own) > 0 {
		c.own = make(map[string]*T, len(t.own))
		for id, r := range t.own {
			c.own[id] = cp(r)
		}
	}
	return c
}

// each calls fn for every record in key order.
func (t *table[T]) each(fn func(id string, r *T) bool) {
	for _, id := range t.keys {
		r, _ := t.get(id)
		if !fn(id, r) {
			return
		}
	}
}

// dump returns the table's model dump. With memo set, the dumps of records
// this DB shares come from (and go to) the memo, and the result must only
// be read.
func (t *table[T]) dump(fn func(*T) map[string]any, memo bool) map[string]any {
	out := make(map[string]any, len(t.keys))
	if memo && t.memo != nil {
		dumps := t.memoized(fn)
		for _, id := range t.keys {
			if r, ok := t.own[id]; ok {
				out[id] = fn(r)
			} else {
				out[id] = dumps[id]
			}
		}
		return out
	}
	t.each(func(id string, r *T) bool {
		out[id] = fn(r)
		return true
	})
	return out
}

// memoized returns the model dumps of the base records, made once; they
// must only be read.
func (t *table[T]) memoized(fn func(*T) map[string]any) map[string]map[string]any {
	t.memo.once.Do(func() {
		t.memo.dumps = make(map[string]map[string]any, len(t.base))
		for id, r := range t.base {
			t.memo.dumps[id] = fn(r)
		}
	})
	return t.memo.dumps
}

// baseDumps is memoized as a tree for dbhash.New.
func (t *table[T]) baseDumps(fn func(*T) map[string]any) map[string]any {
	memo := t.memoized(fn)
	out := make(map[string]any, len(memo))
	for id, d := range memo {
		out[id] = d
	}
	return out
}

// changes appends the DB's private records, the only ones that may differ
// from the base, to out.
func (t *table[T]) changes(out []dbhash.Change, name string, fn func(*T) map[string]any) []dbhash.Change {
	for id, r := range t.own {
		out = append(out, dbhash.Change{Table: name, Key: id, Dump: fn(r)})
	}
	return out
}
