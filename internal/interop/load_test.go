//go:build unix

package interop

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

// loadSize is how many simulations TestLoadKeepAliveRace runs and how many
// at once: 1,000 at 500 with PROCTOR_LOAD=full (the figure), a
// tenth of that otherwise, so that CI runs it briefly.
func loadSize(t *testing.T) (sims, concurrency int) {
	switch v := os.Getenv("PROCTOR_LOAD"); v {
	case "":
		return 100, 50
	case "full":
		return 1000, 500
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PROCTOR_LOAD=%q: want full or a number of simulations", v)
		}
		return n, max(n/2, 1)
	}
}

// thinkingUser is the scripted user with a think time before each reply,
// as an LLM user simulator has: the agent's connections sit idle in the
// pool meanwhile. The think times spread evenly over [0, 2*mean), so that
// many connections are picked again just as the agent's idle timeout
// (about mean) closes them.
type thinkingUser struct {
	rollout.UserSimulator
	mean    time.Duration
	padding string // lengthens each message beyond net/http's 4 KiB write buffer
}

func (u *thinkingUser) Reply(ctx context.Context, agentText string) (string, error) {
	think := time.Duration(rand.Int64N(int64(2 * u.mean)))
	select {
	case <-time.After(think):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	reply, err := u.UserSimulator.Reply(ctx, agentText)
	if err != nil || strings.Contains(reply, rollout.StopToken) {
		return reply, err
	}
	// A long message, as a conversation with tool results makes: net/http
	// writes it in several pieces, and the agent's reset can land between
	// them (a broken pipe).
	return reply + "\n\n" + u.padding, nil
}

// keepAlive is the agent's idle timeout in TestLoadKeepAliveRace, and the
// users' mean think time.
const keepAlive = 20 * time.Millisecond

// TestLoadKeepAliveRace runs many simulations at once against the
// JavaScript SDK's agent, whose server closes idle kept-alive connections
// after 20 ms while the users think for 20 ms on average: proctor keeps
// picking connections the agent closes at that moment. Requests written to
// those connections never reach the agent; they must be sent again at once,
// not charged to it as connection errors. A connection that merely ends
// after a request went out proves nothing (the agent may have read it):
// that is left to the retry policy, as any transient failure. Every
// simulation must solve its task, with no error. PROCTOR_LOAD=full runs
// 1,000 simulations at concurrency 500.
func TestLoadKeepAliveRace(t *testing.T) {
	sims, concurrency := loadSize(t)
	base := startJSPeer(t, string(a2aclient.TransportJSONRPC), string(a2aclient.Protocol10),
		"--streaming", "false", "--keep-alive-ms", strconv.Itoa(int(keepAlive/time.Millisecond)))
	d, task, profile := mockTask(t)
	padding := strings.Repeat("(the user adds some context) ", 1024)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	client, err := a2aclient.Dial(ctx, base, a2aclient.WithMaxConnsPerHost(concurrency),
		a2aclient.WithRequestTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	r := &evaluation.Runner{
		Simulator:   rollout.NewSimulator(d, profile, rollout.Limits{}),
		Scorer:      scoring.NewScorer(d, false),
		Agent:       a2aagent.New(client),
		Concurrency: concurrency,
		Users: func(task *domains.Task, trial int) (rollout.UserSimulator, error) {
			u, err := rollout.ScriptedUsers(task, trial)
			return &thinkingUser{UserSimulator: u, mean: keepAlive, padding: padding}, err
		},
	}
	eval := evaluation.NewEvaluation("load", result.Config{Domain: d.Name, NumTrials: sims}, result.AgentInfo{})
	start := time.Now()
	if err := r.Run(ctx, eval, []*domains.Task{task}); err != nil {
		t.Fatal(err)
	}
	m := eval.Metrics
	t.Logf("%d simulations at concurrency %d in %s: %d requests, %d resent (never read by the agent), %d retried, %d errors %v",
		sims, concurrency, time.Since(start).Round(time.Millisecond), m.Requests, m.Resends, m.Retries, m.Errors, m.ErrorClasses)
	if m.Errors != 0 {
		t.Errorf("%d errors %v charged to the agent; want none", m.Errors, m.ErrorClasses)
	}
	for _, sim := range eval.Simulations {
		if sim.Error != "" {
			t.Errorf("simulation %s: %s", sim.ID, sim.Error)
		}
	}
	if got := eval.Summary.TerminationReasons; got[string(result.TermUserStop)] != sims {
		t.Errorf("termination reasons %v, want all %d %s", got, sims, result.TermUserStop)
	}
	if eval.Summary.AvgReward != 1 {
		t.Errorf("average reward %v, want 1", eval.Summary.AvgReward)
	}
}
