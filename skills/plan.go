package skills

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
	"github.com/proctor-eval/proctor/translation"
)

// Plan is an evaluation request validated and resolved, once: the
// evaluation's record (a new one with the request's defaults, or the
// stored one to resume), its domain and tasks, its translation profile,
// user simulators and judge. What a front end asks of a request (how many
// simulations it runs) and what Start needs come from the plan, so no
// step checks the request or resolves its tasks again. A plan is started
// once.
type Plan struct {
	eval    *result.Evaluation
	headers http.Header
	domain  *domains.Domain
	// selected are the tasks the evaluation selects; tasks this shard's
	// share of them, the ones it runs.
	selected, tasks []*domains.Task
	profile         agent.ProfileName
	users           rollout.UserFactory
	judge           scoring.Judge
	// resume is set for a plan that resumes a stored evaluation, which
	// had finished resumed simulations when it was read.
	resume  bool
	resumed int
	// askedConcurrency is the concurrency the request asked for when the
	// service clamped it, 0 otherwise.
	askedConcurrency int
}

// Evaluation returns the planned evaluation's record.
func (p *Plan) Evaluation() *result.Evaluation { return p.eval }

// Tasks returns the tasks the evaluation runs (each for every trial).
func (p *Plan) Tasks() []*domains.Task { return p.tasks }

// Resume reports whether the plan resumes a stored evaluation.
func (p *Plan) Resume() bool { return p.resume }

// Simulations is how many simulations the plan runs: its tasks (after
// num_tasks and sharding) times its trials, less those a resumed
// evaluation has already finished.
func (p *Plan) Simulations() int {
	return max(len(p.tasks)*max(p.eval.Config.NumTrials, 1)-p.resumed, 0)
}

// Plan checks a request and resolves it: its defaults, its domain and
// tasks, its models (made, not called) and, for a resume, the stored
// evaluation, which must be resumable here. Nothing contacts the agent,
// and a new request does not touch the database. A bad request is an
// *InvalidRequestError listing what to fix.
func (s *Service) Plan(ctx context.Context, req EvaluationRequest) (*Plan, error) {
	if err := s.checkRequest(req); err != nil {
		return nil, err
	}
	if req.Resume != "" {
		return s.planResume(ctx, req)
	}
	return s.planNew(ctx, req)
}

// checkRequest is what every request meets before its domain is looked
// at: its shape, the service's ceiling and its guards on agents.
func (s *Service) checkRequest(req EvaluationRequest) error {
	if err := req.check(s.validator()); err != nil {
		return err
	}
	if err := s.checkCeiling(req.MaxResponseBytes); err != nil {
		return err
	}
	if err := s.checkOwnAgent(req.AgentURL); err != nil {
		return err
	}
	return s.checkECP(req)
}

// planNew plans a new evaluation. The built-in agent's refusal of a
// domain it cannot play and the task selection's violations are reported
// together, so that a command line hears of every fix at once.
func (s *Service) planNew(ctx context.Context, req EvaluationRequest) (*Plan, error) {
	eval, err := s.newRecord(req)
	if err != nil {
		return nil, err
	}
	p := &Plan{eval: eval, headers: req.header()}
	p.askedConcurrency = s.clampConcurrency(&eval.Config)
	cfg := eval.Config
	domain, split, err := s.domain(cfg)
	var refused error
	if err == nil {
		if cfg.Agent == BuiltinAgent {
			refused = builtinPlays(domain)
		}
		p.selected, err = selectTasks(domain, split, cfg)
	}
	if err != nil || refused != nil {
		return nil, joinInvalid(refused, err)
	}
	if err := s.resolve(ctx, p, domain, split); err != nil {
		return nil, err
	}
	return p, nil
}

// planResume plans the resumption of a stored evaluation with its own
// settings; only the request's headers and concurrency apply.
func (s *Service) planResume(ctx context.Context, req EvaluationRequest) (*Plan, error) {
	eval, err := s.resumable(ctx, req.Resume)
	if err != nil {
		return nil, err
	}
	p := &Plan{eval: eval, headers: req.header(), resume: true, resumed: len(eval.Simulations)}
	if req.Concurrency > 0 {
		eval.Config.Concurrency = req.Concurrency
	}
	p.askedConcurrency = s.clampConcurrency(&eval.Config)
	domain, split, err := s.domain(eval.Config)
	if err != nil {
		return nil, err
	}
	if p.selected, err = selectTasks(domain, split, eval.Config); err != nil {
		return nil, err
	}
	if err := s.resolve(ctx, p, domain, split); err != nil {
		return nil, err
	}
	if eval.Config.Agent == BuiltinAgent {
		if err := builtinPlays(domain); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// resolve completes a plan whose tasks are selected: this shard's share,
// the split, the tool manifest checked against the domain, the profile,
// and the user simulators and judge (made, not called: a missing key or
// an unknown provider shows here).
func (s *Service) resolve(ctx context.Context, p *Plan, domain *domains.Domain, split string) error {
	cfg := &p.eval.Config
	p.domain, p.tasks, cfg.Split = domain, ShardTasks(p.selected, cfg.ShardIndex, cfg.NumShards), split
	if err := checkAllowTools(domain, cfg.ECPAllowTools); err != nil {
		return err
	}
	profile, err := translation.ProfileByName(agent.ProfileName(cfg.Profile))
	if err != nil {
		return invalid("profile: %v", err)
	}
	p.profile = profile.Name()
	// The models outlive the request that planned them.
	p.users, p.judge, err = s.llmParts(context.WithoutCancel(ctx), cfg, p.tasks)
	return err
}

// Check validates a new evaluation request against the domains without
// touching the database or the agent: what a command line can be told
// before anything starts (Plan, whose plan it drops). A resume is checked
// only as far as the request goes: the stored evaluation says the rest,
// and Plan checks it.
func (s *Service) Check(req EvaluationRequest) error {
	if req.Resume != "" {
		return s.checkRequest(req)
	}
	_, err := s.Plan(context.Background(), req)
	return err
}

// Simulations is how many simulations a new evaluation request runs: its
// tasks (after num_tasks and sharding) times its trials; 0 for a resume,
// which runs what its evaluation was created with. A front end that goes
// on to run the request plans it (Plan) and asks the plan instead.
func (s *Service) Simulations(req EvaluationRequest) (int, error) {
	if req.Resume != "" {
		return 0, nil
	}
	p, err := s.Plan(context.Background(), req)
	if err != nil {
		return 0, err
	}
	return p.Simulations(), nil
}

// ResumeSimulations is how many simulations resuming evaluation id would
// run (those it has not finished), after checking that it may be resumed
// here, for the caller of ctx: what Simulations is for a new request.
func (s *Service) ResumeSimulations(ctx context.Context, id string) (int, error) {
	p, err := s.Plan(ctx, EvaluationRequest{Resume: id})
	if err != nil {
		return 0, err
	}
	return p.Simulations(), nil
}

// Start runs what a plan set up: it reaches the agent (starting the
// built-in one if asked) and records the evaluation as running. A resume's
// stored evaluation is read again first, as a plan may have waited (in a
// server's queue) while another resumed it: it must still be resumable,
// and the simulations it finished meanwhile are kept.
func (s *Service) Start(ctx context.Context, p *Plan) (*Run, error) {
	if p.resume {
		stored, err := s.loadResumable(ctx, p.eval.ID)
		if err != nil {
			return nil, err
		}
		stored.Config = p.eval.Config // as planned
		p.eval, p.resumed = stored, len(stored.Simulations)
	}
	return s.start(ctx, p)
}

// Prepare plans a request and starts it (Plan, then Start). A bad request
// is an *InvalidRequestError; a resume of an unknown or completed
// evaluation too, and an agent the private-target guard refuses to reach.
func (s *Service) Prepare(ctx context.Context, req EvaluationRequest) (*Run, error) {
	p, err := s.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.start(ctx, p)
}

// resumable reads a stored evaluation that may be resumed here: one that
// has not completed, plays (it is not a rescore) and meets this service's
// guards on agents.
func (s *Service) resumable(ctx context.Context, id string) (*result.Evaluation, error) {
	eval, err := s.loadResumable(ctx, id)
	if err != nil {
		return nil, err
	}
	if eval.RescoredFrom != "" {
		return nil, invalid("resume: evaluation %s scored %s again and plays nothing: rescore %s again instead", eval.ID, eval.RescoredFrom, eval.RescoredFrom)
	}
	if err := s.checkStoredAgent(eval.Config); err != nil {
		return nil, fmt.Errorf("resume: evaluation %s: %w", eval.ID, err)
	}
	return eval, nil
}

// loadResumable reads a stored evaluation that is neither completed nor
// running.
func (s *Service) loadResumable(ctx context.Context, id string) (*result.Evaluation, error) {
	eval, err := s.results().Evaluation(ctx, id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
			return nil, invalid("resume: %v", err)
		}
		return nil, err
	}
	if eval.Status == result.StatusCompleted {
		return nil, invalid("resume: evaluation %s is already completed", eval.ID)
	}
	if eval.Status == result.StatusRunning && !s.writerGone(ctx, eval.ID) {
		// A proctor that died leaves "running" behind, but the store is
		// opened to mark such evaluations interrupted whenever no other
		// proctor has it open, and a writer known to be gone is taken
		// over: this one may be running elsewhere now.
		return nil, invalid("resume: evaluation %s is running (in another proctor on this database, or one that stopped while another proctor had the database open: it becomes interrupted, and resumable, once no proctor has the database open)", eval.ID)
	}
	return eval, nil
}

// checkStoredAgent checks a stored evaluation's agent against this
// service's request-time guards, which the request that made it may never
// have met (an evaluation the CLI started, resumed through a server): the
// built-in agent where the service starts none, an ecp+stdio: command off
// the allow-list, an ecp_config the service would refuse. Private targets
// are refused when the agent is reached (the service's client options
// apply to resumed evaluations too).
func (s *Service) checkStoredAgent(cfg result.Config) error {
	if err := s.checkOwnAgent(cfg.Agent); err != nil {
		return err
	}
	if ecp.IsTarget(cfg.Agent) {
		return s.checkECPTarget(cfg.Agent, cfg.ECPConfig)
	}
	return nil
}
