package skills

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring/metric"
	"github.com/proctor-eval/proctor/store"
)

// Eval-set run defaults.
const (
	DefaultNumRuns = 1
	// DefaultCaseTimeout bounds one case run: every invocation of it.
	DefaultCaseTimeout = 10 * time.Minute
	// MaxEvalSetRuns bounds num_runs.
	MaxEvalSetRuns = 100
)

// EvalSetRequest asks for a run of eval sets against an agent: the
// parameters of the run_evalset skill, with their wire names, and of
// proctor evalset run. The sets themselves are given apart (files for the
// CLI, an inline set for the skill).
type EvalSetRequest struct {
	AgentURL string `json:"agent_url" validate:"required,max=2048"`
	// NumRuns plays every case this many times (tRPC-Agent-Go's numRuns);
	// pass@k and pass^k are reported for every k up to it.
	NumRuns     int    `json:"num_runs,omitempty" validate:"gte=0,lte=100"`
	Concurrency int    `json:"concurrency,omitempty" validate:"gte=0,lte=10000"`
	Transport   string `json:"transport,omitempty" validate:"omitempty,oneof=jsonrpc rest grpc"`
	Protocol    string `json:"protocol,omitempty" validate:"omitempty,oneof=1.0 0.3"`
	Streaming   string `json:"streaming,omitempty" validate:"omitempty,oneof=auto on off"`
	// JudgeModel judges the LLM metrics whose criterion names no model;
	// UserModel plays the user of scenario cases. Empty: the service's.
	JudgeModel string `json:"judge_model,omitempty" validate:"omitempty,max=200"`
	UserModel  string `json:"user_model,omitempty" validate:"omitempty,max=200"`
	// Timeout bounds one case run; RequestTimeout one request.
	Timeout        result.Duration `json:"timeout,omitempty"`
	RequestTimeout result.Duration `json:"request_timeout,omitempty"`
	Retries        *int            `json:"retries,omitempty" validate:"omitempty,gte=0,lte=20"`
	// MaxResponseBytes caps one reply of the agent; it may lower the
	// service's ceiling, not raise it.
	MaxResponseBytes int64 `json:"max_response_bytes,omitempty" validate:"omitempty,gte=1024"`
	// Headers are sent to the agent; their values are never echoed or
	// stored, only their names.
	Headers map[string]string `json:"headers,omitempty" validate:"max=64"`
	// ECPConfig is an ECP agent's agent/initialize config (agent_url
	// ecp+stdio:... or ecp+ws://...), as for run_evaluation.
	ECPConfig map[string]any `json:"ecp_config,omitempty"`
	// Paths and MetricsFile are recorded as given (the CLI's files).
	Paths       []string `json:"-"`
	MetricsFile string   `json:"-"`
}

// withDefaults fills the zero fields.
func (r EvalSetRequest) withDefaults() EvalSetRequest {
	r.NumRuns = cmp.Or(r.NumRuns, DefaultNumRuns)
	r.Concurrency = cmp.Or(r.Concurrency, DefaultConcurrency)
	r.Streaming = cmp.Or(r.Streaming, string(a2aclient.StreamingAuto))
	r.Timeout = cmp.Or(r.Timeout, result.Duration(DefaultCaseTimeout))
	r.RequestTimeout = cmp.Or(r.RequestTimeout, result.Duration(a2aclient.DefaultRequestTimeout))
	if r.Retries == nil {
		n := a2aclient.DefaultRetries
		r.Retries = &n
	}
	return r
}

// EvalSetJob is a prepared run of eval sets: validated, its agent reached,
// its record created. Execute runs it; Close releases its connection.
type EvalSetJob struct {
	run    *result.EvalSetRun
	sets   []*evalset.Set
	runner *evaluation.Runner
	client *a2aclient.Client
	// extra are the connections of cases that ask for another transport.
	extra []*a2aclient.Client
	// ecpPool holds the ECP agents of a run against an ECP agent.
	ecpPool *ecp.Pool
	// askedConcurrency is the concurrency asked for when the service
	// clamped it, 0 otherwise.
	askedConcurrency int
	// traceOpts record the run's exchanges in its wire trace, on every
	// connection (Service.WireTrace).
	traceOpts []a2aclient.Option
}

// Run returns the run's record; after Execute it holds every case result.
func (j *EvalSetJob) Run() *result.EvalSetRun { return j.run }

// Sets returns the eval sets the run plays.
func (j *EvalSetJob) Sets() []*evalset.Set { return j.sets }

// ClampedConcurrency reports the concurrency asked for when the service
// lowered it to its bound, and whether it did.
func (j *EvalSetJob) ClampedConcurrency() (asked int, clamped bool) {
	return j.askedConcurrency, j.askedConcurrency > 0
}

// Close releases the job's connection. It is safe to call more than once.
func (j *EvalSetJob) Close() {
	if j.client != nil {
		_ = j.client.Close()
	}
	for _, c := range j.extra {
		_ = c.Close()
	}
	if j.ecpPool != nil {
		_ = j.ecpPool.Close()
	}
	j.client, j.extra, j.ecpPool = nil, nil, nil
}

// Execute plays every case trial, reporting each finished one to
// onProgress (which may be nil; Progress.LastCase names it). When ctx ends
// early the run is kept as interrupted with what finished; the returned
// error is then nil and Run().Status says so.
func (j *EvalSetJob) Execute(ctx context.Context, onProgress func(evaluation.Progress)) error {
	j.runner.OnProgress = onProgress
	if err := j.runner.RunCases(ctx, j.run, j.sets); err != nil {
		return fmt.Errorf("eval-set run %s: %w", j.run.ID, err)
	}
	return nil
}

// checkEvalSets validates the request and refuses empty or colliding sets.
func (s *Service) checkEvalSets(req EvalSetRequest, sets []*evalset.Set) error {
	if err := s.validator().Struct(req); err != nil {
		return validationError(err)
	}
	if req.Timeout < 0 || req.RequestTimeout < 0 {
		return invalid("timeout and request_timeout must not be negative")
	}
	if err := s.checkEvalSetAgent(req, sets); err != nil {
		return err
	}
	if problems := modelSpecProblems(req.UserModel, req.JudgeModel); len(problems) > 0 {
		return &InvalidRequestError{Violations: problems}
	}
	if err := s.checkCeiling(req.MaxResponseBytes); err != nil {
		return err
	}
	if len(sets) == 0 {
		return invalid("no eval sets: give at least one set with at least one case")
	}
	var errs []error
	ids := map[string]bool{}
	for _, set := range sets {
		if len(set.Cases) == 0 {
			errs = append(errs, fmt.Errorf("eval set %q (%s) has no cases", set.ID, set.Path))
		}
		if ids[set.ID] {
			errs = append(errs, fmt.Errorf("two eval sets have the id %q: give one another evalSetId", set.ID))
		}
		ids[set.ID] = true
	}
	if len(errs) > 0 {
		return invalid("%v", errors.Join(errs...))
	}
	return nil
}

// needsAgent reports whether any case is played against the agent (trace
// cases are scored from their recording).
func needsAgent(sets []*evalset.Set) bool {
	for _, set := range sets {
		for _, c := range set.Cases {
			if c.Mode != evalset.ModeTrace {
				return true
			}
		}
	}
	return false
}

// dialEvalSetAgent reaches the agent of a run, behind the service's guards.
func (s *Service) dialEvalSetAgent(ctx context.Context, r EvalSetRequest, cfg result.EvalSetConfig, headers http.Header, extra ...a2aclient.Option) (*a2aclient.Client, error) {
	opts := clientOptions(result.Config{
		RequestTimeout: cfg.RequestTimeout, Concurrency: cfg.Concurrency, Transport: cfg.Transport, Protocol: cfg.Protocol,
		Streaming: cfg.Streaming, Retries: *r.Retries, MaxResponseBytes: r.MaxResponseBytes,
	}, headers)
	opts = append(append(opts, s.ClientOptions...), extra...)
	if s.TracerProvider != nil {
		opts = append(opts, a2aclient.WithTracerProvider(s.TracerProvider))
	}
	client, err := dialChecked(ctx, r.AgentURL, opts...)
	if err != nil {
		if errors.Is(err, a2aclient.ErrDeniedTarget) {
			return nil, invalid("agent_url %q: %v", truncate(r.AgentURL, 100), err)
		}
		return nil, &AgentError{Target: r.AgentURL, Err: err}
	}
	return client, nil
}

// evalSetParts are what plays and scores a run's cases.
type evalSetParts struct {
	recorder evaluation.CaseRecorder
	scorer   evaluation.CaseScorer
}

// checkScoring checks every set's metrics (metrics, when not nil, in
// place of each set's own) and cases against the scorer that will score
// them, reporting every violation.
func checkScoring(sc *metric.Scorer, sets []*evalset.Set, metrics []*evalset.Metric) error {
	var errs []string
	for _, set := range sets {
		ms := set.Metrics
		if metrics != nil {
			ms = metrics
		}
		if err := sc.Check(ms); err != nil {
			errs = append(errs, fmt.Sprintf("eval set %s: %v", set.ID, err))
		}
		if err := sc.CheckCases(set.Cases, ms); err != nil {
			errs = append(errs, fmt.Sprintf("eval set %s: %v", set.ID, err))
		}
	}
	if len(errs) > 0 {
		return &InvalidRequestError{Violations: errs}
	}
	return nil
}

// evalSetParts makes a run's case player (over the job's client, and a
// client per other transport its cases ask for) around the plan's scorer
// and scenario user.
func (s *Service) evalSetParts(ctx context.Context, p *EvalSetPlan, job *EvalSetJob) (*evalSetParts, error) {
	opts := rollout.CaseOptions{CaseTimeout: time.Duration(p.cfg.Timeout), UserIDHeader: rollout.DefaultUserIDHeader, TracerProvider: s.TracerProvider}
	if p.user != nil {
		opts.ScenarioUser = rollout.LLMUserConfig{Model: p.user}
	}
	agents, err := s.caseAgents(ctx, p, job)
	if err != nil {
		return nil, err
	}
	return &evalSetParts{
		recorder: caseRecorder{player: rollout.NewCasePlayer(opts), agents: agents},
		scorer:   caseScorer{p.scorer},
	}, nil
}

// metricScorer makes the scorer of a run: its judge is the run's judge
// model, else each metric's own, through the service's models.
func (s *Service) metricScorer(ctx context.Context, cfg result.EvalSetConfig) (*metric.Scorer, error) {
	if s.Models == nil {
		return metric.New(), nil
	}
	if src, ok := s.Models.(*llm.Source); ok {
		return metric.New(metric.WithJudgeSource(src, cfg.JudgeModel)), nil
	}
	if cfg.JudgeModel == "" {
		return metric.New(), nil
	}
	m, err := s.Models.Model(ctx, cfg.JudgeModel, llm.RoleJudge)
	if err != nil {
		return nil, invalid("judge_model: %v", err)
	}
	return metric.New(metric.WithJudgeModel(m)), nil
}

func hasScenario(sets []*evalset.Set) bool {
	for _, set := range sets {
		for _, c := range set.Cases {
			if c.Scenario != nil {
				return true
			}
		}
	}
	return false
}

// caseAgents are the run's agents by transport: "" is the run's own
// connection, and each transport a YAML case selects gets its own.
func (s *Service) caseAgents(ctx context.Context, p *EvalSetPlan, job *EvalSetJob) (map[string]rollout.Agent, error) {
	agents := map[string]rollout.Agent{}
	if job.ecpPool != nil {
		agents[""] = ecp.NewAgent(job.ecpPool, 0)
		return agents, nil
	}
	if job.client == nil {
		return agents, nil
	}
	agents[""] = a2aagent.New(job.client)
	for _, set := range p.sets {
		for _, c := range set.Cases {
			if c.Transport == "" || agents[c.Transport] != nil {
				continue
			}
			r := p.req
			r.Transport = c.Transport
			tc := p.cfg
			tc.Transport = c.Transport
			client, err := s.dialEvalSetAgent(ctx, r, tc, p.headers, job.traceOpts...)
			if err != nil {
				return nil, fmt.Errorf("case %s asks for transport %s: %w", c.ID, c.Transport, err)
			}
			job.extra = append(job.extra, client)
			agents[c.Transport] = a2aagent.New(client)
		}
	}
	return agents, nil
}

// caseRecorder records case trials played by a rollout.CasePlayer, each on
// the agent of its transport.
type caseRecorder struct {
	player *rollout.CasePlayer
	agents map[string]rollout.Agent
}

// RecordCase plays a trial of c and records it, unscored.
func (p caseRecorder) RecordCase(ctx context.Context, _ *evalset.Set, c *evalset.Case, _ int) *result.CaseResult {
	rec, err := p.player.Play(ctx, p.agents[c.Transport], c)
	if err != nil {
		return &result.CaseResult{ErrorMessage: err.Error(), StartedAt: time.Now().UTC()}
	}
	cr := &result.CaseResult{
		Actual: rec.Actual, Turns: rec.Turns, Requests: rec.Requests, NonConformant: rec.NonConformant,
		SessionID: rec.ContextID, UserID: rec.UserID, LLMCalls: rec.LLMCalls, Inspections: rec.Inspections,
		StartedAt: rec.StartedAt, DurationMS: rec.DurationMS, ErrorMessage: rec.Error,
	}
	cr.Metrics = result.AggregateRequests(rec.Requests)
	return cr
}

// caseScorer scores recorded case runs with a metric.Scorer.
type caseScorer struct{ sc *metric.Scorer }

// ScoreCase scores a case run; one that could not be played is failed
// with why, unscored, as tRPC-Agent-Go reports a failed inference.
func (a caseScorer) ScoreCase(ctx context.Context, set *evalset.Set, c *evalset.Case, r *result.CaseResult) {
	if r.ErrorMessage != "" {
		r.FinalEvalStatus = result.EvalFailed
		return
	}
	scored, err := a.sc.ScoreCase(ctx, c, r.Actual, set.Metrics)
	if err != nil {
		r.FinalEvalStatus, r.ErrorMessage = result.EvalFailed, err.Error()
		return
	}
	r.FinalEvalStatus, r.ErrorMessage = scored.FinalEvalStatus, scored.ErrorMessage
	r.OverallEvalMetricResults = scored.OverallEvalMetricResults
	if m := metric.ScoreInspect(c.Inspect, r.Inspections); m != nil {
		r.OverallEvalMetricResults = append(r.OverallEvalMetricResults, m)
		if m.EvalStatus == result.EvalFailed {
			r.FinalEvalStatus = result.EvalFailed
		}
	}
	r.EvalMetricResultPerInvocation = scored.EvalMetricResultPerInvocation
	r.Expected = scored.Expected
	r.LLMCalls = append(r.LLMCalls, scored.LLMCalls...)
	r.Metrics.LLMUsage = llm.UsageByRole(r.LLMCalls)
}

// Summarize totals case trials with metric.Summarize.
func (caseScorer) Summarize(results []*result.CaseResult, numTrials int) result.EvalSetSummary {
	return metric.Summarize(results, numTrials)
}

// RescoreEvalSets scores the case runs of the stored eval-set run src (an
// id or unique prefix) again into a new run, with metrics in place of each
// set's when not nil and judgeModel judging (empty: the service's, else
// each metric's own). Nothing is played.
func (s *Service) RescoreEvalSets(ctx context.Context, src string, metrics []*evalset.Metric, judgeModel string, onProgress func(evaluation.Progress)) (*result.EvalSetRun, error) {
	if judgeModel != "" && !validModelSpec(judgeModel) {
		return nil, invalid("judge_model %q: want provider:model, such as openai:gpt-4.1", truncate(judgeModel, 60))
	}
	from, err := s.results().EvalSetRun(ctx, src)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, evaluation.ErrNotEvalSetRun) {
			return nil, invalid("%v", err)
		}
		return nil, err
	}
	cfg := from.Config
	cfg.JudgeModel = cmp.Or(judgeModel, s.JudgeModel)
	sc, err := s.metricScorer(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := checkScoring(sc, evaluation.SetsOf(from.Sets), metrics); err != nil {
		return nil, err
	}
	dst := evaluation.NewEvalSetRun(store.NewID(), cfg, from.Agent, nil)
	r := &evaluation.Runner{
		CaseScorer: caseScorer{sc},
		Store:      s.evaluationStore(), Concurrency: max(cfg.Concurrency, 1), OnProgress: onProgress,
	}
	if err := evaluation.RescoreEvalSets(ctx, r, from, dst, metrics); err != nil {
		return nil, err
	}
	return dst, nil
}

// ListEvalSetRuns returns the stored eval-set runs, newest first, without
// their case results: at most limit (0: DefaultResultsLimit), of the agent
// at agentURL when it is not empty.
func (s *Service) ListEvalSetRuns(ctx context.Context, agentURL string, limit int) ([]result.EvalSetRun, error) {
	page, err := s.results().EvalSetRuns(ctx, ResultsRequest{AgentURL: agentURL, Limit: limit})
	if err != nil {
		return nil, err
	}
	return page.Runs, nil
}

// GetEvalSetRun is get_results for the id of an eval-set run: the run with
// its case results. IncludeTranscripts false leaves out what makes it
// large (see StripEvalSetRun).
func (s *Service) GetEvalSetRun(ctx context.Context, req ResultsRequest) (*result.EvalSetRun, error) {
	if err := s.validator().Struct(&req); err != nil {
		return nil, validationError(err)
	}
	if req.ID == "" {
		return nil, invalid("id: give the id of an eval-set run")
	}
	run, err := s.results().EvalSetRun(ctx, req.ID)
	switch {
	case errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) || errors.Is(err, evaluation.ErrNotEvalSetRun):
		return nil, invalid("id: %v", err)
	case err != nil:
		return nil, err
	}
	if req.IncludeTranscripts != nil && !*req.IncludeTranscripts {
		return StripEvalSetRun(run, true), nil
	}
	return run, nil
}

// StripEvalSetRun returns a copy of run without the sets' cases (the input
// as played, kept to score the run again). With invocations it also leaves
// out, of every case run, the invocations played and expected (also those
// of each invocation's verdict), the turns seen on the wire and the model
// calls: the verdicts, scores, reasons and metrics stay. run is left
// alone.
func StripEvalSetRun(run *result.EvalSetRun, invocations bool) *result.EvalSetRun {
	cp := *run
	cp.Sets = make([]result.EvalSetInfo, len(run.Sets))
	for i, s := range run.Sets {
		s.Cases = nil
		cp.Sets[i] = s
	}
	if !invocations {
		return &cp
	}
	cp.Cases = make([]*result.CaseResult, len(run.Cases))
	for i, c := range run.Cases {
		cc := *c
		cc.Actual, cc.Expected, cc.Turns, cc.LLMCalls = nil, nil, nil, nil
		cc.EvalMetricResultPerInvocation = make([]*result.InvocationResult, len(c.EvalMetricResultPerInvocation))
		for k, ir := range c.EvalMetricResultPerInvocation {
			cc.EvalMetricResultPerInvocation[k] = &result.InvocationResult{EvalMetricResults: ir.EvalMetricResults}
		}
		cp.Cases[i] = &cc
	}
	return &cp
}
