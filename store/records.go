package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"go.etcd.io/bbolt"
)

// maxIDLen bounds ids; they are bbolt keys and nested bucket names.
const maxIDLen = 1024

// minPrefixLen is the length of the shortest id prefix or suffix
// GetEvaluation and GetConformance resolve.
const minPrefixLen = 8

// defaultMaxRecordSize bounds a single stored value (an evaluation record, a
// simulation record, a simulation's request metrics, a conformance run or an
// A2A task record): 64 MiB. bbolt could hold more, but every read copies the
// value, so we bound memory here.
const defaultMaxRecordSize = 64 << 20

// recordKind names a kind of stored record in errors.
type recordKind string

const (
	kindEvaluation     recordKind = "evaluation"
	kindSimulation     recordKind = "simulation"
	kindConformanceRun recordKind = "conformance run"
	kindA2ATask        recordKind = "a2a task"
)

// plural is the kind's name for several records ("evaluations").
func (k recordKind) plural() string { return string(k) + "s" }

// validateID checks that id can be the key of a record of this kind.
func validateID(kind recordKind, id string) error {
	switch {
	case id == "":
		return fmt.Errorf("store: empty %s id", kind)
	case len(id) > maxIDLen:
		return fmt.Errorf("store: %s id %q... is %d bytes, longer than the %d-byte limit", kind, id[:32], len(id), maxIDLen)
	}
	return nil
}

func (db *DB) checkSize(what string, n int) error {
	if n > db.maxRecord {
		return fmt.Errorf("store: %s is %d bytes, larger than the limit of %s per record", what, n, sizeString(db.maxRecord))
	}
	return nil
}

// encodeJSON marshals v without HTML escaping (so caller payloads keep
// their <, > and & as written) and without the encoder's trailing newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil
}

// normRaw turns an absent payload into nil so that round trips keep nil as
// nil: empty and JSON null both mean "no payload".
func normRaw(m json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(m)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	return m
}

func sizeString(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "..."
}

// resolveID finds a record by its id or, from minPrefixLen characters on, by
// a short id: a unique prefix or a unique suffix of it. Ids are UUIDv7s,
// which begin with their creation time, so evaluations made the same
// minute share their first 8 or more characters, while the last 12 are
// random: 8 of them tell apart any two ids but once in 4 billion pairs.
// kind names the record in errors: ErrNotFound, or ErrAmbiguous listing the
// first few matches. visible, when not nil, limits the records considered
// (those of a tenant): the others answer as if they did not exist.
func resolveID(b *bbolt.Bucket, id string, kind recordKind, visible func(k, v []byte) bool) (key, val []byte, err error) {
	short := []byte(id)
	if visible == nil {
		visible = func(_, v []byte) bool { return v != nil }
	}
	if v := b.Get(short); v != nil && visible(short, v) {
		return short, v, nil
	}
	if len(id) < minPrefixLen {
		return nil, nil, fmt.Errorf("%w: %s %q (a short id needs at least %d characters: the first or the last ones)", ErrNotFound, kind, id, minPrefixLen)
	}
	const show = 5
	var (
		n          int
		candidates []string
	)
	match := func(k, v []byte) {
		if n == 0 {
			key, val = k, v
		}
		if n < show {
			candidates = append(candidates, string(k))
		}
		n++
	}
	c := b.Cursor()
	for k, v := c.Seek(short); k != nil && bytes.HasPrefix(k, short); k, v = c.Next() {
		if v != nil && visible(k, v) {
			match(k, v)
		}
	}
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil && bytes.HasSuffix(k, short) && !bytes.HasPrefix(k, short) && visible(k, v) {
			match(k, v)
		}
	}
	switch n {
	case 0:
		return nil, nil, fmt.Errorf("%w: %s %q", ErrNotFound, kind, id)
	case 1:
		return key, val, nil
	}
	more := ""
	if n > show {
		more = fmt.Sprintf(" and %d more", n-show)
	}
	return nil, nil, fmt.Errorf("%w: %q matches %d %s: %s%s; give more characters",
		ErrAmbiguous, id, n, kind.plural(), strings.Join(candidates, ", "), more)
}
