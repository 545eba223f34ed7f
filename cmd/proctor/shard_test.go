package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
)

// sameEvaluation ignores what differs between two runs of one evaluation
// by nature: ids, times, durations, latencies and waits for a model
// provider's slot, a merged one's shard
// count (checked on its own), the agent's loopback
// address, the A2A context ids the agent gave out, and the bytes on the
// wire (the agent's replies carry its task ids and timestamps, whose
// lengths vary by a byte or two from one run to the next).
var sameEvaluation = cmp.Options{
	cmpopts.IgnoreFields(result.Evaluation{}, "ID", "CreatedAt", "UpdatedAt", "FinishedAt", "Agent.URL", "Agent.CardURL", "MergedShards"),
	cmpopts.IgnoreFields(result.Simulation{}, "StartedAt", "DurationMS", "ContextID"),
	cmpopts.IgnoreFields(result.Metrics{}, "LatencyMS", "BytesSent", "BytesReceived"),
	cmpopts.IgnoreFields(llm.Call{}, "LatencyMS", "SlotWaitMS"),
	cmpopts.IgnoreFields(llm.Usage{}, "SlotWaitMS"),
	cmpopts.EquateEmpty(),
}

// shardedRun runs an evaluation as numShards shard runs, each with its
// own database, writing to one file:// location, merges them, and
// returns the merged evaluation as merge printed it.
func shardedRun(t *testing.T, numShards int, args ...string) result.Evaluation {
	t.Helper()
	out := "file://" + filepath.ToSlash(t.TempDir())
	for i := range numShards {
		run := append([]string{"run", "--db", tempDB(t), "--progress", "none", "--format", "json",
			"--num-shards", fmt.Sprint(numShards), "--shard-out", out}, args...)
		if i%2 == 0 {
			run = append(run, "--shard-index", fmt.Sprint(i))
		} else {
			t.Setenv(envShardIndex, fmt.Sprint(i)) // as a Kubernetes Indexed Job gives it
		}
		r := mustCLI(t, 0, run...)
		if !strings.Contains(r.stderr, fmt.Sprintf("shard %d of %d written to", i, numShards)) {
			t.Fatalf("shard %d: %s", i, r.stderr)
		}
	}
	r := mustCLI(t, 0, "merge", out, "--db", tempDB(t), "--format", "json")
	var merged result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &merged); err != nil {
		t.Fatal(err)
	}
	return merged
}

func singleRun(t *testing.T, args ...string) result.Evaluation {
	t.Helper()
	r := mustCLI(t, 0, append([]string{"run", "--db", tempDB(t), "--progress", "none", "--format", "json"}, args...)...)
	var eval result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &eval); err != nil {
		t.Fatal(err)
	}
	return eval
}

// TestShardsMergeAsOneProcess checks that 4 shards merged score an
// evaluation exactly as one process does: summary, pass^k, CIs, metrics
// and every simulation.
func TestShardsMergeAsOneProcess(t *testing.T) {
	args := []string{"--domain", "mock", "--agent", "builtin", "--num-trials", "3"}
	single := singleRun(t, args...)
	merged := shardedRun(t, 4, args...)
	if diff := cmp.Diff(single, merged, sameEvaluation); diff != "" {
		t.Errorf("4 shards merged differ from one process (-one +merged):\n%s", diff)
	}
	if merged.Summary.NumSimulations != 17*3 || merged.Status != result.StatusCompleted || merged.Config.NumShards != 0 || merged.MergedShards != 4 {
		t.Errorf("merged: %d simulations, status %s, num_shards %d, merged_shards %d", merged.Summary.NumSimulations, merged.Status, merged.Config.NumShards, merged.MergedShards)
	}
}

// TestAirlineShardsMergeAsOneProcess runs airline with an LLM user and an
// LLM agent (proctor's baseline participant), both faked at the wire with
// answers that depend only on the request, 4 shards against one process.
func TestAirlineShardsMergeAsOneProcess(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "airline"))
	user := llmtest.NewGemini(t, func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if m.Role == "assistant" {
				return llmtest.Reply{Text: "Thanks, that is all. ###STOP###", InputTokens: 900, OutputTokens: 8}
			}
		}
		return llmtest.Reply{Text: "Hi, I need help with a reservation.", InputTokens: 800, OutputTokens: 9}
	})
	agent := airlineBaseline(t, 500, 20)
	t.Setenv("GEMINI_API_KEY", fakeUserSecret)

	args := []string{"--domain", "airline", "--tau2-data", root, "--task-ids", "0,1,3,4,5,6", "--num-trials", "2",
		"--agent", agent, "--user", "llm", "--user-model", "gemini:gemini-2.5-flash",
		"--llm-base-url", user.URL, "--seed", "7"}
	single := singleRun(t, args...)
	merged := shardedRun(t, 4, args...)
	if diff := cmp.Diff(single, merged, sameEvaluation); diff != "" {
		t.Errorf("4 shards merged differ from one process (-one +merged):\n%s", diff)
	}
	if merged.Summary.NumSimulations != 12 || merged.Metrics.LLMUsage[llm.RoleUser].Calls == 0 {
		t.Errorf("merged: %d simulations, user model usage %+v", merged.Summary.NumSimulations, merged.Metrics.LLMUsage)
	}
}

// TestMergeRefusesIncompleteSets checks that merge names a missing shard,
// a shard given twice and a shard of another evaluation.
func TestMergeRefusesIncompleteSets(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for i := range 3 {
		mustCLI(t, 0, "run", "--db", tempDB(t), "--progress", "none", "--num-shards", "3", "--shard-index", fmt.Sprint(i), "--shard-out", a)
	}
	mustCLI(t, 0, "run", "--db", tempDB(t), "--progress", "none", "--num-trials", "2", "--num-shards", "3", "--shard-index", "1", "--shard-out", b)
	shardA := func(i int) string { return filepath.Join(a, fmt.Sprintf("shard-%05d-of-00003.json", i)) }
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{shardA(0), shardA(2)}, "shard(s) 1 of 3 are missing"},
		{"twice", []string{a, shardA(2)}, "shard 2 is given 2 times"},
		{"another evaluation", []string{shardA(0), filepath.Join(b, "shard-00001-of-00003.json"), shardA(2)}, "not all of one evaluation"},
		{"empty directory", []string{t.TempDir()}, "no shard files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustCLI(t, exitFailure, append([]string{"merge", "--db", tempDB(t)}, c.args...)...)
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr %q, want %q", r.stderr, c.want)
			}
		})
	}
}

// TestShardFlags checks the shard flags' errors, including an index from
// the environment that is out of range.
func TestShardFlags(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		name, env string
		args      []string
		want      string
	}{
		{"no index", "", []string{"--num-shards", "2", "--shard-out", out}, "--num-shards needs --shard-index"},
		{"index too big", "", []string{"--num-shards", "2", "--shard-index", "2", "--shard-out", out}, "shard index 2: want 0 to 1"},
		{"env too big", "7", []string{"--num-shards", "2", "--shard-out", out}, "shard index 7: want 0 to 1"},
		{"env not a number", "x", []string{"--num-shards", "2", "--shard-out", out}, `$JOB_COMPLETION_INDEX "x"`},
		{"no out", "", []string{"--num-shards", "2", "--shard-index", "0"}, "--num-shards needs --shard-out"},
		{"out alone", "", []string{"--shard-out", out}, "--shard-out needs --num-shards"},
		{"more shards than tasks", "", []string{"--num-shards", "18", "--shard-index", "0", "--shard-out", out}, "only 17 tasks are selected"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv(envShardIndex, c.env)
			} else {
				os.Unsetenv(envShardIndex)
			}
			r := mustCLI(t, exitUsage, append([]string{"run", "--db", tempDB(t)}, c.args...)...)
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr %q, want %q", r.stderr, c.want)
			}
		})
	}
}
