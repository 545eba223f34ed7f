package bench

import (
	"context"
	"slices"
	"sync"

	"github.com/proctor-eval/proctor/domains"
)

// DoNothingReply is what the do-nothing agent of [DoNothingPasses] says after
// proctor's greeting: a refusal that carries no information.
const DoNothingReply = "Sorry, I cannot help with that."

// DoNothingPasses reports whether an agent that does nothing would earn
// reward 1 on the task: an agent that never calls a tool and tells the user
// nothing but AgentGreeting and DoNothingReply, in a conversation the user
// ends (user_stop). Such a task is vacuous: passing it says nothing about
// the agent.
//
// It is computed, not guessed: that transcript, with the database of a fresh
// environment (domains.Domain.FreshHash) against the gold one
// (domains.Domain.GoldHash), is scored by the same code as real
// conversations, under the task's own reward basis. So, basis by basis:
//
//   - DB passes when the expected actions leave the database as it was
//     (none, only reads, or only calls that fail);
//   - ACTION passes only when the agent is expected to call nothing;
//   - COMMUNICATE passes only when every required string is already in the
//     greeting or the refusal (in practice: when there are none);
//   - NL_ASSERTION never passes: what a judge would say cannot be decided
//     from the data, so the task is counted as not passable by doing nothing;
//   - ENV_ASSERTION passes when every env assertion of the task holds on a
//     fresh environment (domains.Domain.NewEnv: the task's initial state,
//     nothing else), as it would after a conversation in which nobody
//     calls a tool; in particular when there are none, as in tau2.
//
// Gold actions a user rather than the agent performs (Requestor "user") are
// in the gold database but not in the fresh one, so a task that only needs
// the user to act is not reported, although a cooperative user might pass it
// with a passive agent.
//
// A Simulator in strict mode answers for its own reward bases:
// Simulator.DoNothingPasses.
func DoNothingPasses(d *domains.Domain, task *domains.Task) (bool, error) {
	return doNothingPasses(task, task.Bases(), d.GoldHash, d.FreshHash, d.NewEnv)
}

// doNothingPasses scores the do-nothing conversation of a task under bases;
// gold and fresh supply the database hashes (a Simulator's are cached), and
// newEnv the fresh environment env assertions run on.
func doNothingPasses(task *domains.Task, bases []string, gold, fresh func(*domains.Task) (string, error),
	newEnv func(*domains.Task) (domains.Env, error)) (bool, error) {
	in := scoreInput{
		task:  task,
		bases: bases,
		messages: []Message{
			{Role: RoleAssistant, Content: AgentGreeting},
			{Role: RoleUser, Content: "I need help."},
			{Role: RoleAssistant, Content: DoNothingReply},
			{Role: RoleUser, Content: StopToken},
		},
		termination: TermUserStop,
	}
	if slices.Contains(bases, domains.BasisDB) {
		var err error
		if in.goldHash, err = gold(task); err != nil {
			return false, err
		}
		if in.finalHash, err = fresh(task); err != nil {
			return false, err
		}
	}
	if slices.Contains(bases, domains.BasisEnvAssertion) {
		var err error
		if in.env, err = newEnv(task); err != nil {
			return false, err
		}
	}
	// No judge: NL_ASSERTION is undecidable here and must not pass.
	return success(score(context.Background(), in, nil).Reward), nil
}

// strictBases returns the reward bases a task is scored on, and which of
// them strict mode added: strict adds ACTION to every task that expects the
// agent to call something and does not score actions already. A task with
// no expected agent actions gets no ACTION basis (it would pass vacuously).
func strictBases(task *domains.Task, strict bool) (bases, added []string) {
	bases = task.Bases()
	if !strict || slices.Contains(bases, domains.BasisAction) || !expectsAgentActions(task) {
		return bases, nil
	}
	return append(slices.Clip(bases), domains.BasisAction), []string{domains.BasisAction}
}

// expectsAgentActions reports whether the task expects the agent (rather
// than the user) to call at least one tool: the actions ACTION checks.
func expectsAgentActions(task *domains.Task) bool {
	ec := task.EvaluationCriteria
	return ec != nil && slices.ContainsFunc(ec.Actions, func(a domains.Action) bool {
		return a.Requestor == "" || a.Requestor == RoleAssistant
	})
}

// doNothingEntry caches one task's answer; once keeps concurrent
// simulations of a task from computing it more than once.
type doNothingEntry struct {
	once   sync.Once
	passes bool
	err    error
}

// Bases returns the reward bases the simulator scores a task on: the task's
// own, plus ACTION in strict mode when the task expects actions.
func (s *Simulator) Bases(task *domains.Task) []string {
	b, _ := strictBases(task, s.limits.Strict)
	return b
}

// Strict reports whether the simulator scores in strict mode (Limits.Strict).
func (s *Simulator) Strict() bool { return s.limits.Strict }

// DoNothingPasses is [DoNothingPasses] under the simulator's reward bases
// (strict mode included), cached per task id like gold hashes.
func (s *Simulator) DoNothingPasses(task *domains.Task) (bool, error) {
	s.mu.Lock()
	e := s.doNothing[task.ID]
	if e == nil {
		e = &doNothingEntry{}
		s.doNothing[task.ID] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		e.passes, e.err = doNothingPasses(task, s.Bases(task), s.goldHash, s.freshHash, s.domain.NewEnv)
	})
	return e.passes, e.err
}

// freshHash is the hash of a fresh environment for the task. Tasks without
// an initial state to apply all start from the same database, hashed once.
func (s *Simulator) freshHash(task *domains.Task) (string, error) {
	if is := task.InitialState; is != nil && (len(is.InitializationActions) > 0 || is.InitializationData != nil || len(is.MessageHistory) > 0) {
		return s.domain.FreshHash(task)
	}
	s.fresh.once.Do(func() { s.fresh.hash, s.fresh.err = s.domain.FreshHash(nil) })
	return s.fresh.hash, s.fresh.err
}
