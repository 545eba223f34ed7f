package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestGetSimulation reads one simulation, and says ErrNotFound for a
// missing one or a missing evaluation.
func TestGetSimulation(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	mustPutEval(t, db, Evaluation{ID: "e1", Domain: "mock", Status: "completed"})
	want := Simulation{ID: "task#1", TaskID: "task", Trial: 1, Reward: 0.5, Data: json.RawMessage(`{"a":1}`)}
	if err := db.PutSimulation(ctx, "e1", Simulation{ID: want.ID, TaskID: want.TaskID, Trial: 1, Reward: 0.5, Data: want.Data, Requests: json.RawMessage(`[{"latency_ms":3}]`)}); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetSimulation(ctx, "e1", "task#1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetSimulation (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ eval, sim string }{{"e1", "task#2"}, {"e1", ""}, {"nope", "task#1"}, {"", ""}} {
		if _, err := db.GetSimulation(ctx, tc.eval, tc.sim); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetSimulation(%q, %q): %v, want ErrNotFound", tc.eval, tc.sim, err)
		}
	}
}

// TestEvalHeaderFieldOrder reads a record's header whatever the order of
// its fields, and stops short of the payload only when the header came
// first.
func TestEvalHeaderFieldOrder(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	want := evalHeader{Kind: "evalsets", Domain: "mock", AgentURL: "http://a", Status: "completed", CreatedAt: created}
	for name, rec := range map[string]string{
		"as stored":            `{"id":"x","kind":"evalsets","domain":"mock","agent_url":"http://a","status":"completed","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","data":{"big":[1,2,3]}}`,
		"payload first":        `{"data":{"big":[1,2,3]},"kind":"evalsets","domain":"mock","agent_url":"http://a","status":"completed","created_at":"2026-01-02T03:04:05Z"}`,
		"corrupt payload last": `{"kind":"evalsets","domain":"mock","agent_url":"http://a","status":"completed","created_at":"2026-01-02T03:04:05Z","data":{"big":[1,2`,
	} {
		got, err := decodeEvalHeader([]byte("x"), []byte(rec))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for _, rec := range []string{`[]`, `{"domain":`, `{"domain":1}`, ``} {
		if _, err := decodeEvalHeader([]byte("x"), []byte(rec)); err == nil {
			t.Errorf("decodeEvalHeader(%q) accepted a corrupt record", rec)
		}
	}
}
