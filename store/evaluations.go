package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"
)

// Evaluation is one evaluation run: its indexed fields plus the caller's
// full record in Data, which the store keeps as opaque JSON.
type Evaluation struct {
	// ID is the key; use NewID for new evaluations so keys sort by
	// creation time.
	ID string `json:"id"`
	// Kind says what was run: "" (or KindSimulations) for an evaluation of
	// simulations, KindEvalSets for a run of eval sets. ListFilter can
	// select on it.
	Kind string `json:"kind,omitempty"`
	// Domain is the evaluated domain's name; ListFilter can select on it.
	Domain string `json:"domain"`
	// AgentURL is the evaluated agent's URL, compared verbatim by ListFilter.
	AgentURL string `json:"agent_url"`
	// Status is owned by the caller (running, completed, interrupted,
	// failed, canceled, ...); ListFilter and MarkInterrupted compare it
	// verbatim.
	Status string `json:"status"`
	// Tenant owns the evaluation (see Tenant): PutEvaluation sets it on a
	// new record from its context, and keeps a stored record's. Empty for
	// records without an owner, whom only admins see.
	Tenant string `json:"tenant,omitempty"`
	// Writer is the process that put the record: PutEvaluation sets the
	// current one when it is nil. A record left "running" by a writer that
	// is gone (Process.Gone) is no longer running.
	Writer *Process `json:"writer,omitempty"`
	// CreatedAt is set by PutEvaluation when zero: to the stored record's
	// CreatedAt if one exists, else to UpdatedAt.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is set to the current time by PutEvaluation when zero.
	UpdatedAt time.Time `json:"updated_at"`
	// Data is the caller's record (config, summary...). It must be valid
	// JSON or empty; it is stored compacted, and null or empty reads back
	// as nil.
	Data json.RawMessage `json:"data"`
}

// Evaluation kinds.
const (
	KindSimulations = "simulations"
	KindEvalSets    = "evalsets"
)

// evalHeader is the part of a stored Evaluation that filters need; decoding
// into it skips copying Data.
type evalHeader struct {
	Kind      string    `json:"kind"`
	Domain    string    `json:"domain"`
	AgentURL  string    `json:"agent_url"`
	Status    string    `json:"status"`
	Tenant    string    `json:"tenant"`
	CreatedAt time.Time `json:"created_at"`
}

// NewID returns a new evaluation id: a UUIDv7 string. UUIDv7 strings start
// with a millisecond timestamp and are monotonic within a process, so
// evaluation keys sort by creation time.
func NewID() string {
	// NewV7 fails only if the system random source fails, which Go's
	// crypto/rand treats as fatal anyway.
	return uuid.Must(uuid.NewV7()).String()
}

// PutEvaluation inserts e or replaces the evaluation with the same ID. It
// sets UpdatedAt to now if zero, and CreatedAt if zero (see Evaluation). It
// does not touch the evaluation's simulations. A replaced record keeps its
// owner; a new one belongs to e.Tenant, or else to ctx's tenant. A tenant
// may not replace a record it does not see: that is ErrNotFound.
func (db *DB) PutEvaluation(ctx context.Context, e Evaluation) error {
	return db.PutEvaluationWith(ctx, e, nil)
}

// PutEvaluationWith is PutEvaluation that also stores sims, simulations of
// e, in the same transaction (and fsync): the record and all of them, or on
// an error none. A runner closes an evaluation this way, its record with the
// trials that finished last, so that ending a run waits for one commit
// instead of two.
func (db *DB) PutEvaluationWith(ctx context.Context, e Evaluation, sims []Simulation) error {
	if err := validateID(kindEvaluation, e.ID); err != nil {
		return err
	}
	if e.UpdatedAt.IsZero() {
		e.UpdatedAt = time.Now().UTC().Round(0)
	}
	if e.Writer == nil {
		e.Writer = db.writer
	}
	e.Data = normRaw(e.Data)
	if err := db.checkSize(fmt.Sprintf("data of evaluation %q", e.ID), len(e.Data)); err != nil {
		return err // before encoding a huge payload
	}
	recs, err := db.encodeSimulations(e.ID, sims)
	if err != nil {
		return err
	}
	return db.update(ctx, func(tx *bbolt.Tx) error {
		if err := putEvaluation(ctx, db, tx, e); err != nil {
			return err
		}
		return putEncoded(tx, e.ID, recs)
	})
}

// putEvaluation writes e, completed with its stored owner, in tx.
func putEvaluation(ctx context.Context, db *DB, tx *bbolt.Tx, e Evaluation) error {
	b := tx.Bucket(bucketEvaluations)
	if err := keepOwner(ctx, b, &e); err != nil {
		return err
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = e.UpdatedAt
	}
	val, err := encodeJSON(e)
	if err != nil {
		return fmt.Errorf("store: encode evaluation %q: %w", e.ID, err)
	}
	if err := db.checkSize(fmt.Sprintf("evaluation %q", e.ID), len(val)); err != nil {
		return err
	}
	return b.Put([]byte(e.ID), val)
}

// keepOwner gives e the owner and, when e has none, the creation time of
// the stored record it replaces, or for a new record ctx's tenant when e
// names no owner. A stored record ctx does not see is ErrNotFound.
func keepOwner(ctx context.Context, b *bbolt.Bucket, e *Evaluation) error {
	old := b.Get([]byte(e.ID))
	if old == nil {
		if e.Tenant == "" {
			e.Tenant = tenantName(ctx)
		}
		return nil
	}
	h, err := decodeEvalHeader([]byte(e.ID), old) // stops before the payload
	if err != nil {
		return nil // a damaged record is replaced, as before owners
	}
	if !sees(ctx, h.Tenant) {
		return fmt.Errorf("%w: evaluation %q", ErrNotFound, e.ID)
	}
	e.Tenant = h.Tenant
	if e.CreatedAt.IsZero() {
		e.CreatedAt = h.CreatedAt
	}
	return nil
}

// GetEvaluation returns the evaluation with the given id. id may also be a
// short id: a prefix or a suffix of at least 8 characters that matches
// exactly one evaluation (ids begin with their creation time, so the last 8
// characters, which are random, are the short id to show); an ambiguous
// one returns an error wrapping ErrAmbiguous that lists candidates.
// A missing evaluation returns an error wrapping ErrNotFound, and so does
// one ctx's tenant does not see (short ids match only those it sees).
func (db *DB) GetEvaluation(ctx context.Context, id string) (Evaluation, error) {
	if id == "" {
		return Evaluation{}, fmt.Errorf("%w: empty evaluation id", ErrNotFound)
	}
	var out Evaluation
	err := db.view(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketEvaluations)
		if b == nil {
			return fmt.Errorf("%w: evaluation %q", ErrNotFound, id)
		}
		k, v, err := resolveID(b, id, kindEvaluation, evalVisible(ctx))
		if err != nil {
			return err
		}
		out, err = decodeEvaluation(k, v)
		return err
	})
	if err != nil {
		return Evaluation{}, err
	}
	return out, nil
}

// evalVisible is resolveID's filter of the evaluations ctx sees: nil,
// every one, when it is not restricted.
func evalVisible(ctx context.Context) func(k, v []byte) bool {
	if !restricted(ctx) {
		return nil
	}
	return func(k, v []byte) bool {
		h, err := decodeEvalHeader(k, v)
		return err == nil && sees(ctx, h.Tenant)
	}
}

// decodeEvaluation decodes a stored evaluation. The key is authoritative for
// the ID. A corrupt value yields an error naming the key, never a panic.
func decodeEvaluation(key, v []byte) (Evaluation, error) {
	if v == nil {
		return Evaluation{}, fmt.Errorf("store: corrupt evaluation %q: a nested bucket where a record was expected", key)
	}
	var e Evaluation
	if err := json.Unmarshal(v, &e); err != nil {
		return Evaluation{}, fmt.Errorf("store: corrupt evaluation %q: %w", key, err)
	}
	e.ID = string(key)
	e.Data = normRaw(e.Data)
	return e, nil
}

// decodeEvalHeader decodes the fields of a stored evaluation that filters
// need. A corrupt value yields an error naming the key.
//
// It reads the record's fields in order and stops at "data" once the
// header's fields are read: PutEvaluation writes them before the caller's
// payload, so a filter that rejects a record never parses its payload
// (the bulk of it). A record with its fields in another order is read
// whole. A payload that is corrupt is then found only when a matching
// record is decoded in full.
func decodeEvalHeader(key, v []byte) (evalHeader, error) {
	var h evalHeader
	if v == nil {
		return h, fmt.Errorf("store: corrupt evaluation %q: a nested bucket where a record was expected", key)
	}
	corrupt := func(err error) (evalHeader, error) {
		return evalHeader{}, fmt.Errorf("store: corrupt evaluation %q: %w", key, err)
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return corrupt(fmt.Errorf("not a JSON object (%v)", err))
	}
	const required = 4 // domain, agent_url, status, created_at: never omitted
	seen := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return corrupt(err)
		}
		var dst any
		switch tok {
		case "kind":
			dst = &h.Kind
		case "domain":
			dst, seen = &h.Domain, seen+1
		case "agent_url":
			dst, seen = &h.AgentURL, seen+1
		case "status":
			dst, seen = &h.Status, seen+1
		case "tenant": // written before "data" when set
			dst = &h.Tenant
		case "created_at":
			dst, seen = &h.CreatedAt, seen+1
		case "data":
			if seen == required {
				return h, nil
			}
			dst = &json.RawMessage{}
		default:
			dst = &json.RawMessage{}
		}
		if err := dec.Decode(dst); err != nil {
			return corrupt(err)
		}
	}
	return h, nil
}

// ListFilter selects evaluations for ListEvaluations. Empty string fields
// match everything; non-empty ones must match exactly.
type ListFilter struct {
	// Domain, AgentURL and Status select evaluations whose fields are
	// equal to them.
	Domain, AgentURL, Status string
	// Kind selects evaluations of one kind; KindSimulations also matches
	// records written before kinds existed.
	Kind string
	// Limit is the maximum number of evaluations returned: 0 means 50,
	// a negative value means no limit.
	Limit int
	// Before is a paging cursor: only evaluations whose id sorts strictly
	// before it (that is, older ones) are returned. Pass the ID of the
	// last evaluation of the previous page. It need not exist.
	Before string
}

func (f ListFilter) matches(h evalHeader) bool {
	kind := h.Kind
	if kind == "" {
		kind = KindSimulations
	}
	return (f.Kind == "" || f.Kind == kind) &&
		(f.Domain == "" || f.Domain == h.Domain) &&
		(f.AgentURL == "" || f.AgentURL == h.AgentURL) &&
		(f.Status == "" || f.Status == h.Status)
}

// ListEvaluations returns evaluations matching f, newest first (descending
// id order, which is creation order for ids from NewID). It walks the keys
// with a cursor from the newest (or from f.Before) and stops after f.Limit
// matches (only those ctx's tenant sees), so a small page reads only what it needs. It returns an empty,
// non-nil slice when nothing matches.
func (db *DB) ListEvaluations(ctx context.Context, f ListFilter) ([]Evaluation, error) {
	filtering := f.Kind != "" || f.Domain != "" || f.AgentURL != "" || f.Status != "" || restricted(ctx)
	return listNewestFirst(ctx, db, bucketEvaluations, page{before: f.Before, limit: f.Limit}, func(k, v []byte) (Evaluation, bool, error) {
		if filtering {
			h, err := decodeEvalHeader(k, v)
			if err != nil || !f.matches(h) || !sees(ctx, h.Tenant) {
				return Evaluation{}, false, err
			}
		}
		e, err := decodeEvaluation(k, v)
		return e, err == nil, err
	})
}

// DeleteEvaluation removes the evaluation with exactly this id (prefixes are
// not accepted here) together with all its simulations and request metrics,
// in one transaction. A missing evaluation returns an error wrapping
// ErrNotFound.
func (db *DB) DeleteEvaluation(ctx context.Context, id string) error {
	if err := validateID(kindEvaluation, id); err != nil {
		return err
	}
	key := []byte(id)
	return db.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketEvaluations)
		if b.Get(key) == nil {
			return fmt.Errorf("%w: evaluation %q", ErrNotFound, id)
		}
		if err := b.Delete(key); err != nil {
			return fmt.Errorf("store: delete evaluation %q: %w", id, err)
		}
		for _, name := range [][]byte{bucketSimulations, bucketRequests} {
			parent := tx.Bucket(name)
			if parent.Bucket(key) == nil {
				continue
			}
			if err := parent.DeleteBucket(key); err != nil {
				return fmt.Errorf("store: delete %s of evaluation %q: %w", name, id, err)
			}
		}
		return nil
	})
}

// MarkInterrupted sets Status to toStatus (and UpdatedAt to now) on every
// evaluation whose Status equals fromStatus, in one transaction, and returns
// how many it changed. proctor calls it at start-up to mark evaluations left
// "running" by a crashed process. Both statuses must be non-empty.
func (db *DB) MarkInterrupted(ctx context.Context, fromStatus, toStatus string) (int, error) {
	if fromStatus == "" || toStatus == "" {
		return 0, fmt.Errorf("store: MarkInterrupted needs non-empty statuses (got %q -> %q)", fromStatus, toStatus)
	}
	now := time.Now().UTC().Round(0)
	count := 0
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		changed, err := rewrite(ctx, tx.Bucket(bucketEvaluations), kindEvaluation, func(k, v []byte) ([]byte, error) {
			h, err := decodeEvalHeader(k, v)
			if err != nil || h.Status != fromStatus {
				return nil, err
			}
			e, err := decodeEvaluation(k, v)
			if err != nil {
				return nil, err
			}
			e.Status, e.UpdatedAt = toStatus, now
			val, err := encodeJSON(e)
			if err != nil {
				return nil, fmt.Errorf("store: encode evaluation %q: %w", k, err)
			}
			return val, nil
		})
		count = len(changed)
		return err
	})
	if err != nil {
		return 0, err
	}
	return count, nil
}
