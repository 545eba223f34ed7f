package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"go.etcd.io/bbolt"
)

// FuzzStoredEvaluation writes arbitrary bytes as a stored evaluation value
// with raw bbolt, then reads it back through every evaluation reader. They
// must return a value or an error naming the key, and never panic.
func FuzzStoredEvaluation(f *testing.F) {
	seeds := []string{
		`{"id":"x","domain":"airline","agent_url":"http://a","status":"running","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05.123456789+02:00","data":{"k":[1,2,{"z":null}]}}`,
		`{}`, `null`, `[]`, `""`, `0`, ``, `{"data":`, `{"status":1}`,
		`{"created_at":"not a time"}`, `{"created_at":null,"data":null}`,
		`{"data":"\ud800"}`, `{"id":"other-id","status":"running"}`,
		// Deeper than encoding/json's nesting limit is covered by
		// TestCorruptValues: a 20 KB seed makes minimization crawl.
		strings.Repeat("[", 100) + strings.Repeat("]", 100),
		"\x00\xff\xfe garbage",
	}
	for _, s := range seeds {
		f.Add([]byte(s), "running")
	}

	db, err := Open(filepath.Join(f.TempDir(), "fuzz.db"), WithNoSync())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	const key = "fuzzkey-0123456789"
	// A well-formed neighbour, so listing walks more than the fuzzed record.
	if err := db.PutEvaluation(ctx, Evaluation{ID: "fuzzkey-0000", Status: "running"}); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, value []byte, status string) {
		if value == nil {
			value = []byte{} // bbolt stores nil as empty anyway
		}
		err := db.sessions.bolt.Update(func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketEvaluations).Put([]byte(key), value)
		})
		if err != nil {
			t.Fatal(err)
		}
		namesKey := func(what string, err error) {
			t.Helper()
			if err != nil && !strings.Contains(err.Error(), key) {
				t.Errorf("%s: error %q does not name key %q", what, err, key)
			}
		}

		e, err := db.GetEvaluation(ctx, key)
		namesKey("GetEvaluation", err)
		if err == nil && e.ID != key {
			t.Errorf("GetEvaluation returned ID %q, want the key %q", e.ID, key)
		}
		_, err = db.GetEvaluation(ctx, key[:12])
		namesKey("GetEvaluation(prefix)", err)

		for _, lf := range []ListFilter{{}, {Status: status}, {Domain: status, Limit: 1}, {Before: "fuzzkey-1"}} {
			list, err := db.ListEvaluations(ctx, lf)
			namesKey("ListEvaluations", err)
			for _, e := range list {
				if e.ID != key && e.ID != "fuzzkey-0000" {
					t.Errorf("ListEvaluations returned unknown ID %q", e.ID)
				}
			}
		}

		if status != "" {
			_, err = db.MarkInterrupted(ctx, status, status+"-x")
			namesKey("MarkInterrupted", err)
		}
		if err := db.DeleteEvaluation(ctx, key); err != nil && !errors.Is(err, ErrNotFound) {
			t.Errorf("DeleteEvaluation: %v", err)
		}
	})
}
