package scoring

import (
	"context"
	"slices"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// DoNothingReply is what the do-nothing agent of [DoNothingPasses] says after
// proctor's greeting: a refusal that carries no information.
const DoNothingReply = "Sorry, I cannot help with that."

// DoNothingPasses reports whether an agent that does nothing would earn
// reward 1 on the task: an agent that never calls a tool and tells the user
// nothing but rollout's greeting and DoNothingReply, in a conversation the user
// ends (user_stop). Such a task is vacuous: passing it says nothing about
// the agent.
//
// It is computed, not guessed: that transcript, with the database of a fresh
// environment (domains.Domain.FreshHash) against the gold one
// (domains.Domain.GoldHash), is scored by the same code as real
// conversations, under the task's own reward basis. So, basis by basis:
//
//   - DB passes when the expected actions leave the database as it was
//     (none, only reads, or only calls that fail), and when the task has
//     no expected actions and no env assertions at all (EnvUnchecked);
//   - ACTION passes only when nobody is expected to call anything;
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
// A Scorer in strict mode answers for its own reward bases:
// Scorer.DoNothingPasses.
func DoNothingPasses(d *domains.Domain, task *domains.Task) (bool, error) {
	return doNothingPasses(task, task.Bases(), d.GoldHash, d.FreshHash, d.NewEnv)
}

// doNothingPasses scores the do-nothing conversation of a task under bases;
// gold and fresh supply the database hashes (a Scorer's are cached), and
// newEnv the fresh environment env assertions run on.
func doNothingPasses(task *domains.Task, bases []domains.Basis, gold, fresh func(*domains.Task) (string, error),
	newEnv func(*domains.Task) (domains.Env, error)) (bool, error) {
	in := scoreInput{
		task:  task,
		bases: bases,
		messages: []result.Message{
			{Role: result.RoleAssistant, Content: result.AgentGreeting},
			{Role: result.RoleUser, Content: "I need help."},
			{Role: result.RoleAssistant, Content: DoNothingReply},
			{Role: result.RoleUser, Content: result.StopToken},
		},
		termination: result.TermUserStop,
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
	return result.Passed(score(context.Background(), in, nil).Reward), nil
}

// strictBases returns the reward bases a task is scored on, and which of
// them strict mode added: strict adds ACTION to every task that expects the
// agent to call something and does not score actions already. A task with
// no expected agent actions gets no ACTION basis (it would pass vacuously).
func strictBases(task *domains.Task, strict bool) (bases, added []domains.Basis) {
	bases = task.Bases()
	if !strict || slices.Contains(bases, domains.BasisAction) || !expectsAgentActions(task) {
		return bases, nil
	}
	return append(slices.Clip(bases), domains.BasisAction), []domains.Basis{domains.BasisAction}
}

// expectsAgentActions reports whether the task expects the agent (rather
// than the user) to call at least one tool: the actions ACTION checks.
func expectsAgentActions(task *domains.Task) bool {
	ec := task.EvaluationCriteria
	return ec != nil && slices.ContainsFunc(ec.Actions, func(a domains.Action) bool {
		return a.Requestor == "" || a.Requestor == string(result.RoleAssistant)
	})
}
