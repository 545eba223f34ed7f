package scoring

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// Scorer turns recorded simulations of one domain into reward info, the way
// tau2-bench scores them. It needs no agent and no user simulator: what it
// reads is the transcript, the termination reason and the final database
// hash a rollout recorded, and, for ENV_ASSERTION, the final environment,
// which it rebuilds by replaying the transcript's tool calls when it is not
// given. So the same code scores a simulation as it ends and a stored one
// again (proctor rescore), under the same or other settings.
//
// A Scorer is safe for concurrent use; it caches gold hashes and do-nothing
// answers per task.
type Scorer struct {
	domain *domains.Domain
	strict bool
	match  result.ActionMatch
	judge  Judge

	mu        sync.Mutex
	gold      map[string]string // task id -> gold DB hash
	doNothing map[string]*doNothingEntry
	fresh     struct { // the hash of the domain's initial database
		once sync.Once
		hash string
		err  error
	}
}

// doNothingEntry caches one task's answer; once keeps concurrent
// simulations of a task from computing it more than once.
type doNothingEntry struct {
	once   sync.Once
	passes bool
	err    error
}

// NewScorer returns a scorer of the domain's simulations. In strict mode it
// adds ACTION to the reward basis of every task that expects the agent to
// call tools and does not score actions already: reaching the right
// database, or saying the right things, is not enough without the expected
// calls. A task with no expected actions gets no ACTION basis. Reward info
// lists the added basis under added_by_strict; an evaluation records the
// mode in its Config.Strict.
//
// ACTION matches expected actions with tool calls as tau2-bench does
// (result.ActionMatchTau2) unless WithActionMatch says otherwise.
func NewScorer(d *domains.Domain, strict bool) *Scorer {
	return &Scorer{domain: d, strict: strict, match: result.ActionMatchTau2, gold: map[string]string{}, doNothing: map[string]*doNothingEntry{}}
}

// WithJudge sets the judge of NL_ASSERTION criteria.
func (s *Scorer) WithJudge(j Judge) *Scorer { s.judge = j; return s }

// WithActionMatch sets how ACTION matches expected actions with tool calls
// ("" is the default, result.ActionMatchTau2; check names from users with
// result.ParseActionMatch). Set it before scoring anything.
func (s *Scorer) WithActionMatch(m result.ActionMatch) *Scorer { s.match = m.OrDefault(); return s }

// Strict reports whether the scorer is in strict mode.
func (s *Scorer) Strict() bool { return s.strict }

// ActionMatch reports how the scorer matches actions.
func (s *Scorer) ActionMatch() result.ActionMatch { return s.match }

// Bases returns the reward bases the scorer scores a task on: the task's
// own, plus ACTION in strict mode when the task expects actions.
func (s *Scorer) Bases(task *domains.Task) []domains.Basis {
	b, _ := strictBases(task, s.strict)
	return b
}

// Score computes the reward of a recorded simulation of task and writes it
// into sim (Reward, RewardInfo). final is the environment the rollout ended
// with; nil rebuilds it from the transcript (Replay) when a basis needs it.
//
// A simulation that ended other than by a stop earns nothing. One that
// cannot be scored (broken task data, an environment that cannot be
// rebuilt) is turned into an infrastructure_error with the reason in
// sim.Error, as a failure of proctor rather than of the agent.
func (s *Scorer) Score(ctx context.Context, task *domains.Task, sim *result.Simulation, final domains.Env) {
	bases, added := strictBases(task, s.strict)
	defer func() {
		if p := recover(); p != nil {
			sim.TerminationReason, sim.Error = result.TermInfrastructure, fmt.Sprintf("internal error while scoring: %v", p)
			sim.Reward = 0
			sim.RewardInfo = result.RewardInfo{RewardBasis: bases, AddedByStrict: added, Note: "scoring failed inside proctor"}
		}
	}()
	// A task whose data is broken fails below, where the error is
	// reported; here it only leaves the task unmarked.
	vacuous, _ := s.DoNothingPasses(task)
	in := scoreInput{task: task, bases: bases, strictAdded: added, messages: sim.Messages, termination: sim.TerminationReason, match: s.match}
	if sim.TerminationReason.Rewardable() {
		if err := s.prepare(task, sim, final, &in); err != nil {
			sim.TerminationReason, sim.Error = result.TermInfrastructure, err.Error()
			in.termination = result.TermInfrastructure
		}
	}
	sim.RewardInfo = score(ctx, in, s.judge)
	sim.RewardInfo.DoNothingPasses = vacuous
	sim.RewardInfo.PolicyViolations = result.PolicyViolations(sim.Messages)
	sim.Reward = sim.RewardInfo.Reward
}

// prepare gathers what the bases need beyond the transcript: the gold and
// final database hashes, and the final environment.
func (s *Scorer) prepare(task *domains.Task, sim *result.Simulation, final domains.Env, in *scoreInput) error {
	var err error
	if in.goldHash, err = s.goldHash(task); err != nil {
		return err
	}
	in.finalHash = sim.FinalHash
	needEnv := slices.Contains(in.bases, domains.BasisEnvAssertion)
	if final == nil && (needEnv || in.finalHash == "") {
		if final, err = Replay(s.domain, task, sim.Messages); err != nil {
			return fmt.Errorf("rebuild the final environment: %w", err)
		}
		replayed, err := final.Hash()
		if err != nil {
			return err
		}
		if in.finalHash != "" && replayed != in.finalHash {
			return fmt.Errorf("replaying the recorded tool calls gives database %s, not the recorded %s: the domain's data or tools changed since the simulation ran",
				replayed, in.finalHash)
		}
		in.finalHash = replayed
	}
	if in.finalHash == "" && final != nil {
		if in.finalHash, err = final.Hash(); err != nil {
			return err
		}
	}
	in.env = final
	return nil
}

// Replay rebuilds the final environment of a recorded simulation: a fresh
// environment for the task (its message history replayed), with every
// other tool call of the transcript run again in order, the agent's on the
// agent's side and the user simulator's on the user's, but for the calls
// proctor refused (Message.Refused), which never ran. Tools are deterministic, so it is the environment the
// rollout ended with.
func Replay(d *domains.Domain, task *domains.Task, messages []result.Message) (domains.Env, error) {
	env, err := d.NewEnv(task)
	if err != nil {
		return nil, err
	}
	for i, m := range messages {
		// History messages' calls ran when the environment was made.
		if m.History || (m.Role != result.RoleAssistant && m.Role != result.RoleUser) {
			continue
		}
		refused := refusedCalls(messages[i+1:])
		for _, call := range m.ToolCalls {
			if refused[call.ID] {
				continue // outside the agent's permissions: never run
			}
			call.Requestor = string(m.Role)
			env.Call(call)
		}
	}
	return env, nil
}

// refusedCalls are the ids of the calls whose results, among the tool
// messages at the head of after (those answering the message before it),
// say proctor refused them. Ids are unique within one message's calls.
func refusedCalls(after []result.Message) map[string]bool {
	var out map[string]bool
	for _, m := range after {
		if m.Role != result.RoleTool {
			break
		}
		if m.Refused {
			if out == nil {
				out = map[string]bool{}
			}
			out[m.ToolCallID] = true
		}
	}
	return out
}

func (s *Scorer) goldHash(task *domains.Task) (string, error) {
	s.mu.Lock()
	h, ok := s.gold[task.ID]
	s.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err := s.domain.GoldHash(task)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.gold[task.ID] = h
	s.mu.Unlock()
	return h, nil
}

// DoNothingPasses is [DoNothingPasses] under the scorer's reward bases
// (strict mode included), cached per task id like gold hashes.
func (s *Scorer) DoNothingPasses(task *domains.Task) (bool, error) {
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
func (s *Scorer) freshHash(task *domains.Task) (string, error) {
	if is := task.InitialState; is != nil && (len(is.InitializationActions) > 0 || is.InitializationData != nil || len(is.MessageHistory) > 0) {
		return s.domain.FreshHash(task)
	}
	s.fresh.once.Do(func() { s.fresh.hash, s.fresh.err = s.domain.FreshHash(nil) })
	return s.fresh.hash, s.fresh.err
}

// DBDiff explains a failed DB check record by record: the gold environment
// (the task's expected actions replayed, as the DB check hashes it) against
// the simulation's final one (its transcript replayed, see Replay), at most
// limit differences.
func DBDiff(d *domains.Domain, task *domains.Task, messages []result.Message, limit int) ([]domains.RecordDiff, bool, error) {
	gold, err := d.GoldEnv(task)
	if err != nil {
		return nil, false, fmt.Errorf("gold environment of task %s: %w", task.ID, err)
	}
	final, err := Replay(d, task, messages)
	if err != nil {
		return nil, false, fmt.Errorf("replaying task %s: %w", task.ID, err)
	}
	return domains.DiffEnvs(gold, final, limit)
}
