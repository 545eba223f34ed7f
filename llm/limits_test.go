package llm_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
)

func TestParseLimits(t *testing.T) {
	type caps struct{ OpenAI, Gemini int }
	for _, tc := range []struct {
		in   string
		want caps
		err  bool
	}{
		{in: "", want: caps{16, 16}},
		{in: "4", want: caps{4, 4}},
		{in: "0", want: caps{0, 0}},
		{in: "openai=32,gemini=8", want: caps{32, 8}},
		{in: "8, OpenAI = 32", want: caps{32, 8}},
		{in: "gemini=0", want: caps{16, 0}},
		{in: "-1", err: true},
		{in: "many", err: true},
		{in: "anthropic=4", err: true},
		{in: "openai=", err: true},
	} {
		l, err := llm.ParseLimits(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseLimits(%q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if diff := cmp.Diff(tc.want, caps{l.Max("openai"), l.Max("gemini")}); diff != "" {
			t.Errorf("ParseLimits(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestLimitsCapCallsInFlight runs many calls of two roles at once against
// a provider capped at 3: the server never has more than 3 in flight, and
// the calls that queued record their wait.
func TestLimitsCapCallsInFlight(t *testing.T) {
	const limit, calls = 3, 24
	for _, p := range fakeProviders() {
		t.Run(p.name, func(t *testing.T) {
			gate := make(chan struct{})
			arrived := make(chan struct{}, calls)
			srv := p.start(t, func(llmtest.Request) llmtest.Reply {
				arrived <- struct{}{}
				return llmtest.Reply{Text: "ok", InputTokens: 1, OutputTokens: 1, Hold: gate}
			})
			limits := llm.NewLimits(limit, nil)
			src := &llm.Source{Limits: limits, Config: llm.Config{APIKey: testKey, BaseURL: srv.URL,
				Getenv: func(string) string { return "" }}}
			ctx := testCtx(t)
			ledger := &llm.Ledger{}
			ctx = llm.WithLedger(ctx, ledger)
			var wg sync.WaitGroup
			for i := range calls {
				role := []string{llm.RoleUser, llm.RoleJudge}[i%2]
				m, err := src.Model(ctx, p.name+":"+p.model, role)
				if err != nil {
					t.Fatal(err)
				}
				wg.Go(func() {
					if _, err := llm.Generate(ctx, m, userRequest(fmt.Sprint(i))); err != nil {
						t.Errorf("call %d: %v", i, err)
					}
				})
			}
			// Hold the first replies until the cap is reached and every
			// other call queues behind it.
			for range limit {
				<-arrived
			}
			waitFor(ctx, t, func() bool { return limits.Waiting(p.name) == calls-limit || srv.InFlight() > limit })
			close(gate)
			wg.Wait()
			if got := srv.MaxInFlight(); got != limit {
				t.Errorf("at most %d requests in flight, want %d (the cap)", got, limit)
			}
			u := llm.MergeUsage(nil, llm.UsageByRole(ledger.Calls()))
			total := u[llm.RoleUser].Add(u[llm.RoleJudge])
			if total.Calls != calls || total.SlotWaitMS <= 0 {
				t.Errorf("usage %+v: want %d calls and a wait for slots", total, calls)
			}
		})
	}
}

// TestLimitsCountThrottledRetries answers 429 with Retry-After twice: the
// call succeeds, counts both, and the 503 retried after is no throttling.
func TestLimitsCountThrottledRetries(t *testing.T) {
	for _, p := range fakeProviders() {
		t.Run(p.name, func(t *testing.T) {
			srv := p.start(t, llmtest.Sequence(
				llmtest.Reply{Status: 429, RetryAfter: "1ms", ErrorMessage: "slow down"},
				llmtest.Reply{Status: 429, RetryAfter: "1ms", ErrorMessage: "slow down"},
				llmtest.Reply{Status: 503, ErrorMessage: "overloaded"},
				llmtest.Reply{Text: "ok", InputTokens: 1, OutputTokens: 1},
			))
			src := &llm.Source{Limits: llm.NewLimits(1, nil), Config: llm.Config{APIKey: testKey, BaseURL: srv.URL,
				MaxRetryWait: 5 * time.Millisecond, Getenv: func(string) string { return "" }}}
			ledger := &llm.Ledger{}
			ctx := llm.WithLedger(testCtx(t), ledger)
			m, err := src.Model(ctx, p.name+":"+p.model, llm.RoleUser)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := llm.Generate(ctx, m, userRequest("hi")); err != nil {
				t.Fatal(err)
			}
			got := ledger.Calls()
			if len(got) != 1 || got[0].Throttled != 2 || got[0].Error != "" {
				t.Fatalf("calls %+v: want one call with 2 throttled retries (the 503 is no throttling)", got)
			}
			if u := llm.UsageByRole(got)[llm.RoleUser]; u.Throttled != 2 {
				t.Errorf("usage %+v: want Throttled 2", u)
			}
		})
	}
}

// TestLimitsCancelledWait: a call that waits for a slot ends with its
// context, saying what it waited for.
func TestLimitsCancelledWait(t *testing.T) {
	gate := make(chan struct{})
	defer close(gate)
	srv := llmtest.NewOpenAI(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok", Hold: gate} })
	limits := llm.NewLimits(1, nil)
	src := &llm.Source{Limits: limits, Config: llm.Config{APIKey: testKey, BaseURL: srv.URL, Getenv: func(string) string { return "" }}}
	ctx := testCtx(t)
	m, err := src.Model(ctx, "openai:gpt-test", llm.RoleJudge)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = llm.Generate(ctx, m, userRequest("first")) }()
	waitFor(ctx, t, func() bool { return srv.InFlight() == 1 })
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := llm.Generate(cctx, m, userRequest("second")); done <- err }()
	waitFor(ctx, t, func() bool { return limits.Waiting("openai") == 1 })
	cancel()
	if err := <-done; err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v, want context.Canceled", err)
	}
}

// waitFor waits until cond holds, failing the test if ctx ends first: a
// state the code under test reaches without telling (a queued call).
func waitFor(ctx context.Context, t *testing.T, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("condition not reached: %v", ctx.Err())
		case <-tick.C:
		}
	}
}
