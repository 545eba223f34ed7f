package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.etcd.io/bbolt"
)

// ConformanceRun is a stored conformance report (package conformance):
// the fields the store filters on, plus the caller's report as opaque
// JSON.
type ConformanceRun struct {
	// ID is the key; use NewID so that keys sort by creation time.
	ID string `json:"id"`
	// AgentURL is the checked agent's URL, compared verbatim by
	// ConformanceFilter.
	AgentURL string `json:"agent_url"`
	// Level is the report's verdict (full, partial, minimal,
	// non-conformant).
	Level string `json:"level"`
	// Tenant owns the run: PutConformance sets it on a new run from its
	// context when empty, and keeps a stored run's (see Tenant).
	Tenant string `json:"tenant,omitempty"`
	// CreatedAt is set to now by PutConformance when zero.
	CreatedAt time.Time `json:"created_at"`
	// Data is the report. It must be valid JSON or empty.
	Data json.RawMessage `json:"data"`
}

// PutConformance inserts run or replaces the run with the same ID. A
// replaced run keeps its owner; a new one belongs to run.Tenant, or else
// to ctx's tenant. A tenant may not replace a run it does not see.
func (db *DB) PutConformance(ctx context.Context, run ConformanceRun) error {
	if err := validateID(kindConformanceRun, run.ID); err != nil {
		return err
	}
	if run.CreatedAt.IsZero() {
		run.CreatedAt = time.Now().UTC().Round(0)
	}
	if run.Tenant == "" {
		run.Tenant = tenantName(ctx)
	}
	run.Data = normRaw(run.Data)
	if run.Data != nil && !json.Valid(run.Data) {
		return fmt.Errorf("store: data of conformance run %q is not valid JSON", run.ID)
	}
	val, err := encodeJSON(run)
	if err != nil {
		return fmt.Errorf("store: encode conformance run %q: %w", run.ID, err)
	}
	if err := db.checkSize(fmt.Sprintf("conformance run %q", run.ID), len(val)); err != nil {
		return err
	}
	return db.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketConformance)
		if old := b.Get([]byte(run.ID)); old != nil {
			prev, err := decodeConformance([]byte(run.ID), old)
			if err == nil && !sees(ctx, prev.Tenant) {
				return fmt.Errorf("%w: conformance run %q", ErrNotFound, run.ID)
			}
			if err == nil && prev.Tenant != run.Tenant {
				return db.putConformance(b, run, prev.Tenant)
			}
		}
		return b.Put([]byte(run.ID), val)
	})
}

// putConformance stores run as owned by owner.
func (db *DB) putConformance(b *bbolt.Bucket, run ConformanceRun, owner string) error {
	run.Tenant = owner
	val, err := encodeJSON(run)
	if err != nil {
		return fmt.Errorf("store: encode conformance run %q: %w", run.ID, err)
	}
	return b.Put([]byte(run.ID), val)
}

// GetConformance returns the run with the given id, or with the unique id
// prefix or suffix of at least 8 characters (ErrAmbiguous when it matches
// several).
// A missing run returns an error wrapping ErrNotFound, and so does one
// ctx's tenant does not see.
func (db *DB) GetConformance(ctx context.Context, id string) (ConformanceRun, error) {
	if id == "" {
		return ConformanceRun{}, fmt.Errorf("%w: empty conformance run id", ErrNotFound)
	}
	var out ConformanceRun
	err := db.view(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketConformance)
		if b == nil {
			return fmt.Errorf("%w: conformance run %q", ErrNotFound, id)
		}
		k, v, err := resolveID(b, id, kindConformanceRun, conformanceVisible(ctx))
		if err != nil {
			return err
		}
		out, err = decodeConformance(k, v)
		return err
	})
	if err != nil {
		return ConformanceRun{}, err
	}
	return out, nil
}

// conformanceVisible is resolveID's filter of the runs ctx sees: nil,
// every one, when it is not restricted.
func conformanceVisible(ctx context.Context) func(k, v []byte) bool {
	if !restricted(ctx) {
		return nil
	}
	return func(k, v []byte) bool {
		run, err := decodeConformance(k, v)
		return err == nil && sees(ctx, run.Tenant)
	}
}

func decodeConformance(key, v []byte) (ConformanceRun, error) {
	if v == nil {
		return ConformanceRun{}, fmt.Errorf("store: corrupt conformance run %q: a nested bucket where a record was expected", key)
	}
	var run ConformanceRun
	if err := json.Unmarshal(v, &run); err != nil {
		return ConformanceRun{}, fmt.Errorf("store: corrupt conformance run %q: %w", key, err)
	}
	run.ID = string(key)
	run.Data = normRaw(run.Data)
	return run, nil
}

// ConformanceFilter selects runs for ListConformance.
type ConformanceFilter struct {
	// AgentURL and Level, when set, must equal the run's.
	AgentURL, Level string
	// Limit is the most runs returned: 0 means 50, negative no limit.
	Limit int
	// Before pages: only runs whose id sorts before it (older ones).
	Before string
}

// ListConformance returns runs matching f that ctx's tenant sees, newest
// first. It returns an
// empty, non-nil slice when nothing matches (or, read-only, when the file
// predates conformance runs).
func (db *DB) ListConformance(ctx context.Context, f ConformanceFilter) ([]ConformanceRun, error) {
	return listNewestFirst(ctx, db, bucketConformance, page{before: f.Before, limit: f.Limit}, func(k, v []byte) (ConformanceRun, bool, error) {
		run, err := decodeConformance(k, v)
		if err != nil || !f.matches(run) || !sees(ctx, run.Tenant) {
			return ConformanceRun{}, false, err
		}
		return run, true, nil
	})
}

func (f ConformanceFilter) matches(run ConformanceRun) bool {
	return (f.AgentURL == "" || f.AgentURL == run.AgentURL) &&
		(f.Level == "" || f.Level == run.Level)
}
