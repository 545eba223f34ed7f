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
	// CreatedAt is set to now by PutConformance when zero.
	CreatedAt time.Time `json:"created_at"`
	// Data is the report. It must be valid JSON or empty.
	Data json.RawMessage `json:"data"`
}

// PutConformance inserts run or replaces the run with the same ID.
func (db *DB) PutConformance(ctx context.Context, run ConformanceRun) error {
	if err := validateID(kindConformanceRun, run.ID); err != nil {
		return err
	}
	if run.CreatedAt.IsZero() {
		run.CreatedAt = time.Now().UTC().Round(0)
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
		return tx.Bucket(bucketConformance).Put([]byte(run.ID), val)
	})
}

// GetConformance returns the run with the given id, or with the unique id
// prefix or suffix of at least 8 characters (ErrAmbiguous when it matches
// several).
// A missing run returns an error wrapping ErrNotFound.
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
		k, v, err := resolveID(b, id, kindConformanceRun)
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

// ListConformance returns runs matching f, newest first. It returns an
// empty, non-nil slice when nothing matches (or, read-only, when the file
// predates conformance runs).
func (db *DB) ListConformance(ctx context.Context, f ConformanceFilter) ([]ConformanceRun, error) {
	return listNewestFirst(ctx, db, bucketConformance, page{before: f.Before, limit: f.Limit}, func(k, v []byte) (ConformanceRun, bool, error) {
		run, err := decodeConformance(k, v)
		if err != nil || !f.matches(run) {
			return ConformanceRun{}, false, err
		}
		return run, true, nil
	})
}

func (f ConformanceFilter) matches(run ConformanceRun) bool {
	return (f.AgentURL == "" || f.AgentURL == run.AgentURL) &&
		(f.Level == "" || f.Level == run.Level)
}
