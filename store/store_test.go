package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.etcd.io/bbolt"
)

func openTemp(t testing.TB, opts ...Option) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub", "dir", "proctor.db")
	db, err := Open(path, append([]Option{WithNoSync()}, opts...)...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func mustPutEval(t testing.TB, db *DB, e Evaluation) {
	t.Helper()
	if err := db.PutEvaluation(context.Background(), e); err != nil {
		t.Fatalf("PutEvaluation(%q): %v", e.ID, err)
	}
}

// jsonEq reports whether two JSON texts are equal after compaction.
func jsonEq(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

func TestOpenCreatesDirsAndModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "proctor.db")
	db, err := Open(path, WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
	}
	if runtime.GOOS == "windows" {
		return
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := di.Mode().Perm(); m != 0o700 {
		t.Errorf("dir mode = %o, want 700", m)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m&^0o600 != 0 {
		t.Errorf("file mode = %o, want at most 600", m)
	}
}

func TestEvaluationRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	tests := []struct {
		name string
		in   Evaluation
		// wantData is the expected Data after the round trip.
		wantData json.RawMessage
	}{
		{"full", Evaluation{ID: NewID(), Domain: "airline", AgentURL: "http://a", Status: "running", CreatedAt: created, UpdatedAt: created.Add(time.Second), Data: json.RawMessage(`{"a":1,"html":"<b>&</b>"}`)}, json.RawMessage(`{"a":1,"html":"<b>&</b>"}`)},
		{"whitespace data is compacted", Evaluation{ID: NewID(), Data: json.RawMessage(" { \"a\" : [1, 2] }\n")}, json.RawMessage(`{"a":[1,2]}`)},
		{"nil data", Evaluation{ID: NewID()}, nil},
		{"null data", Evaluation{ID: NewID(), Data: json.RawMessage("null")}, nil},
		{"empty data", Evaluation{ID: NewID(), Data: json.RawMessage{}}, nil},
		{"caller id", Evaluation{ID: "my-eval/with spaces é", Status: "completed", Data: json.RawMessage(`[1,"x"]`)}, json.RawMessage(`[1,"x"]`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now()
			mustPutEval(t, db, tt.in)
			got, err := db.GetEvaluation(ctx, tt.in.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != tt.in.ID || got.Domain != tt.in.Domain || got.AgentURL != tt.in.AgentURL || got.Status != tt.in.Status {
				t.Errorf("got %+v, want %+v", got, tt.in)
			}
			if !bytes.Equal(got.Data, tt.wantData) {
				t.Errorf("Data = %q, want %q", got.Data, tt.wantData)
			}
			if tt.in.UpdatedAt.IsZero() {
				if got.UpdatedAt.Before(before.Add(-time.Second)) || got.UpdatedAt.After(time.Now().Add(time.Second)) {
					t.Errorf("UpdatedAt = %v, want about now", got.UpdatedAt)
				}
				if !got.CreatedAt.Equal(got.UpdatedAt) {
					t.Errorf("CreatedAt = %v, want UpdatedAt %v", got.CreatedAt, got.UpdatedAt)
				}
			} else {
				if !got.UpdatedAt.Equal(tt.in.UpdatedAt) || !got.CreatedAt.Equal(tt.in.CreatedAt) {
					t.Errorf("times = %v/%v, want %v/%v", got.CreatedAt, got.UpdatedAt, tt.in.CreatedAt, tt.in.UpdatedAt)
				}
			}
		})
	}
}

func TestPutEvaluationReplaceKeepsCreatedAt(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	created := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	id := NewID()
	mustPutEval(t, db, Evaluation{ID: id, Status: "running", CreatedAt: created})
	// The replacement forgets CreatedAt: the stored one is kept.
	mustPutEval(t, db, Evaluation{ID: id, Status: "completed", Data: json.RawMessage(`{"x":true}`)})
	got, err := db.GetEvaluation(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "completed" || !got.CreatedAt.Equal(created) || string(got.Data) != `{"x":true}` {
		t.Errorf("got %+v", got)
	}
}

func TestPutEvaluationInvalid(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t, withMaxRecordSize(1000))
	big := json.RawMessage(`"` + strings.Repeat("x", 1000) + `"`)
	// Fits alone but not with the rest of the record.
	almost := json.RawMessage(`"` + strings.Repeat("x", 990) + `"`)
	tests := []struct {
		name, wantSub string
		e             Evaluation
	}{
		{"empty id", "empty evaluation id", Evaluation{}},
		{"long id", "longer than", Evaluation{ID: strings.Repeat("x", maxIDLen+1)}},
		{"bad json", "encode evaluation", Evaluation{ID: "x", Data: json.RawMessage(`{bad`)}},
		{"data too large", "larger than the limit of 1000 bytes per record", Evaluation{ID: "big", Data: big}},
		{"record too large", "larger than the limit of 1000 bytes per record", Evaluation{ID: "big", Data: almost}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := db.PutEvaluation(ctx, tt.e)
			if err == nil || !strings.Contains(err.Error(), tt.wantSub) {
				t.Fatalf("err = %v, want containing %q", err, tt.wantSub)
			}
		})
	}
	if _, err := db.GetEvaluation(ctx, "big"); !errors.Is(err, ErrNotFound) {
		t.Errorf("oversized record was stored: %v", err)
	}
}

func TestGetEvaluationPrefix(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	for _, id := range []string{"aaaaaaaa-1111", "aaaaaaaa-1112", "aaaaaaaa-2222", "bbbbbbbb-0000", "abc"} {
		mustPutEval(t, db, Evaluation{ID: id, Status: "s-" + id})
	}
	tests := []struct {
		name, id, wantID string
		wantNotFound     bool
		wantErrSub       []string
	}{
		{"exact", "aaaaaaaa-1111", "aaaaaaaa-1111", false, nil},
		{"exact short id", "abc", "abc", false, nil},
		{"unique prefix", "aaaaaaaa-2", "aaaaaaaa-2222", false, nil},
		{"unique 8-char prefix", "bbbbbbbb", "bbbbbbbb-0000", false, nil},
		{"ambiguous", "aaaaaaaa-111", "", false, []string{"ambiguous", "aaaaaaaa-1111", "aaaaaaaa-1112", "matches 2"}},
		{"ambiguous 8 chars", "aaaaaaaa", "", false, []string{"ambiguous", "matches 3"}},
		{"too short prefix", "bbbb", "", true, []string{"bbbb", "at least 8"}},
		{"no match", "cccccccc", "", true, []string{"cccccccc"}},
		{"empty", "", "", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.GetEvaluation(ctx, tt.id)
			if tt.wantID != "" {
				if err != nil || got.ID != tt.wantID || got.Status != "s-"+tt.wantID {
					t.Fatalf("GetEvaluation(%q) = %+v, %v; want %q", tt.id, got, err, tt.wantID)
				}
				return
			}
			if err == nil {
				t.Fatalf("GetEvaluation(%q) = %+v, want error", tt.id, got)
			}
			if errors.Is(err, ErrNotFound) != tt.wantNotFound {
				t.Errorf("errors.Is(%v, ErrNotFound) = %v, want %v", err, !tt.wantNotFound, tt.wantNotFound)
			}
			if wantAmbiguous := strings.HasPrefix(tt.name, "ambiguous"); errors.Is(err, ErrAmbiguous) != wantAmbiguous {
				t.Errorf("errors.Is(%v, ErrAmbiguous) = %v, want %v", err, !wantAmbiguous, wantAmbiguous)
			}
			for _, sub := range tt.wantErrSub {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q lacks %q", err, sub)
				}
			}
		})
	}
}

func TestAmbiguousPrefixListsAtMostFive(t *testing.T) {
	db := openTemp(t)
	for i := range 8 {
		mustPutEval(t, db, Evaluation{ID: fmt.Sprintf("deadbeef-%d", i)})
	}
	_, err := db.GetEvaluation(context.Background(), "deadbeef")
	if err == nil || !strings.Contains(err.Error(), "and 3 more") || strings.Contains(err.Error(), "deadbeef-7") {
		t.Fatalf("err = %v", err)
	}
}

func TestNewIDSortsByCreation(t *testing.T) {
	prev := NewID()
	for range 1000 {
		id := NewID()
		if id <= prev {
			t.Fatalf("NewID %q not after %q", id, prev)
		}
		if len(id) != 36 || id[14] != '7' {
			t.Fatalf("NewID %q is not a UUIDv7 string", id)
		}
		prev = id
	}
}

func ids(es []Evaluation) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestListEvaluations(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	// 60 evaluations, oldest first; domain alternates, agent cycles of 3,
	// status "completed" except every 5th "running".
	var all []string
	for i := range 60 {
		id := NewID()
		all = append(all, id)
		st := "completed"
		if i%5 == 0 {
			st = "running"
		}
		mustPutEval(t, db, Evaluation{
			ID: id, Domain: []string{"airline", "retail"}[i%2], Kind: []string{"", KindSimulations, "", KindEvalSets}[i%4],
			AgentURL: fmt.Sprintf("http://agent%d", i%3), Status: st,
			Data: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)),
		})
	}
	newest := slices.Clone(all)
	slices.Reverse(newest)
	pick := func(pred func(i int) bool) []string {
		var out []string
		for j := len(all) - 1; j >= 0; j-- {
			if pred(j) {
				out = append(out, all[j])
			}
		}
		return out
	}
	tests := []struct {
		name string
		f    ListFilter
		want []string
	}{
		{"default limit 50", ListFilter{}, newest[:50]},
		{"no limit", ListFilter{Limit: -1}, newest},
		{"limit 3", ListFilter{Limit: 3}, newest[:3]},
		{"before newest", ListFilter{Limit: 2, Before: newest[0]}, newest[1:3]},
		{"before middle", ListFilter{Limit: 5, Before: newest[10]}, newest[11:16]},
		{"before oldest", ListFilter{Before: newest[59]}, []string{}},
		{"before after everything", ListFilter{Limit: 1, Before: "zzzz"}, newest[:1]},
		{"before before everything", ListFilter{Before: "0"}, []string{}},
		{"before non-existent id", ListFilter{Limit: 2, Before: newest[3] + "x"}, newest[3:5]},
		{"domain", ListFilter{Domain: "retail", Limit: -1}, pick(func(i int) bool { return i%2 == 1 })},
		{"eval-set runs", ListFilter{Kind: KindEvalSets, Limit: -1}, pick(func(i int) bool { return i%4 == 3 })},
		{"simulations, unkinded included", ListFilter{Kind: KindSimulations, Limit: -1}, pick(func(i int) bool { return i%4 != 3 })},
		{"agent", ListFilter{AgentURL: "http://agent2", Limit: 4}, pick(func(i int) bool { return i%3 == 2 })[:4]},
		{"status", ListFilter{Status: "running"}, pick(func(i int) bool { return i%5 == 0 })},
		{"all filters", ListFilter{Domain: "airline", AgentURL: "http://agent0", Status: "running"}, pick(func(i int) bool { return i%2 == 0 && i%3 == 0 && i%5 == 0 })},
		{"filters with before", ListFilter{Status: "running", Limit: 2, Before: all[40]}, pick(func(i int) bool { return i%5 == 0 && i < 40 })[:2]},
		{"no match", ListFilter{Domain: "telecom"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.ListEvaluations(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("nil slice")
			}
			if g := ids(got); !slices.Equal(g, tt.want) {
				t.Errorf("got %d ids %v\nwant %d ids %v", len(g), g, len(tt.want), tt.want)
			}
			for _, e := range got {
				if len(e.Data) == 0 || e.UpdatedAt.IsZero() {
					t.Errorf("evaluation %s not fully decoded: %+v", e.ID, e)
				}
			}
		})
	}

	// Paging through everything with Before visits each evaluation once.
	var paged []string
	f := ListFilter{Limit: 7}
	for {
		page, err := db.ListEvaluations(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		paged = append(paged, ids(page)...)
		f.Before = page[len(page)-1].ID
	}
	if !slices.Equal(paged, newest) {
		t.Errorf("paging got %v, want %v", paged, newest)
	}
}

func TestListEvaluationsEmpty(t *testing.T) {
	got, err := openTemp(t).ListEvaluations(context.Background(), ListFilter{})
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestSimulationsRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	evalID := NewID()
	mustPutEval(t, db, Evaluation{ID: evalID, Status: "running"})

	sims := []Simulation{
		{ID: "task-2#0", TaskID: "task-2", Trial: 0, Reward: 1, Data: json.RawMessage(`{"t":"<x>"}`), Requests: json.RawMessage(`[{"latency_ms":5}]`)},
		{ID: "task-10#1", TaskID: "task-10", Trial: 1, Reward: 0.25, Data: json.RawMessage(`{"t":2}`), Requests: json.RawMessage(" [ ] ")},
		{ID: "task-1#0", TaskID: "task-1", Trial: 0, Reward: 0},
	}
	for _, s := range sims {
		if err := db.PutSimulation(ctx, evalID, s); err != nil {
			t.Fatalf("PutSimulation(%q): %v", s.ID, err)
		}
	}
	got, err := db.Simulations(ctx, evalID)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder := []string{"task-1#0", "task-10#1", "task-2#0"}
	if len(got) != len(wantOrder) {
		t.Fatalf("got %d simulations", len(got))
	}
	byID := map[string]Simulation{}
	for _, s := range sims {
		byID[s.ID] = s
	}
	for i, g := range got {
		if g.ID != wantOrder[i] {
			t.Errorf("got[%d].ID = %q, want %q", i, g.ID, wantOrder[i])
		}
		w := byID[g.ID]
		if g.TaskID != w.TaskID || g.Trial != w.Trial || g.Reward != w.Reward || !jsonEq(g.Data, w.Data) {
			t.Errorf("got %+v, want %+v", g, w)
		}
		if g.Requests != nil {
			t.Errorf("Simulations returned Requests for %q", g.ID)
		}
		req, err := db.Requests(ctx, evalID, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEq(req, w.Requests) {
			t.Errorf("Requests(%q) = %q, want %q", g.ID, req, w.Requests)
		}
	}

	all, err := db.AllRequests(ctx, evalID)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || !jsonEq(all["task-2#0"], sims[0].Requests) || !jsonEq(all["task-10#1"], sims[1].Requests) {
		t.Errorf("AllRequests = %q, want the two simulations' metrics as Requests returns them", all)
	}
	if _, err := db.AllRequests(ctx, NewID()); !errors.Is(err, ErrNotFound) {
		t.Errorf("AllRequests of a missing evaluation: %v, want ErrNotFound", err)
	}

	ids, err := db.SimulationIDs(ctx, evalID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || !ids["task-1#0"] || !ids["task-10#1"] || !ids["task-2#0"] {
		t.Errorf("SimulationIDs = %v", ids)
	}

	// Replacing without Requests drops the old request metrics.
	if err := db.PutSimulation(ctx, evalID, Simulation{ID: "task-2#0", TaskID: "task-2", Reward: 0.5}); err != nil {
		t.Fatal(err)
	}
	if req, err := db.Requests(ctx, evalID, "task-2#0"); err != nil || req != nil {
		t.Errorf("Requests after replace = %q, %v; want nil, nil", req, err)
	}
	got, _ = db.Simulations(ctx, evalID)
	if len(got) != 3 || got[2].Reward != 0.5 || got[2].Data != nil {
		t.Errorf("after replace: %+v", got)
	}
}

func TestSimulationErrors(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	evalID := NewID()
	mustPutEval(t, db, Evaluation{ID: evalID})
	if err := db.PutSimulation(ctx, evalID, Simulation{ID: "s"}); err != nil {
		t.Fatal(err)
	}

	notFound := []struct {
		name string
		call func() error
	}{
		{"PutSimulation unknown eval", func() error { return db.PutSimulation(ctx, "nope", Simulation{ID: "s"}) }},
		{"Simulations unknown eval", func() error { _, err := db.Simulations(ctx, "nope"); return err }},
		{"SimulationIDs unknown eval", func() error { _, err := db.SimulationIDs(ctx, "nope"); return err }},
		{"Requests unknown eval", func() error { _, err := db.Requests(ctx, "nope", "s"); return err }},
		{"Requests unknown sim", func() error { _, err := db.Requests(ctx, evalID, "other"); return err }},
		{"DeleteEvaluation unknown", func() error { return db.DeleteEvaluation(ctx, "nope") }},
	}
	for _, tt := range notFound {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
			if !strings.Contains(err.Error(), `"nope"`) && !strings.Contains(err.Error(), `"other"`) {
				t.Errorf("error %q does not name the id", err)
			}
		})
	}
	if _, err := db.SimulationIDs(ctx, "nope"); err == nil {
		t.Error("want error")
	}

	invalid := []struct {
		name, wantSub string
		evalID        string
		s             Simulation
	}{
		{"empty sim id", "empty simulation id", evalID, Simulation{}},
		{"empty eval id", "empty evaluation id", "", Simulation{ID: "s"}},
		{"NaN reward", "not a finite", evalID, Simulation{ID: "s", Reward: nan()}},
		{"bad data", "encode simulation", evalID, Simulation{ID: "s", Data: json.RawMessage(`{`)}},
		{"bad requests", "not valid JSON", evalID, Simulation{ID: "s", Requests: json.RawMessage(`[1,`)}},
	}
	for _, tt := range invalid {
		t.Run(tt.name, func(t *testing.T) {
			err := db.PutSimulation(ctx, tt.evalID, tt.s)
			if err == nil || !strings.Contains(err.Error(), tt.wantSub) {
				t.Fatalf("err = %v, want containing %q", err, tt.wantSub)
			}
		})
	}

	t.Run("too large", func(t *testing.T) {
		limited := *db // the same database behind a handle with a lower limit
		limited.maxRecord = 1000
		db := &limited
		big := json.RawMessage(`"` + strings.Repeat("x", 995) + `"`)     // record too large
		bigger := json.RawMessage(`"` + strings.Repeat("x", 1000) + `"`) // payload too large
		for _, s := range []Simulation{{ID: "big", Data: big}, {ID: "big", Data: bigger}, {ID: "big", Requests: bigger}} {
			err := db.PutSimulation(ctx, evalID, s)
			if err == nil || !strings.Contains(err.Error(), "larger than the limit of 1000 bytes") {
				t.Errorf("err = %v", err)
			}
		}
		if _, err := db.Requests(ctx, evalID, "big"); !errors.Is(err, ErrNotFound) {
			t.Errorf("oversized simulation stored: %v", err)
		}
	})

	// An evaluation without simulations yields empty, non-nil results.
	empty := NewID()
	mustPutEval(t, db, Evaluation{ID: empty})
	if s, err := db.Simulations(ctx, empty); err != nil || s == nil || len(s) != 0 {
		t.Errorf("Simulations(empty) = %v, %v", s, err)
	}
	if m, err := db.SimulationIDs(ctx, empty); err != nil || m == nil || len(m) != 0 {
		t.Errorf("SimulationIDs(empty) = %v, %v", m, err)
	}
}

func nan() float64 {
	var zero float64
	return zero / zero
}

func TestDeleteEvaluationCascades(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	victim, keep := NewID(), NewID()
	for _, id := range []string{victim, keep} {
		mustPutEval(t, db, Evaluation{ID: id})
		for i := range 3 {
			s := Simulation{ID: fmt.Sprintf("t%d", i), Requests: json.RawMessage(`[1]`)}
			if err := db.PutSimulation(ctx, id, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.DeleteEvaluation(ctx, victim); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetEvaluation(ctx, victim); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetEvaluation after delete: %v", err)
	}
	if _, err := db.Simulations(ctx, victim); !errors.Is(err, ErrNotFound) {
		t.Errorf("Simulations after delete: %v", err)
	}
	err := db.sessions.bolt.View(func(tx *bbolt.Tx) error {
		for _, name := range [][]byte{bucketSimulations, bucketRequests} {
			if tx.Bucket(name).Bucket([]byte(victim)) != nil {
				t.Errorf("bucket %s/%s survived the delete", name, victim)
			}
			if tx.Bucket(name).Bucket([]byte(keep)) == nil {
				t.Errorf("bucket %s/%s was deleted", name, keep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Re-creating the evaluation starts with no simulations.
	mustPutEval(t, db, Evaluation{ID: victim})
	if m, err := db.SimulationIDs(ctx, victim); err != nil || len(m) != 0 {
		t.Errorf("SimulationIDs after re-create = %v, %v", m, err)
	}
	if m, err := db.SimulationIDs(ctx, keep); err != nil || len(m) != 3 {
		t.Errorf("SimulationIDs(keep) = %v, %v", m, err)
	}
	if req, err := db.Requests(ctx, keep, "t1"); err != nil || string(req) != "[1]" {
		t.Errorf("Requests(keep) = %q, %v", req, err)
	}
	// Prefixes are not accepted for deletion.
	if err := db.DeleteEvaluation(ctx, keep[:12]); !errors.Is(err, ErrNotFound) {
		t.Errorf("DeleteEvaluation(prefix) = %v, want ErrNotFound", err)
	}
}

func TestMarkInterrupted(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	statuses := []string{"running", "completed", "running", "failed", "running"}
	var evalIDs []string
	for _, st := range statuses {
		id := NewID()
		evalIDs = append(evalIDs, id)
		mustPutEval(t, db, Evaluation{ID: id, Status: st, CreatedAt: old, UpdatedAt: old, Data: json.RawMessage(`{"keep":1}`)})
	}
	n, err := db.MarkInterrupted(ctx, "running", "interrupted")
	if err != nil || n != 3 {
		t.Fatalf("MarkInterrupted = %d, %v; want 3", n, err)
	}
	for i, id := range evalIDs {
		e, err := db.GetEvaluation(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := statuses[i]
		if want == "running" {
			want = "interrupted"
			if !e.UpdatedAt.After(old) {
				t.Errorf("UpdatedAt not bumped: %v", e.UpdatedAt)
			}
		} else if !e.UpdatedAt.Equal(old) {
			t.Errorf("unchanged evaluation's UpdatedAt changed: %v", e.UpdatedAt)
		}
		if e.Status != want || !e.CreatedAt.Equal(old) || string(e.Data) != `{"keep":1}` {
			t.Errorf("evaluation %d = %+v, want status %q and other fields kept", i, e, want)
		}
	}
	if n, err := db.MarkInterrupted(ctx, "running", "interrupted"); err != nil || n != 0 {
		t.Errorf("second MarkInterrupted = %d, %v; want 0", n, err)
	}
	if _, err := db.MarkInterrupted(ctx, "", "x"); err == nil {
		t.Error("empty fromStatus accepted")
	}
}

func TestContextCanceled(t *testing.T) {
	db := openTemp(t)
	id := NewID()
	mustPutEval(t, db, Evaluation{ID: id})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"PutEvaluation":    func() error { return db.PutEvaluation(ctx, Evaluation{ID: "x"}) },
		"GetEvaluation":    func() error { _, err := db.GetEvaluation(ctx, id); return err },
		"ListEvaluations":  func() error { _, err := db.ListEvaluations(ctx, ListFilter{}); return err },
		"DeleteEvaluation": func() error { return db.DeleteEvaluation(ctx, id) },
		"PutSimulation":    func() error { return db.PutSimulation(ctx, id, Simulation{ID: "s"}) },
		"Simulations":      func() error { _, err := db.Simulations(ctx, id); return err },
		"SimulationIDs":    func() error { _, err := db.SimulationIDs(ctx, id); return err },
		"Requests":         func() error { _, err := db.Requests(ctx, id, "s"); return err },
		"MarkInterrupted":  func() error { _, err := db.MarkInterrupted(ctx, "a", "b"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
	}
	if _, err := db.GetEvaluation(context.Background(), id); err != nil {
		t.Errorf("evaluation changed under a canceled context: %v", err)
	}
}

func TestReopenPersistence(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "proctor.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id := NewID()
	mustPutEval(t, db, Evaluation{ID: id, Domain: "retail", Status: "completed", Data: json.RawMessage(`{"n":1}`)})
	if err := db.PutSimulation(ctx, id, Simulation{ID: "a#0", TaskID: "a", Reward: 1, Data: json.RawMessage(`{}`), Requests: json.RawMessage(`[{"ms":3}]`)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := db.GetEvaluation(ctx, id); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("GetEvaluation on closed db: %v", err)
	}

	for _, opts := range [][]Option{nil, {WithReadOnly()}} {
		db, err := Open(path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		e, err := db.GetEvaluation(ctx, id)
		if err != nil || e.Domain != "retail" || string(e.Data) != `{"n":1}` {
			t.Errorf("after reopen: %+v, %v", e, err)
		}
		sims, err := db.Simulations(ctx, id)
		if err != nil || len(sims) != 1 || sims[0].TaskID != "a" || sims[0].Reward != 1 {
			t.Errorf("after reopen: %+v, %v", sims, err)
		}
		req, err := db.Requests(ctx, id, "a#0")
		if err != nil || string(req) != `[{"ms":3}]` {
			t.Errorf("after reopen: %q, %v", req, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing", "proctor.db")
	if _, err := Open(missing, WithReadOnly()); err == nil {
		t.Fatal("read-only Open of a missing file succeeded")
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Errorf("read-only Open created %s", filepath.Dir(missing))
	}

	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(empty, WithReadOnly()); err == nil || !strings.Contains(err.Error(), "empty file") {
		t.Errorf("read-only Open of an empty file: %v", err)
	}

	path := filepath.Join(dir, "proctor.db")
	rw, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id := NewID()
	mustPutEval(t, rw, Evaluation{ID: id, Status: "running"})
	rw.Close()

	ro1, err := Open(path, WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ro1.Close()
	// Readers share the lock.
	ro2, err := Open(path, WithReadOnly(), WithLockTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	defer ro2.Close()
	// A writer is excluded while readers hold the lock.
	if _, err := Open(path, WithLockTimeout(100*time.Millisecond)); !errors.Is(err, ErrLocked) {
		t.Errorf("writer while readers hold the lock: %v, want ErrLocked", err)
	}

	writes := map[string]func() error{
		"PutEvaluation":    func() error { return ro1.PutEvaluation(ctx, Evaluation{ID: "x"}) },
		"PutSimulation":    func() error { return ro1.PutSimulation(ctx, id, Simulation{ID: "s"}) },
		"DeleteEvaluation": func() error { return ro1.DeleteEvaluation(ctx, id) },
		"MarkInterrupted":  func() error { _, err := ro1.MarkInterrupted(ctx, "running", "x"); return err },
	}
	for name, call := range writes {
		if err := call(); err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("%s on read-only db: %v", name, err)
		}
	}
	if e, err := ro1.GetEvaluation(ctx, id); err != nil || e.Status != "running" {
		t.Errorf("GetEvaluation = %+v, %v", e, err)
	}
}

func TestReadOnlyOnUninitializedFile(t *testing.T) {
	// A bbolt file without our buckets (e.g. an empty one created by bbolt
	// itself) reads as an empty database in read-only mode.
	path := filepath.Join(t.TempDir(), "proctor.db")
	raw, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := Open(path, WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if l, err := db.ListEvaluations(ctx, ListFilter{}); err != nil || len(l) != 0 {
		t.Errorf("List = %v, %v", l, err)
	}
	if _, err := db.GetEvaluation(ctx, "whatever-long-id"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get = %v", err)
	}
	if _, err := db.Simulations(ctx, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Simulations = %v", err)
	}
}

func readSchemaVersion(t *testing.T, path string) string {
	t.Helper()
	raw, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var v string
	_ = raw.View(func(tx *bbolt.Tx) error {
		if b := tx.Bucket(bucketMeta); b != nil {
			v = string(b.Get(keySchemaVersion))
		}
		return nil
	})
	return v
}

func TestSchemaVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proctor.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustPutEval(t, db, Evaluation{ID: NewID()})
	db.Close()
	if v := readSchemaVersion(t, path); v != "1" {
		t.Fatalf("schema_version = %q, want %q", v, "1")
	}

	// Reopening an initialized database writes nothing at all.
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("reopening an initialized database modified the file")
	}
	if v := readSchemaVersion(t, path); v != "1" {
		t.Fatalf("schema_version after reopen = %q", v)
	}

	tests := []struct {
		name, value, wantSub string
	}{
		{"newer", "2", "schema version 2, newer"},
		{"garbage", "x1", "invalid meta/schema_version"},
		{"zero", "0", "invalid meta/schema_version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			err = raw.Update(func(tx *bbolt.Tx) error {
				return tx.Bucket(bucketMeta).Put(keySchemaVersion, []byte(tt.value))
			})
			raw.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range [][]Option{nil, {WithReadOnly()}} {
				db, err := Open(path, opts...)
				if err == nil {
					db.Close()
					t.Fatal("Open succeeded")
				}
				if !strings.Contains(err.Error(), tt.wantSub) || !strings.Contains(err.Error(), path) {
					t.Errorf("err = %v, want containing %q and the path", err, tt.wantSub)
				}
			}
			if v := readSchemaVersion(t, path); v != tt.value {
				t.Errorf("Open rewrote schema_version to %q", v)
			}
		})
	}
}

func TestLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proctor.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, opts := range [][]Option{
		{WithLockTimeout(100 * time.Millisecond)},
		{WithLockTimeout(-1)},
		{WithLockTimeout(100 * time.Millisecond), WithReadOnly()},
	} {
		start := time.Now()
		_, err := Open(path, opts...)
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("second Open: %v, want ErrLocked", err)
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "another proctor") {
			t.Errorf("error %q should name the path and mention another proctor", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("lock timeout took %v", d)
		}
	}
	// Closing releases the lock.
	db.Close()
	db2, err := Open(path, WithLockTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	db2.Close()
}

func TestNotADatabase(t *testing.T) {
	dir := t.TempDir()
	random := func(n int) []byte {
		b := make([]byte, n)
		_, _ = rand.Read(b)
		return b
	}
	foreign := filepath.Join(dir, "foreign.db")
	raw, err := bbolt.Open(foreign, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Update(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket([]byte("someone-elses"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	tests := []struct {
		name    string
		content []byte // nil: use the file already at path
		path    string
		wantSub string
	}{
		{"random 64KiB", random(64 << 10), filepath.Join(dir, "r64k.db"), "not a proctor database"},
		{"random 4KiB", random(4096), filepath.Join(dir, "r4k.db"), "not a proctor database"},
		{"random 100 bytes", random(100), filepath.Join(dir, "r100.db"), "not a proctor database"},
		{"text file", []byte("hello, I am notes.txt\n"), filepath.Join(dir, "notes.txt"), "not a proctor database"},
		{"foreign bbolt db", nil, foreign, `bucket "someone-elses"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.content != nil {
				if err := os.WriteFile(tt.path, tt.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range [][]Option{nil, {WithReadOnly()}} {
				db, err := Open(tt.path, opts...)
				if err == nil {
					db.Close()
					t.Fatal("Open succeeded")
				}
				if errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.wantSub) {
					t.Errorf("err = %v, want containing the path and %q", err, tt.wantSub)
				}
			}
			after, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Error("Open modified the file")
			}
		})
	}

	t.Run("directory", func(t *testing.T) {
		if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open(dir) = %v", err)
		}
	})
	t.Run("empty path", func(t *testing.T) {
		if _, err := Open(""); err == nil {
			t.Error("Open(\"\") succeeded")
		}
	})
}

func TestConcurrentPutSimulation(t *testing.T) {
	ctx := context.Background()
	// Real fsyncs here: concurrency with durable commits is the real setup.
	path := filepath.Join(t.TempDir(), "proctor.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	evalID := NewID()
	mustPutEval(t, db, Evaluation{ID: evalID, Status: "running"})

	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			s := Simulation{
				ID: fmt.Sprintf("task-%d#0", i), TaskID: fmt.Sprintf("task-%d", i), Reward: float64(i % 2),
				Data:     json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)),
				Requests: json.RawMessage(fmt.Sprintf(`[{"i":%d}]`, i)),
			}
			if err := db.PutSimulation(ctx, evalID, s); err != nil {
				errs <- err
				return
			}
			// Readers run concurrently with writers.
			if _, err := db.SimulationIDs(ctx, evalID); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ids, err := db.SimulationIDs(ctx, evalID)
	if err != nil || len(ids) != n {
		t.Fatalf("SimulationIDs: %d ids, %v", len(ids), err)
	}
	sims, err := db.Simulations(ctx, evalID)
	if err != nil || len(sims) != n {
		t.Fatalf("Simulations: %d, %v", len(sims), err)
	}
	for i := range n {
		id := fmt.Sprintf("task-%d#0", i)
		req, err := db.Requests(ctx, evalID, id)
		if err != nil || string(req) != fmt.Sprintf(`[{"i":%d}]`, i) {
			t.Errorf("Requests(%s) = %q, %v", id, req, err)
		}
	}
}

func TestCorruptValues(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000) // beyond encoding/json's depth limit
	for _, tc := range []struct{ name, evalValue, simValue string }{
		{"truncated", `{"status":`, `{"trial":"x"}`},
		{"deeply nested", deep, deep},
		{"wrong types", `{"status":1}`, `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) { testCorruptValues(t, tc.evalValue, tc.simValue) })
	}
}

func testCorruptValues(t *testing.T, evalValue, simValue string) {
	ctx := context.Background()
	db := openTemp(t)
	good := NewID()
	mustPutEval(t, db, Evaluation{ID: good, Status: "running"})
	if err := db.PutSimulation(ctx, good, Simulation{ID: "ok"}); err != nil {
		t.Fatal(err)
	}
	const badEval = "corrupt-eval-0001"
	err := db.sessions.bolt.Update(func(tx *bbolt.Tx) error {
		if err := tx.Bucket(bucketEvaluations).Put([]byte(badEval), []byte(evalValue)); err != nil {
			return err
		}
		return tx.Bucket(bucketSimulations).Bucket([]byte(good)).Put([]byte("bad-sim"), []byte(simValue))
	})
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]func() error{
		"GetEvaluation":        func() error { _, err := db.GetEvaluation(ctx, badEval); return err },
		"GetEvaluation prefix": func() error { _, err := db.GetEvaluation(ctx, "corrupt-eval"); return err },
		"ListEvaluations":      func() error { _, err := db.ListEvaluations(ctx, ListFilter{Limit: -1}); return err },
		"ListEvaluations/filter": func() error {
			_, err := db.ListEvaluations(ctx, ListFilter{Status: "x", Limit: -1})
			return err
		},
		"MarkInterrupted": func() error { _, err := db.MarkInterrupted(ctx, "running", "x"); return err },
		"Simulations":     func() error { _, err := db.Simulations(ctx, good); return err },
	}
	for name, call := range checks {
		err := call()
		if err == nil || !strings.Contains(err.Error(), "corrupt") ||
			!(strings.Contains(err.Error(), badEval) || strings.Contains(err.Error(), "bad-sim")) {
			t.Errorf("%s: err = %v, want a corrupt-record error naming the key", name, err)
		}
	}
	// MarkInterrupted failed as a whole: nothing changed.
	if e, err := db.GetEvaluation(ctx, good); err != nil || e.Status != "running" {
		t.Errorf("good evaluation = %+v, %v", e, err)
	}
}

func TestDefaultPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("LocalAppData", "")
	fallback := filepath.Join(home, ".local", "share", "proctor", "proctor.db")
	switch runtime.GOOS {
	case "darwin":
		fallback = filepath.Join(home, "Library", "Application Support", "proctor", "proctor.db")
	}
	xdg := filepath.Join(t.TempDir(), "xdg")
	tests := []struct {
		name, proctorDB, xdgDataHome, want string
	}{
		{"PROCTOR_DB wins", "/x/y.db", xdg, "/x/y.db"},
		{"XDG_DATA_HOME", "", xdg, filepath.Join(xdg, "proctor", "proctor.db")},
		{"relative XDG_DATA_HOME ignored", "", "rel/dir", fallback},
		{"fallback", "", "", fallback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PROCTOR_DB", tt.proctorDB)
			t.Setenv("XDG_DATA_HOME", tt.xdgDataHome)
			got, err := DefaultPath()
			if err != nil || got != tt.want {
				t.Errorf("DefaultPath() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestShortIDs: evaluations made together share their first 8 characters
// (ids begin with the time), so a short id is their last 8: each resolves
// to its own evaluation, by GetEvaluation and GetConformance alike. A
// short id that is the prefix of one and the suffix of another is
// ambiguous, and says which they are.
func TestShortIDs(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	var made []string
	for range 15 {
		id := NewID()
		made = append(made, id)
		mustPutEval(t, db, Evaluation{ID: id, Status: "s-" + id})
		if err := db.PutConformance(ctx, ConformanceRun{ID: id, AgentURL: "http://127.0.0.1:1", Level: "full", Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	// The first 8 characters count 65.536 s: the ids share them unless
	// they were made across such a boundary.
	if _, err := db.GetEvaluation(ctx, made[0][:8]); made[0][:8] == made[14][:8] && !errors.Is(err, ErrAmbiguous) {
		t.Errorf("first 8 characters of ids made together: %v, want ErrAmbiguous", err)
	}
	for _, id := range made {
		short := id[len(id)-8:]
		if got, err := db.GetEvaluation(ctx, short); err != nil || got.ID != id {
			t.Errorf("GetEvaluation(%q) = %q, %v; want %s", short, got.ID, err, id)
		}
		if got, err := db.GetConformance(ctx, short); err != nil || got.ID != id {
			t.Errorf("GetConformance(%q) = %q, %v; want %s", short, got.ID, err, id)
		}
	}

	mustPutEval(t, db, Evaluation{ID: "12345678-aaaa"})
	mustPutEval(t, db, Evaluation{ID: "bbbb-12345678"})
	_, err := db.GetEvaluation(ctx, "12345678")
	if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "12345678-aaaa") || !strings.Contains(err.Error(), "bbbb-12345678") {
		t.Errorf("prefix of one, suffix of another: %v", err)
	}
	if got, err := db.GetEvaluation(ctx, "-12345678"); err != nil || got.ID != "bbbb-12345678" {
		t.Errorf("a longer suffix: %q, %v", got.ID, err)
	}
}

// TestPutEvaluationWith: an evaluation's record and simulations stored in
// one transaction are all there after it; when one of them is refused
// (an invalid simulation, a record of another tenant), none is, and the
// record stored before is left as it was.
func TestPutEvaluationWith(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	id := NewID()
	mustPutEval(t, db, Evaluation{ID: id, Status: "running", Data: []byte(`{"n":0}`)})
	sims := []Simulation{
		{ID: "b#0", TaskID: "b", Reward: 1, Data: []byte(`{"x":2}`), Requests: []byte(`[{"latency_ms":2}]`)},
		{ID: "a#0", TaskID: "a", Data: []byte(`{"x":1}`)},
	}

	refused := []struct {
		name string
		ctx  context.Context
		sims []Simulation
	}{
		{"invalid simulation", ctx, append(slices.Clone(sims), Simulation{ID: "c#0", Reward: math.Inf(1)})},
		{"unnamed simulation", ctx, append(slices.Clone(sims), Simulation{})},
		{"another tenant's record", WithTenant(ctx, Tenant{Name: "intruder"}), sims},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.PutEvaluationWith(tt.ctx, Evaluation{ID: id, Status: "completed"}, tt.sims); err == nil {
				t.Fatal("stored, want an error")
			}
			got, err := db.GetEvaluation(ctx, id)
			if err != nil || got.Status != "running" {
				t.Errorf("record %q, error %v: want it left running", got.Status, err)
			}
			if ids, _ := db.SimulationIDs(ctx, id); len(ids) != 0 {
				t.Errorf("simulations %v stored by a refused write", ids)
			}
		})
	}

	if err := db.PutEvaluationWith(ctx, Evaluation{ID: id, Status: "completed", Data: []byte(`{"n":2}`)}, sims); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetEvaluation(ctx, id)
	if err != nil || got.Status != "completed" || string(got.Data) != `{"n":2}` {
		t.Errorf("record %q %s, error %v: want the completed one", got.Status, got.Data, err)
	}
	stored, err := db.Simulations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := []Simulation{{ID: "a#0", TaskID: "a", Data: []byte(`{"x":1}`)}, {ID: "b#0", TaskID: "b", Reward: 1, Data: []byte(`{"x":2}`)}}
	if diff := cmp.Diff(want, stored); diff != "" {
		t.Errorf("stored simulations (-want +got):\n%s", diff)
	}
	if reqs, err := db.Requests(ctx, id, "b#0"); err != nil || string(reqs) != `[{"latency_ms":2}]` {
		t.Errorf("requests %s, error %v", reqs, err)
	}
}
