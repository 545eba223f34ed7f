package evaluation_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/banking"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

// goldPlay is one banking simulation's gold actions, shared by the
// in-process agent and user that play them in order, each its own side's.
// The agent first searches the knowledge base once, as an agent of
// bm25_grep would.
type goldPlay struct {
	mu       sync.Mutex
	actions  []domains.Action
	next     int
	searched bool
}

// goldSide says whose turn the next gold action is ("" when none is left).
func (p *goldPlay) goldSide() string {
	if p.next == len(p.actions) {
		return ""
	}
	if r := p.actions[p.next].Requestor; r != "" {
		return r
	}
	return domains.RequestorAssistant
}

func (p *goldPlay) NewConversation() rollout.Conversation { return p }

func (p *goldPlay) ContextID() string { return "gold" }

func (p *goldPlay) Close() error { return nil }

// Step is the agent's turn: the search, then its next gold call; text when
// the user's call is next or none is left.
func (p *goldPlay) Step(context.Context, agent.Request) (*agent.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.searched {
		p.searched = true
		search := domains.ToolCall{ID: "search", Name: knowledge.KBSearchTool, Arguments: map[string]any{"query": "How do I dispute a transaction on my credit card?"}}
		return &agent.Answer{Reply: agent.Reply{ToolCalls: []domains.ToolCall{search}}}, nil
	}
	switch p.goldSide() {
	case domains.RequestorAssistant:
		a := p.actions[p.next]
		p.next++
		call := domains.ToolCall{ID: fmt.Sprintf("call-%d", p.next), Name: a.Name, Arguments: a.Arguments}
		return &agent.Answer{Reply: agent.Reply{ToolCalls: []domains.ToolCall{call}}}, nil
	case "":
		return &agent.Answer{Reply: agent.Reply{Text: "Done."}}, nil
	}
	return &agent.Answer{Reply: agent.Reply{Text: "Please go ahead."}}, nil
}

// goldUser is the user side of a goldPlay: it makes its gold calls when
// they are next and stops when no action is left.
type goldUser struct {
	play  *goldPlay
	tools rollout.UserTools
}

func (u *goldUser) UseTools(t rollout.UserTools) { u.tools = t }

func (u *goldUser) Reply(ctx context.Context, _ string) (string, error) {
	p := u.play
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.goldSide() == "" && p.searched {
		return rollout.StopToken, nil
	}
	for p.goldSide() == domains.RequestorUser {
		a := p.actions[p.next]
		p.next++
		u.tools.Call(ctx, domains.ToolCall{ID: fmt.Sprintf("user-%d", p.next), Name: a.Name, Arguments: a.Arguments})
	}
	return "Hi, I need help with my account.", nil
}

// bankingBench is banking_knowledge (bm25_grep) with a simulator and a
// scorer whose gold hashes are computed already; the knowledge base and its
// index are built once here, shared by every simulation.
func bankingBench(b *testing.B) (*domains.Domain, *rollout.Simulator, *scoring.Scorer) {
	d, err := banking.NewWithRetrieval(tau2test.Dir(b, banking.Name), "bm25_grep", nil)
	if err != nil {
		b.Fatal(err)
	}
	sc := scoring.NewScorer(d, false).WithJudge(metJudge{})
	for i := range d.Tasks {
		sc.DoNothingPasses(&d.Tasks[i])
	}
	sim := rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{})
	if _, err := simulateBanking(context.Background(), sim, sc, &d.Tasks[0], 0); err != nil { // the index is built
		b.Fatal(err)
	}
	return d, sim, sc
}

// simulateBanking plays and scores one simulation of task with a goldPlay;
// it must reach reward 1.
func simulateBanking(ctx context.Context, sim *rollout.Simulator, sc *scoring.Scorer, task *domains.Task, trial int) (rollout.Recording, error) {
	play := &goldPlay{actions: task.EvaluationCriteria.Actions}
	rec, _ := sim.Run(ctx, task, trial, play, &goldUser{play: play})
	sc.Score(ctx, task, &rec.Simulation, rec.Env)
	if s := rec.Simulation; s.TerminationReason != result.TermUserStop || s.Reward != 1 {
		return rec, fmt.Errorf("task %s: %s, reward %v: %s %+v", task.ID, s.TerminationReason, s.Reward, s.Error, s.RewardInfo)
	}
	return rec, nil
}

// BenchmarkBankingSimulation measures the CPU proctor spends on one
// banking_knowledge simulation (bm25_grep), agent and user excluded: an
// in-process agent searches the knowledge base once and plays its side of
// the task's gold actions, an in-process user plays its own, every task in
// turn, and the simulation is played, hashed and scored (reward 1); and
// the heap 1,000 concurrent simulations hold beyond the one shared
// knowledge base and index. The harness is BenchmarkAirlineSimulation's.
func BenchmarkBankingSimulation(b *testing.B) {
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, sim, sc := bankingBench(b)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.Logf("the domain (knowledge base, BM25 index, database, tasks, gold hashes): %.1f MiB of heap in use, once", float64(after.HeapInuse-min(after.HeapInuse, before.HeapInuse))/(1<<20))
	benchSimulations(b, d.Tasks, func(ctx context.Context, task *domains.Task, trial int) (rollout.Recording, error) {
		return simulateBanking(ctx, sim, sc, task, trial)
	})
}
