package shard_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "gocloud.dev/blob/memblob"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/evaluation/shard"
	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
)

// makeShards makes the shard files of one evaluation of numTasks tasks x
// numTrials trials split numShards ways, each simulation with a short
// transcript and two requests, as a shard run writes them.
func makeShards(numShards, numTasks, numTrials int) []*shard.File {
	ids := make([]string, numTasks)
	for i := range ids {
		ids[i] = fmt.Sprintf("task-%d", i)
	}
	files := make([]*shard.File, numShards)
	for s := range numShards {
		cfg := result.Config{Domain: "mock", Agent: "http://agent", Profile: "agentbeats", User: "scripted",
			NumTrials: numTrials, TaskIDs: ids, MaxSteps: 100, MaxErrors: 10, Timeout: result.Duration(time.Minute),
			Concurrency: 4, ShardIndex: s, NumShards: numShards, ActionMatch: result.ActionMatchTau2}
		eval := evaluation.NewEvaluation(fmt.Sprintf("shard-eval-%d", s), cfg, result.AgentInfo{URL: "http://agent"})
		var recs []evaluation.Recorded
		for trial := range numTrials {
			for i, id := range ids {
				if i%numShards == s {
					recs = append(recs, record(id, trial, i))
				}
			}
		}
		files[s] = shard.New(eval, recs)
		files[s].Source = fmt.Sprintf("shard %d", s)
	}
	return files
}

func record(taskID string, trial, n int) evaluation.Recorded {
	reward := float64((n + trial) % 2)
	start := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	return evaluation.Recorded{
		Simulation: result.Simulation{
			ID: result.SimulationID(taskID, trial), TaskID: taskID, Trial: trial, Reward: reward,
			TerminationReason: result.TermUserStop, StartedAt: start, DurationMS: 12.5,
			RewardInfo: result.RewardInfo{Reward: reward, RewardBasis: []domains.Basis{"DB"}, RewardBreakdown: map[domains.Basis]float64{"DB": reward}},
			Messages: []result.Message{
				{Role: result.RoleUser, Content: "Please cancel reservation ABC123.", Turn: 1},
				{Role: result.RoleAssistant, Content: "Cancelled.", Turn: 2},
			},
			Metrics: result.Metrics{Requests: 2, StatusCodes: map[string]int{"200": 2}, InputTokens: 300, OutputTokens: 20, BytesSent: 900, BytesReceived: 700},
		},
		Requests: []measure.Request{
			{Method: "SendMessage", StartedAt: start, LatencyMS: float64(n%50) + 1, HTTPStatus: 200},
			{Method: "SendMessage", StartedAt: start, LatencyMS: float64(trial) + 2, HTTPStatus: 200},
		},
	}
}

func encode(t testing.TB, f *shard.File) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMergeScoresAsOne checks that merged shards score as the same
// simulations scored together.
func TestMergeScoresAsOne(t *testing.T) {
	files := makeShards(4, 10, 3)
	eval, recs, err := shard.Merge("merged", files)
	if err != nil {
		t.Fatal(err)
	}
	if err := evaluation.Complete(context.Background(), nil, eval, recs); err != nil {
		t.Fatal(err)
	}
	var all []evaluation.Recorded
	for trial := range 3 {
		for i := range 10 {
			all = append(all, record(fmt.Sprintf("task-%d", i), trial, i))
		}
	}
	cfg := files[0].Evaluation.Config
	cfg.ShardIndex, cfg.NumShards = 0, 0
	want := evaluation.NewEvaluation("merged", cfg, files[0].Evaluation.Agent)
	if err := evaluation.Complete(context.Background(), nil, want, all); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Summary, eval.Summary); diff != "" {
		t.Errorf("summary (-one +merged):\n%s", diff)
	}
	if diff := cmp.Diff(want.Metrics, eval.Metrics); diff != "" {
		t.Errorf("metrics (-one +merged):\n%s", diff)
	}
	if eval.Status != result.StatusCompleted || len(eval.Simulations) != 30 || eval.Config.NumShards != 0 {
		t.Errorf("status %s, %d simulations, num_shards %d", eval.Status, len(eval.Simulations), eval.Config.NumShards)
	}
}

func TestMergeRefuses(t *testing.T) {
	other := makeShards(3, 9, 2) // another evaluation: 2 trials
	for _, f := range other {
		f.Source += " (other)"
	}
	fourWay := makeShards(4, 9, 1)
	overlap := makeShards(3, 9, 1)
	overlap[2].Simulations = append(overlap[2].Simulations, overlap[1].Simulations[0])
	for _, c := range []struct {
		name  string
		files []*shard.File
		want  string
	}{
		{"none", nil, "no shard files"},
		{"missing", pick(makeShards(3, 9, 1), 0, 2), "shard(s) 1 of 3 are missing"},
		{"twice", pick(makeShards(3, 9, 1), 0, 1, 1, 2), "shard 1 is given 2 times (shard 1, shard 1)"},
		{"another evaluation", append(pick(makeShards(3, 9, 1), 0, 1), other[2]), "shard 2 (other) (shard 2, fingerprint"},
		{"another count", append(pick(makeShards(3, 9, 1), 0, 1, 2), fourWay[3]), "shard 3 is shard 3 of 4"},
		{"a simulation twice", overlap, "simulation task-1#0 (task task-1, trial 0) is in shard 1 (shard 1) and in shard 2 (shard 2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := shard.Merge("merged", c.files)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

func pick(files []*shard.File, idx ...int) []*shard.File {
	out := make([]*shard.File, len(idx))
	for i, j := range idx {
		out[i] = files[j]
	}
	return out
}

func TestDecode(t *testing.T) {
	good := makeShards(3, 9, 2)[1]
	data := encode(t, good)
	got, err := shard.Decode(bytes.NewReader(data), 0, "shard 1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(good, got); diff != "" {
		t.Errorf("round trip (-written +read):\n%s", diff)
	}
	edit := func(change func(f *shard.File)) []byte {
		f := makeShards(3, 9, 2)[1]
		change(f)
		return encode(t, f)
	}
	for _, c := range []struct {
		name string
		data []byte
		max  int64
		want string
	}{
		{"too large", data, 100, "larger than 100 bytes"},
		{"not JSON", []byte("PK\x03\x04"), 0, "not a proctor shard file"},
		{"unknown field", []byte(`{"format": "proctor-shard/1", "fingerprint": "", "extra": 1}`), 0, `unknown field "extra"`},
		{"trailing data", append(bytes.Clone(data), "{}"...), 0, "data after its JSON object"},
		{"other format", edit(func(f *shard.File) { f.Format = "proctor-shard/9" }), 0, `format "proctor-shard/9"`},
		{"index out of range", edit(func(f *shard.File) { f.ShardIndex = 3 }), 0, "shard_index 3: want 0 to 2"},
		{"config changed", edit(func(f *shard.File) { f.Evaluation.Config.NumTrials = 1 }), 0, "does not match its evaluation's config"},
		{"missing simulation", edit(func(f *shard.File) { f.Simulations = f.Simulations[1:] }), 0, "5 simulations, want 6"},
		{"another shard's task", edit(func(f *shard.File) { f.Simulations[0].Simulation.TaskID = "task-0" }), 0, `task "task-0" belongs to shard 0, not 1`},
		{"unselected task", edit(func(f *shard.File) { f.Simulations[0].Simulation.TaskID = "task-x" }), 0, `task "task-x" is not selected`},
		{"trial out of range", edit(func(f *shard.File) { f.Simulations[0].Simulation.Trial = 2 }), 0, "trial 2, want 0 to 1"},
		{"duplicate", edit(func(f *shard.File) { f.Simulations[1] = f.Simulations[0] }), 0, "appears twice"},
		{"reward", edit(func(f *shard.File) { f.Simulations[0].Simulation.Reward = 2 }), 0, "reward 2, want 0 to 1"},
		{"no termination", edit(func(f *shard.File) { f.Simulations[0].Simulation.TerminationReason = "" }), 0, "no termination reason"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := shard.Decode(bytes.NewReader(c.data), c.max, "f.json")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "f.json") {
				t.Errorf("error %v, want %q naming f.json", err, c.want)
			}
		})
	}
}

// TestLocations writes and reads shards in a directory (as file:// and as
// a bare path) and in an in-memory bucket, the way object storage is used.
func TestLocations(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, spec := range []string{filepath.Join(dir, "bare"), "file://" + filepath.ToSlash(filepath.Join(dir, "url")), "mem://bucket/evals/run-1"} {
		t.Run(spec, func(t *testing.T) {
			files := makeShards(3, 9, 1)
			w, err := shard.Open(ctx, spec, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if _, err := w.Write(ctx, f); err != nil {
					t.Fatal(err)
				}
			}
			got, err := w.Read(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			for i := range files {
				files[i].Source = spec + "/" + shard.Name(i, 3)
			}
			if diff := cmp.Diff(files, got); diff != "" {
				t.Errorf("read back (-written +read):\n%s", diff)
			}
		})
	}
	entries, err := os.ReadDir(filepath.Join(dir, "bare"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{shard.Name(0, 3), shard.Name(1, 3), shard.Name(2, 3)}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("directory holds (-want +got):\n%s", diff)
	}
	if _, err := shard.Open(ctx, "ftp://host/x", false); err == nil || !strings.Contains(err.Error(), "ftp") {
		t.Errorf("unregistered scheme: %v", err)
	}
}

// TestWriteIsAtomic checks that a shard that cannot be encoded leaves no
// file behind.
func TestWriteIsAtomic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	loc, err := shard.Open(ctx, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Close()
	f := makeShards(2, 4, 1)[0]
	f.Evaluation.Config.ECPConfig = map[string]any{"bad": func() {}} // does not encode
	if _, err := loc.Write(ctx, f); err == nil {
		t.Fatal("a shard that does not encode was written")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encode(f, makeShards(2, 4, 2)[0]))
	f.Add([]byte(`{"format":"proctor-shard/1","num_shards":2,"shard_index":1,"evaluation":{"config":{"num_trials":1,"task_ids":["a","b"]}},"simulations":[]}`))
	f.Add([]byte(`{"format":"proctor-shard/1","num_shards":100000,"shard_index":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := shard.Decode(bytes.NewReader(data), 1<<20, "fuzz")
		if err != nil {
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("decoded a shard that does not validate: %v", err)
		}
		if _, _, err := shard.Merge("m", []*shard.File{got}); err != nil && got.NumShards == 1 {
			t.Fatalf("a valid single shard does not merge: %v", err)
		}
	})
}

// TestFingerprint: what each process chooses for itself leaves the
// fingerprint as it is; what is evaluated, by whom and how changes it.
func TestFingerprint(t *testing.T) {
	seed := int64(7)
	base := result.Config{Domain: "airline", Agent: "http://agent", User: "llm", UserModel: "openai:gpt-4.1",
		NumTrials: 4, TaskIDs: []string{"0", "1"}, NumShards: 4, Seed: &seed, Concurrency: 8}
	same := map[string]func(*result.Config){
		"shard index":        func(c *result.Config) { c.ShardIndex = 3 },
		"concurrency":        func(c *result.Config) { c.Concurrency = 64 },
		"retries":            func(c *result.Config) { c.Retries = 5 },
		"streaming":          func(c *result.Config) { c.Streaming = "on" },
		"request timeout":    func(c *result.Config) { c.RequestTimeout = result.Duration(time.Minute) },
		"max response bytes": func(c *result.Config) { c.MaxResponseBytes = 1 << 20 },
		"header names":       func(c *result.Config) { c.HeaderNames = []string{"X-Team"} },
		"default matching":   func(c *result.Config) { c.ActionMatch = result.ActionMatchTau2 },
	}
	differ := map[string]func(*result.Config){
		"agent":       func(c *result.Config) { c.Agent = "http://other" },
		"tasks":       func(c *result.Config) { c.TaskIDs = []string{"0", "2"} },
		"trials":      func(c *result.Config) { c.NumTrials = 5 },
		"shard count": func(c *result.Config) { c.NumShards = 2 },
		"seed":        func(c *result.Config) { s := int64(8); c.Seed = &s },
		"user model":  func(c *result.Config) { c.UserModel = "openai:gpt-4.1-mini" },
		"strict":      func(c *result.Config) { c.Strict = true },
	}
	want := shard.Fingerprint(base)
	for name, change := range same {
		c := base
		change(&c)
		if got := shard.Fingerprint(c); got != want {
			t.Errorf("%s changed the fingerprint", name)
		}
	}
	for name, change := range differ {
		c := base
		change(&c)
		if got := shard.Fingerprint(c); got == want {
			t.Errorf("%s left the fingerprint as it was", name)
		}
	}
}
