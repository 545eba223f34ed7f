// Package dbhash computes tau2's database hash incrementally, for
// databases whose model dump is an object of tables, each an object of
// records keyed by id (airline, retail).
//
// tau2's hash is the SHA-256 of json.dumps(model_dump(), sort_keys=True):
// one stream over the whole database, about 7 MB for airline. A simulation
// changes a handful of records of a database that every simulation of a
// domain starts from, so a [Template] encodes the pristine database once
// (the bytes of every record, and the SHA-256 state at every record
// boundary) and is then shared read-only by all environments. Hashing an
// environment encodes only its changed records; the bytes before the first
// change are not hashed again (the saved state resumes there), the records
// after it are streamed from their cached bytes. The hash is the same,
// byte for byte, as pyjson.Hash of the full dump.
//
// The changed records also identify the database: two environments of one
// template whose changes encode to the same bytes hold the same database.
// [Template.Hash] therefore remembers the hash of every change set it has
// streamed (up to a bound), keyed by the SHA-256 of the changes' encoding
// (their [Digest]), and answers a change set seen before (the gold
// database of a task, a fresh one, an agent's that did what another did)
// without streaming at all.
package dbhash

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"sync"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// memoLimit bounds the remembered hashes of change sets; the memo starts
// over when full.
const memoLimit = 1 << 14

// Template is the encoded pristine database. It is safe for concurrent use.
type Template struct {
	tables []*table // in pyjson key order
	byName map[string]*table
	hash   string // the pristine database's hash

	mu   sync.Mutex
	memo map[Digest]string
}

// table is one pristine table.
type table struct {
	index int
	name  string
	frame Frame
	keys  []string // in pyjson key order
	pos   map[string]int
	recs  [][]byte // encoded records, by position
	// states[i] is the SHA-256 state before record i is written (after
	// the table's "{" or the previous record); states[len(keys)] is the
	// state before the table's closing "}".
	states [][]byte
}

// Change is a record of an environment's database that may differ from
// the template: a changed or new record with its model dump, or a deleted
// one. Records not listed are the template's; a record is listed at most
// once.
type Change struct {
	Table, Key string
	// Dump is the record's model dump; ignored when Deleted.
	Dump    any
	Deleted bool
}

// Digest identifies a database by its differences from a template.
type Digest [sha256.Size]byte

// Frame is the text around a table's records in the dump: Open replaces
// the "{" before the first record and Close the "}" after the last, for a
// table whose records sit in a member of the table's object (banking's
// {"data": {...records}, "notes": "..."}).
type Frame struct{ Open, Close string }

// New encodes a pristine database given as its model dump: table name ->
// record key -> record dump. The trees are only read, and not kept.
func New(tables map[string]map[string]any) (*Template, error) {
	return NewFramed(tables, nil)
}

// NewFramed is New for tables whose records are framed (a table absent
// from frames is the plain object of its records).
func NewFramed(tables map[string]map[string]any, frames map[string]Frame) (*Template, error) {
	t := &Template{byName: make(map[string]*table, len(tables)), memo: map[Digest]string{}}
	names := make([]string, 0, len(tables))
	for name := range tables {
		names = append(names, name)
	}
	pyjson.SortKeys(names)
	for i, name := range names {
		frame, ok := frames[name]
		if !ok {
			frame = Frame{Open: "{", Close: "}"} // the object of its records
		}
		tb := &table{index: i, name: name, frame: frame, pos: make(map[string]int, len(tables[name]))}
		for k := range tables[name] {
			tb.keys = append(tb.keys, k)
		}
		pyjson.SortKeys(tb.keys)
		tb.recs = make([][]byte, len(tb.keys))
		for j, k := range tb.keys {
			tb.pos[k] = j
			enc, err := pyjson.Marshal(tables[name][k])
			if err != nil {
				return nil, fmt.Errorf("dbhash: table %s, record %s: %w", name, k, err)
			}
			tb.recs[j] = enc
		}
		t.tables = append(t.tables, tb)
		t.byName[name] = tb
	}
	h := sha256.New()
	s := &stream{h: h}
	s.write("{")
	var err error
	for i, tb := range t.tables {
		s.tableHead(i, tb)
		tb.states = make([][]byte, len(tb.keys)+1)
		for j, k := range tb.keys {
			if tb.states[j], err = s.state(); err != nil {
				return nil, err
			}
			s.record(k, tb.recs[j])
		}
		if tb.states[len(tb.keys)], err = s.state(); err != nil {
			return nil, err
		}
		s.write(tb.frame.Close)
	}
	s.write("}")
	t.hash = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

// Pristine returns the hash of the template's database itself.
func (t *Template) Pristine() string { return t.hash }

// dirty is a change that does differ from the template: enc is the
// record's encoding, nil for a deleted record.
type dirty struct {
	table *table
	key   string
	pos   int // the key's position in the template, or where it would go
	found bool
	enc   []byte
}

// diff encodes an environment's changes and keeps those that differ from
// the template (a record changed back to its pristine bytes is not a
// difference), in stream order. It fails for a change of a table the
// template lacks, a record listed twice or one that does not encode.
func (t *Template) diff(changes []Change) ([]dirty, error) {
	var out []dirty
	for _, c := range changes {
		tb, ok := t.byName[c.Table]
		if !ok {
			return nil, fmt.Errorf("dbhash: change to unknown table %q", c.Table)
		}
		d := dirty{table: tb, key: c.Key}
		d.pos, d.found = tb.pos[c.Key]
		if !d.found {
			d.pos, _ = slices.BinarySearchFunc(tb.keys, c.Key, pyjson.CompareKeys)
		}
		if c.Deleted {
			if !d.found {
				continue
			}
		} else {
			enc, err := pyjson.Marshal(c.Dump)
			if err != nil {
				return nil, fmt.Errorf("dbhash: table %s, record %s: %w", c.Table, c.Key, err)
			}
			if d.found && bytes.Equal(enc, tb.recs[d.pos]) {
				continue
			}
			d.enc = enc
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b dirty) int {
		if a.table.index != b.table.index {
			return a.table.index - b.table.index
		}
		return pyjson.CompareKeys(a.key, b.key)
	})
	for i := 1; i < len(out); i++ {
		if out[i].table == out[i-1].table && out[i].key == out[i-1].key {
			return nil, fmt.Errorf("dbhash: record %s of table %s listed twice", out[i].key, out[i].table.name)
		}
	}
	return out, nil
}

// Digest returns the digest of an environment's changes: equal digests
// (from one template) mean equal databases, and equal databases have equal
// digests, whatever records were listed as possibly changed.
func (t *Template) Digest(changes []Change) (Digest, error) {
	ds, err := t.diff(changes)
	if err != nil {
		return Digest{}, err
	}
	return digest(ds), nil
}

func digest(ds []dirty) Digest {
	h := sha256.New()
	var n [8]byte
	field := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, d := range ds {
		field([]byte(d.table.name))
		field([]byte(d.key))
		if d.enc == nil {
			h.Write([]byte{0}) // deleted
			continue
		}
		h.Write([]byte{1})
		field(d.enc)
	}
	var out Digest
	h.Sum(out[:0])
	return out
}

// Hash returns tau2's hash of the template's database with the changes
// applied: the hex SHA-256 of json.dumps(model_dump(), sort_keys=True).
func (t *Template) Hash(changes []Change) (string, error) {
	ds, err := t.diff(changes)
	if err != nil {
		return "", err
	}
	if len(ds) == 0 {
		return t.hash, nil
	}
	key := digest(ds)
	t.mu.Lock()
	h, ok := t.memo[key]
	t.mu.Unlock()
	if ok {
		return h, nil
	}
	if h, err = t.stream(ds); err != nil {
		return "", err
	}
	t.mu.Lock()
	if len(t.memo) >= memoLimit {
		clear(t.memo)
	}
	t.memo[key] = h
	t.mu.Unlock()
	return h, nil
}

// stream hashes the database from the first difference on, resuming the
// pristine stream's state there.
func (t *Template) stream(ds []dirty) (string, error) {
	first := ds[0]
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(first.table.states[first.pos]); err != nil {
		return "", fmt.Errorf("dbhash: resume: %w", err)
	}
	s := &stream{h: h}
	for _, tb := range t.tables[first.table.index:] {
		var mine []dirty
		for len(ds) > 0 && ds[0].table == tb {
			mine, ds = append(mine, ds[0]), ds[1:]
		}
		start := 0
		if tb == first.table {
			start = first.pos
		} else {
			s.tableHead(tb.index, tb)
		}
		s.n = start
		s.rest(tb, start, mine)
		s.write(tb.frame.Close)
	}
	s.write("}")
	return hex.EncodeToString(h.Sum(nil)), nil
}

// rest writes a table's records from template position start on, the
// differences (in key order, all at or after start) merged in.
func (s *stream) rest(tb *table, start int, mine []dirty) {
	j := start
	for _, d := range mine {
		for ; j < d.pos; j++ {
			s.record(tb.keys[j], tb.recs[j])
		}
		if d.found {
			j++ // replaced or deleted
		}
		if d.enc != nil {
			s.record(d.key, d.enc)
		}
	}
	for ; j < len(tb.keys); j++ {
		s.record(tb.keys[j], tb.recs[j])
	}
}

// stream writes the dump's text into a hash.
type stream struct {
	h   hash.Hash
	n   int // records written in the current table
	buf []byte
}

func (s *stream) write(text string) { s.h.Write([]byte(text)) }

func (s *stream) tableHead(i int, tb *table) {
	s.buf = s.buf[:0]
	if i > 0 {
		s.buf = append(s.buf, ", "...)
	}
	s.buf = append(append(pyjson.AppendString(s.buf, tb.name), ": "...), tb.frame.Open...)
	s.h.Write(s.buf)
	s.n = 0
}

// record writes one member of a table.
func (s *stream) record(key string, enc []byte) {
	s.buf = s.buf[:0]
	if s.n > 0 {
		s.buf = append(s.buf, ", "...)
	}
	s.buf = append(pyjson.AppendString(s.buf, key), ": "...)
	s.h.Write(s.buf)
	s.h.Write(enc)
	s.n++
}

func (s *stream) state() ([]byte, error) {
	b, err := s.h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("dbhash: save the SHA-256 state: %w", err)
	}
	return b, nil
}
