package airline

import (
	"iter"
	"maps"

	"github.com/proctor-eval/proctor/domains/tau2/internal/dbhash"
)

// records is one table of a DB, keyed by id, copy on write at the table
// level: base is the decoded table, shared by a DB and all its clones and
// never written; own holds the records this DB added or replaced, and
// shadows base. A clone copies own only, so a fresh environment costs a few
// words however large the database, and own lists exactly the records that
// may differ from the decoded database (see DB.changes).
type records[T any] struct {
	base map[string]*T
	own  map[string]*T
}

func (t *records[T]) get(id string) (*T, bool) {
	if r, ok := t.own[id]; ok {
		return r, true
	}
	r, ok := t.base[id]
	return r, ok
}

// set stores a record of this DB's.
func (t *records[T]) set(id string, r *T) {
	if t.own == nil {
		t.own = make(map[string]*T)
	}
	t.own[id] = r
}

// clone shares base and the records themselves; the DBs' owned sets say
// which records each may change in place.
func (t *records[T]) clone() records[T] {
	return records[T]{base: t.base, own: maps.Clone(t.own)}
}

// all yields every record, in no particular order.
func (t *records[T]) all() iter.Seq2[string, *T] {
	return func(yield func(string, *T) bool) {
		for id, r := range t.own {
			if !yield(id, r) {
				return
			}
		}
		for id, r := range t.base {
			if _, mine := t.own[id]; mine {
				continue
			}
			if !yield(id, r) {
				return
			}
		}
	}
}

// changes appends this DB's own records, the only ones that may differ from
// the decoded table, to out.
func (t *records[T]) changes(out []dbhash.Change, name string, dump func(*T) map[string]any) []dbhash.Change {
	for id, r := range t.own {
		if r != t.base[id] {
			out = append(out, dbhash.Change{Table: name, Key: id, Dump: dump(r)})
		}
	}
	return out
}

// baseDumps is the decoded table's model dump, for dbhash.New.
func (t *records[T]) baseDumps(dump func(*T) map[string]any) map[string]any {
	out := make(map[string]any, len(t.base))
	for id, r := range t.base {
		out[id] = dump(r)
	}
	return out
}
