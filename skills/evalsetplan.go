package skills

import (
	"cmp"
	"context"
	"maps"
	"net/http"
	"slices"
	"time"

	"google.golang.org/adk/model"

	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring/metric"
	"github.com/proctor-eval/proctor/store"
)

// EvalSetPlan is an eval-set request and its sets validated and resolved,
// once: the request with its defaults, the run's config, the scorer that
// checked the sets' metrics and cases and will score them, and the model
// that plays the user of scenario cases. What a front end asks of a
// request and what StartEvalSets needs come from the plan, so no step
// checks the request or its sets again. A plan is started once.
type EvalSetPlan struct {
	req     EvalSetRequest // with its defaults
	cfg     result.EvalSetConfig
	sets    []*evalset.Set
	headers http.Header
	scorer  *metric.Scorer
	// user plays the user of scenario cases; nil without a user model or
	// scenario case.
	user model.LLM
	// askedConcurrency is the concurrency the request asked for when the
	// service clamped it, 0 otherwise.
	askedConcurrency int
}

// Config returns the planned run's config.
func (p *EvalSetPlan) Config() result.EvalSetConfig { return p.cfg }

// Sets returns the eval sets the plan plays.
func (p *EvalSetPlan) Sets() []*evalset.Set { return p.sets }

// CaseRuns is how many case runs the plan plays: every case of every set,
// num_runs times.
func (p *EvalSetPlan) CaseRuns() int {
	n := 0
	for _, s := range p.sets {
		n += len(s.Cases)
	}
	return n * max(p.cfg.NumRuns, 1)
}

// PlanEvalSets checks a request and its sets and resolves them: the
// request's defaults and the service's bounds, the sets' metrics and
// cases against the scorer that will score them, and the run's models
// (made, not called). Nothing contacts the agent or touches the database.
// A bad request or set is an *InvalidRequestError.
func (s *Service) PlanEvalSets(ctx context.Context, req EvalSetRequest, sets []*evalset.Set) (*EvalSetPlan, error) {
	if err := s.checkEvalSets(req, sets); err != nil {
		return nil, err
	}
	if req.MaxResponseBytes == 0 {
		req.MaxResponseBytes = s.maxResponse()
	}
	r := req.withDefaults()
	p := &EvalSetPlan{req: r, sets: sets, headers: headerOf(r.Headers), cfg: result.EvalSetConfig{
		Agent: r.AgentURL, Paths: r.Paths, MetricsFile: r.MetricsFile, NumRuns: r.NumRuns, Concurrency: r.Concurrency,
		Transport: r.Transport, Protocol: r.Protocol, Streaming: r.Streaming,
		JudgeModel: cmp.Or(r.JudgeModel, s.JudgeModel), UserModel: cmp.Or(r.UserModel, s.UserModel),
		Timeout: r.Timeout, RequestTimeout: r.RequestTimeout,
	}}
	if limit := s.MaxSimulationConcurrency; limit > 0 && p.cfg.Concurrency > limit {
		p.askedConcurrency, p.cfg.Concurrency = p.cfg.Concurrency, limit
	}
	p.cfg.HeaderNames = slices.Sorted(maps.Keys(p.headers))
	// The models outlive the request that planned them.
	ctx = context.WithoutCancel(ctx)
	var err error
	if p.scorer, err = s.metricScorer(ctx, p.cfg); err != nil {
		return nil, err
	}
	if err := checkScoring(p.scorer, sets, nil); err != nil {
		return nil, err
	}
	if p.cfg.UserModel != "" && s.Models != nil && hasScenario(sets) {
		if p.user, err = s.Models.Model(ctx, p.cfg.UserModel, llm.RoleUser); err != nil {
			return nil, invalid("user_model: %v", err)
		}
	}
	return p, nil
}

// CheckEvalSets checks a request and its sets as PlanEvalSets does,
// without reaching the agent (PlanEvalSets, whose plan it drops): a bad
// request or set is an *InvalidRequestError. A front end that goes on to
// run the request plans it instead.
func (s *Service) CheckEvalSets(req EvalSetRequest, sets []*evalset.Set) error {
	_, err := s.PlanEvalSets(context.Background(), req, sets)
	return err
}

// StartEvalSets runs what a plan set up: it reaches the agent (when a case
// plays against it) and records the run as running.
func (s *Service) StartEvalSets(ctx context.Context, p *EvalSetPlan) (*EvalSetJob, error) {
	job := &EvalSetJob{sets: p.sets, askedConcurrency: p.askedConcurrency}
	id := store.NewID()
	agent, err := s.reachEvalSetAgent(ctx, p, job, id)
	if err != nil {
		return nil, err
	}
	job.run = evaluation.NewEvalSetRun(id, p.cfg, agent, p.sets)
	parts, err := s.evalSetParts(ctx, p, job)
	if err != nil {
		job.Close()
		return nil, err
	}
	job.runner = &evaluation.Runner{
		CaseRecorder: parts.recorder, CaseScorer: parts.scorer,
		Store: s.evaluationStore(), Concurrency: max(p.cfg.Concurrency, 1), Slots: s.simulationSlots(),
		TracerProvider: s.TracerProvider,
	}
	return job, nil
}

// reachEvalSetAgent reaches the agent of run id, when a case plays against
// it: an ECP agent's pool, else an A2A connection; the job keeps either.
func (s *Service) reachEvalSetAgent(ctx context.Context, p *EvalSetPlan, job *EvalSetJob, id string) (result.AgentInfo, error) {
	r := p.req
	switch {
	case needsAgent(p.sets) && ecp.IsTarget(r.AgentURL):
		pool, info, err := s.startECPPool(ctx, ecpStart{
			agent: r.AgentURL, config: r.ECPConfig,
			requestTimeout: time.Duration(p.cfg.RequestTimeout), maxResponse: r.MaxResponseBytes, logID: id,
		})
		if err != nil {
			return result.AgentInfo{}, err
		}
		job.ecpPool = pool
		return ecpAgentInfo(r.AgentURL, info), nil
	case needsAgent(p.sets):
		var err error
		if job.traceOpts, err = s.traceOptions(id); err != nil {
			return result.AgentInfo{}, err
		}
		client, err := s.dialEvalSetAgent(ctx, r, p.cfg, p.headers, job.traceOpts...)
		if err != nil {
			return result.AgentInfo{}, err
		}
		job.client = client
		return agentInfo(client, result.Config{Agent: r.AgentURL}), nil
	}
	return result.AgentInfo{URL: r.AgentURL}, nil
}

// PrepareEvalSets plans a request and starts it (PlanEvalSets, then
// StartEvalSets). A bad request or set is an *InvalidRequestError.
func (s *Service) PrepareEvalSets(ctx context.Context, req EvalSetRequest, sets []*evalset.Set) (*EvalSetJob, error) {
	p, err := s.PlanEvalSets(ctx, req, sets)
	if err != nil {
		return nil, err
	}
	return s.StartEvalSets(ctx, p)
}
