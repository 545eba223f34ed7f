package main

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
)

// TestLLMMaxConcurrencyAgainstAThrottlingProvider runs 16 simulations at
// once with an LLM user against a provider capped at 3 calls that answers
// its first 4 requests 429, Retry-After 1s: the provider never sees more
// than 3 requests at once, the throttled retries and the waits for a slot
// are counted in the user's model usage and shown in the summary, and none
// of it counts in the agent's latency.
func TestLLMMaxConcurrencyAgainstAThrottlingProvider(t *testing.T) {
	const limit, throttled = 3, 4
	script := scriptedLLMUser(t)
	var mu sync.Mutex
	seen := 0
	srv := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		seen++
		n := seen
		mu.Unlock()
		if n <= throttled {
			return llmtest.Reply{Status: 429, RetryAfter: "1", ErrorMessage: "Rate limit reached for requests"}
		}
		return script(r)
	})
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	db := tempDB(t)
	r := mustCLI(t, 0, "run", "--domain", "mock", "--agent", "builtin", "--task-ids", "mock-01,mock-04,mock-05,mock-09",
		"--num-trials", "4", "--concurrency", "16", "--user", "llm", "--user-model", "openai:gpt-4.1-mini",
		"--llm-base-url", srv.URL, "--llm-max-concurrency", "gemini=1,openai=3",
		"--db", db, "--format", "json", "--progress", "none")
	var ev result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatal(err)
	}
	if got := srv.MaxInFlight(); got > limit {
		t.Errorf("the provider had %d requests in flight at once, want at most %d", got, limit)
	}
	u := ev.Metrics.LLMUsage[llm.RoleUser]
	if u.Throttled != throttled || u.SlotWaitMS <= 0 || u.Errors != 0 || u.Calls != len(srv.Requests())-throttled {
		t.Errorf("user model usage %+v: want %d throttled retries, a wait for slots, no errors, a call per answered request (%d requests)",
			u, throttled, len(srv.Requests()))
	}
	// Each throttled call waited at least 1s; the agent's requests, which
	// came between the user's turns, were not charged for it.
	for _, sim := range ev.Simulations {
		for _, c := range sim.LLMCalls {
			if c.Throttled > 0 && c.LatencyMS < 1000 {
				t.Errorf("%s: a throttled call took %.0fms, want the 1s Retry-After honoured", sim.ID, c.LatencyMS)
			}
		}
		if sim.Metrics.LatencyMS.Max >= 1000 {
			t.Errorf("%s: agent latency max %.0fms includes the provider's throttling", sim.ID, sim.Metrics.LatencyMS.Max)
		}
	}
	table := mustCLI(t, 0, "results", ev.ID, "--db", db)
	if !strings.Contains(table.stdout, "waiting for a provider slot") || !strings.Contains(table.stdout, "4 retried after 429") {
		t.Errorf("the summary's user model line lacks the waits and the throttled retries:\n%s", table.stdout)
	}
}
