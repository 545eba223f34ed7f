package store

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"
)

func TestConformanceRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	var ids []string
	for i, agent := range []string{"http://a", "http://b", "http://a"} {
		id := NewID()
		ids = append(ids, id)
		level := "full"
		if i == 1 {
			level = "non-conformant"
		}
		if err := db.PutConformance(ctx, ConformanceRun{ID: id, AgentURL: agent, Level: level,
			Data: json.RawMessage(`{"level":"` + level + `","results":[]}`)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.GetConformance(ctx, ids[1])
	if err != nil || got.AgentURL != "http://b" || got.Level != "non-conformant" || got.CreatedAt.IsZero() ||
		!jsonEq(got.Data, []byte(`{"level":"non-conformant","results":[]}`)) {
		t.Fatalf("GetConformance = %+v, %v", got, err)
	}
	if got, err := db.GetConformance(ctx, ids[2][:30]); err != nil || got.ID != ids[2] {
		t.Errorf("by prefix: %+v, %v", got, err)
	}
	if _, err := db.GetConformance(ctx, ids[0][:8]); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("a prefix of all three: %v, want ErrAmbiguous", err)
	}
	if _, err := db.GetConformance(ctx, "0000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a short prefix: %v, want ErrNotFound", err)
	}
	if _, err := db.GetConformance(ctx, "ffffffff-no-such-run"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v, want ErrNotFound", err)
	}
	// An evaluation id is not a conformance run, and the other way round.
	if _, err := db.GetEvaluation(ctx, ids[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetEvaluation of a conformance id: %v", err)
	}

	all, err := db.ListConformance(ctx, ConformanceFilter{})
	if err != nil || len(all) != 3 || all[0].ID != ids[2] || all[2].ID != ids[0] {
		t.Fatalf("ListConformance = %v, %v (want newest first)", all, err)
	}
	if a, _ := db.ListConformance(ctx, ConformanceFilter{AgentURL: "http://a"}); len(a) != 2 {
		t.Errorf("by agent: %d runs", len(a))
	}
	if a, _ := db.ListConformance(ctx, ConformanceFilter{Level: "non-conformant"}); len(a) != 1 || a[0].ID != ids[1] {
		t.Errorf("by level: %v", a)
	}
	page, _ := db.ListConformance(ctx, ConformanceFilter{Limit: 1, Before: ids[2]})
	if len(page) != 1 || page[0].ID != ids[1] {
		t.Errorf("page before the newest: %v", page)
	}
}

func TestPutConformanceInvalid(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	if err := db.PutConformance(ctx, ConformanceRun{ID: ""}); err == nil {
		t.Error("empty id accepted")
	}
	if err := db.PutConformance(ctx, ConformanceRun{ID: NewID(), Data: json.RawMessage(`{`)}); err == nil {
		t.Error("invalid JSON accepted")
	}
}

// A database written before conformance runs existed: a reader lists none,
// a writable Open adds the bucket and keeps everything else.
func TestConformanceOnOlderDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "proctor.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	evalID := NewID()
	mustPutEval(t, db, Evaluation{ID: evalID, Status: "completed"})
	db.Close()
	raw, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket(bucketConformance) }); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	ro, err := Open(path, WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	if runs, err := ro.ListConformance(ctx, ConformanceFilter{}); err != nil || len(runs) != 0 {
		t.Errorf("ListConformance on an older file = %v, %v", runs, err)
	}
	if _, err := ro.GetConformance(ctx, "whatever-id"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetConformance on an older file: %v", err)
	}
	ro.Close()

	rw, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if err := rw.PutConformance(ctx, ConformanceRun{ID: NewID(), Level: "full"}); err != nil {
		t.Fatal(err)
	}
	if _, err := rw.GetEvaluation(ctx, evalID); err != nil {
		t.Errorf("evaluation lost: %v", err)
	}
	if v := readSchemaVersionLive(t, rw); v != "1" {
		t.Errorf("schema_version = %q, want 1", v)
	}
}
