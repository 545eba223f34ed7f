package skills

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-playground/validator/v10"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/adk/model"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/domains/tau2/banking"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
	"github.com/proctor-eval/proctor/domains/tau2/load"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// DomainSource is where a Service finds its domains. A *domains.Registry is
// one, whose domains have no task splits; a *catalog.Catalog is another,
// which adds tau2-bench's domains, loaded on first use, with their splits
// (see SplitSource and Summarizer).
type DomainSource interface {
	Names() []string
	Get(name string) (*domains.Domain, error)
}

// SplitSource is a DomainSource whose domains can have task splits.
type SplitSource interface {
	// GetSplit returns a domain with the tasks of a split ("" for the
	// domain's default) and the split's name ("" for a domain without
	// splits).
	GetSplit(name, split string) (*domains.Domain, string, error)
}

// OptionSource is a SplitSource whose domains can take options
// (banking_knowledge's retrieval configuration).
type OptionSource interface {
	GetWith(name, split string, o load.Options) (*domains.Domain, string, error)
}

// Summarizer is a DomainSource that describes its domains without loading
// them, task splits included.
type Summarizer interface {
	Summaries() ([]catalog.Summary, error)
}

// Service carries out the skills against a set of domains and a database.
// It is safe for concurrent use.
type Service struct {
	Domains DomainSource
	Store   *store.DB
	// EvaluationStore, when set, is where evaluations write their records
	// and simulations instead of Store (which they are still read from):
	// a wrapper that fails writes shows how a full disk is handled.
	EvaluationStore evaluation.Store
	// ClientOptions are added to every agent connection (for example
	// a2aclient.WithDenyPrivateTargets on a shared service).
	ClientOptions []a2aclient.Option
	// WireTrace, when set, gives the wire trace of an evaluation or
	// eval-set run, by its id, before the agent is dialed: every exchange
	// with the agent (the built-in one included) is recorded in it
	// (a2aclient.WithWireTrace). The caller closes what it writes to.
	WireTrace func(id string) (*a2aclient.WireTrace, error)
	// ECP says which ECP agents (agent_url ecp+stdio:..., ecp+ws://...)
	// the service may launch or reach; the zero value launches none.
	ECP ECPSettings
	// NoBuiltin refuses agent_url "builtin" and "model:..." (a server may
	// not want to start agents on request).
	NoBuiltin bool
	// Models makes the language models of LLM user simulators and judges;
	// nil turns both off (user "llm" is then refused, and NL_ASSERTION
	// criteria cannot be met).
	Models ModelSource
	// UserModel and JudgeModel are the model specs used when a request
	// names none. Without a judge model the user model judges.
	UserModel, JudgeModel string
	// ConformanceOptions are added to every conformance run (for example
	// conformance.WithDenyPrivateTargets on a shared service).
	ConformanceOptions []conformance.Option
	// MaxResponseBytes is the ceiling on one reply of an agent under
	// evaluation, set by whoever runs the service: a request's
	// max_response_bytes may lower it, and asking for more is an invalid
	// request; a request that names none gets the ceiling. 0 means
	// a2aclient.DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// TracerProvider, when set, traces evaluations, eval-set runs and
	// conformance runs (span per evaluation, simulation, agent request,
	// tool call and model call) and sends agents the W3C trace context;
	// nil traces nothing.
	TracerProvider trace.TracerProvider
	// MaxSimulationConcurrency, when positive, bounds the simulations that
	// run at once across every evaluation of the service, and so a
	// request's concurrency: a higher one is clamped to it (concurrency
	// changes how fast an evaluation runs, never its results). 0: no bound.
	MaxSimulationConcurrency int
	// Observer, when set, sees every simulation the service's evaluations
	// record (evaluation.Runner.Observer).
	Observer evaluation.Observer

	once      sync.Once
	validate  *validator.Validate
	slotsOnce sync.Once
	slots     *evaluation.Slots
	embedMu   sync.Mutex
	embedders map[string]knowledge.Embedder // by retrieval configuration
}

// simulationSlots are the service's shared simulation slots, unbounded
// without MaxSimulationConcurrency.
func (s *Service) simulationSlots() *evaluation.Slots {
	s.slotsOnce.Do(func() {
		if s.MaxSimulationConcurrency > 0 {
			s.slots = evaluation.NewSlots(s.MaxSimulationConcurrency)
		} else {
			s.slots = evaluation.NewUnboundedSlots()
		}
	})
	return s.slots
}

// Drain stops the service's evaluations and eval-set runs from starting
// any more simulations; those running go on. Each evaluation then ends
// interrupted, keeping what finished, and a resume runs the rest. A
// server calls it when it is told to stop.
func (s *Service) Drain() { s.simulationSlots().Drain() }

// SimulationsRunning is the number of simulations running now across the
// service's evaluations (counted only with MaxSimulationConcurrency).
func (s *Service) SimulationsRunning() int { return s.simulationSlots().InUse() }

// clampConcurrency lowers an evaluation's concurrency to the service's
// bound, and returns the concurrency asked for when it did (0 otherwise).
func (s *Service) clampConcurrency(cfg *result.Config) (asked int) {
	if limit := s.MaxSimulationConcurrency; limit > 0 && cfg.Concurrency > limit {
		asked, cfg.Concurrency = cfg.Concurrency, limit
	}
	return asked
}

// evaluationStore is where evaluations write.
func (s *Service) evaluationStore() evaluation.Store {
	if s.EvaluationStore != nil {
		return s.EvaluationStore
	}
	return s.Store
}

// maxResponse is the service's ceiling on an agent's reply.
func (s *Service) maxResponse() int64 {
	if s.MaxResponseBytes > 0 {
		return s.MaxResponseBytes
	}
	return a2aclient.DefaultMaxResponseBytes
}

// checkCeiling refuses a request that asks to lift the service's limits:
// only the operator may raise them.
func (s *Service) checkCeiling(maxResponseBytes int64) error {
	if limit := s.maxResponse(); maxResponseBytes > limit {
		return invalid("max_response_bytes %d: at most %d, this service's ceiling (a request may only lower it)", maxResponseBytes, limit)
	}
	return nil
}

func (s *Service) validator() *validator.Validate {
	s.once.Do(func() { s.validate = newValidator() })
	return s.validate
}

// ModelSource makes models by spec ("openai:gpt-4.1") for a role
// (llm.RoleUser, llm.RoleJudge). An unknown provider or a missing API key is
// an error that says what to set.
type ModelSource interface {
	Model(ctx context.Context, spec, role string) (model.LLM, error)
}

// Run is a prepared evaluation: validated, its agent reached, its record
// created. Execute runs it; Close releases its connection (and its built-in
// agent, if any).
type Run struct {
	eval   *result.Evaluation
	tasks  []*domains.Task
	runner *evaluation.Runner
	client *a2aclient.Client
	// ecpPool and ecpInfo are an ECP agent's pool and initialize result
	// (client is then nil).
	ecpPool *ecp.Pool
	ecpInfo ecp.InitializeResult
	stop    context.CancelFunc
	store   *store.DB
	resumed int
	// askedConcurrency is the concurrency the request asked for when the
	// service clamped it, 0 otherwise.
	askedConcurrency int
}

// ClampedConcurrency reports the concurrency the request asked for when it
// was above the service's MaxSimulationConcurrency (the evaluation runs at
// that bound, in Evaluation().Config.Concurrency), and whether it was.
func (r *Run) ClampedConcurrency() (asked int, clamped bool) {
	return r.askedConcurrency, r.askedConcurrency > 0
}

// Evaluation returns the evaluation's record; after Execute it holds the
// scores and simulations.
func (r *Run) Evaluation() *result.Evaluation { return r.eval }

// Tasks returns the tasks the evaluation runs (each for every trial).
func (r *Run) Tasks() []*domains.Task { return r.tasks }

// Resumed is the number of simulations a resumed evaluation already had.
func (r *Run) Resumed() int { return r.resumed }

// Close releases the run's resources. It is safe to call more than once.
func (r *Run) Close() {
	if r.client != nil {
		_ = r.client.Close()
	}
	if r.ecpPool != nil {
		_ = r.ecpPool.Close()
	}
	if r.stop != nil {
		r.stop()
	}
}

// Execute runs every simulation not yet stored, reporting each finished one
// to onProgress (which may be nil). When ctx ends early the evaluation is
// kept as interrupted, with what finished; the returned error is then nil
// and Evaluation().Status says so.
func (r *Run) Execute(ctx context.Context, onProgress func(evaluation.Progress)) error {
	r.runner.OnProgress = onProgress
	if err := r.runner.Run(ctx, r.eval, r.tasks); err != nil {
		return fmt.Errorf("evaluation %s: %w", r.eval.ID, err)
	}
	if r.eval.Status == result.StatusInterrupted {
		// The runner's record of an interrupted evaluation can miss
		// simulations stored just as it was interrupted; what the database
		// holds is what a resume keeps.
		if stored, err := NewResults(r.store).Evaluation(context.WithoutCancel(ctx), r.eval.ID); err == nil {
			r.eval = stored
		}
	}
	return nil
}

// start reaches the agent of a plan (starting the built-in one if asked)
// and sets up the runner that records the evaluation.
func (s *Service) start(ctx context.Context, p *Plan) (*Run, error) {
	run := &Run{store: s.Store, resumed: p.resumed, askedConcurrency: p.askedConcurrency}
	eval, cfg, domain := p.eval, p.eval.Config, p.domain
	headers := p.headers
	eval.Config.HeaderNames = slices.Sorted(maps.Keys(headers))
	if err := s.connect(ctx, run, domain, eval.ID, cfg, headers); err != nil {
		return nil, err
	}
	var agent rollout.Agent
	if run.ecpPool != nil {
		eval.Agent, agent = ecpAgentInfo(cfg.Agent, run.ecpInfo), ecp.NewAgent(run.ecpPool, cfg.MaxSteps)
	} else {
		eval.Agent, agent = agentInfo(run.client, cfg), a2aagent.New(run.client)
	}
	// The whole selection, not this shard's share: a resume selects and
	// splits it again, and the shards of one evaluation record the same.
	eval.Config.TaskIDs = taskIDs(p.selected)
	run.eval, run.tasks = eval, p.tasks
	sim, err := rollout.NewSimulator(domain, p.profile, rollout.Limits{
		MaxSteps: cfg.MaxSteps, MaxErrors: cfg.MaxErrors, Timeout: time.Duration(cfg.Timeout),
	}).WithTracerProvider(s.TracerProvider).WithFaults(faultsOf(cfg)).WithAllowedTools(cfg.ECPAllowTools)
	if err != nil { // the plan checked them
		run.Close()
		return nil, invalid("ecp_allow_tools: %v", err)
	}
	run.runner = &evaluation.Runner{
		Simulator:   sim,
		Scorer:      scoring.NewScorer(domain, cfg.Strict).WithActionMatch(cfg.ActionMatch).WithJudge(p.judge),
		Agent:       agent,
		Users:       p.users,
		Store:       s.evaluationStore(),
		Concurrency: max(cfg.Concurrency, 1),
		Slots:       s.simulationSlots(),

		TracerProvider: s.TracerProvider,
		Observer:       s.Observer,
	}
	return run, nil
}

// newRecord makes a new evaluation's record from the request with its
// defaults.
func (s *Service) newRecord(req EvaluationRequest) (*result.Evaluation, error) {
	if req.MaxResponseBytes == 0 {
		req.MaxResponseBytes = s.maxResponse()
	}
	r := req.withDefaults()
	userModel, judgeModel := s.modelSpecs(r)
	allow, err := allowTools(r)
	if err != nil {
		return nil, err
	}
	return evaluation.NewEvaluation(store.NewID(), result.Config{
		Domain: r.Domain, Split: r.Split, Agent: r.AgentURL, Profile: r.Profile, User: r.User, Strict: r.Strict,
		ActionMatch: r.ActionMatch.OrDefault(),
		UserModel:   userModel, UserPrompt: r.UserPrompt, JudgeModel: judgeModel, JudgeSamples: r.JudgeSamples, Temperature: r.Temperature, Seed: r.Seed,
		RetrievalConfig: r.RetrievalConfig,
		NumTrials:       r.NumTrials, NumTasks: r.NumTasks, TaskIDs: r.TaskIDs,
		MaxSteps: r.MaxSteps, MaxErrors: r.MaxErrors, Concurrency: r.Concurrency,
		Timeout: r.Timeout, RequestTimeout: r.RequestTimeout,
		Transport: r.Transport, Protocol: r.Protocol, Streaming: r.Streaming, Retries: *r.Retries,
		MaxResponseBytes: r.MaxResponseBytes, ShardIndex: r.ShardIndex, NumShards: r.NumShards,
		ECPConfig: r.ECPConfig, ECPAllowTools: allow, ToolFaults: r.ToolFaults,
	}, result.AgentInfo{}), nil
}

// connect reaches the agent under evaluation, starting the built-in one
// first when it is asked for, and keeps the connection in run.
func (s *Service) connect(ctx context.Context, run *Run, domain *domains.Domain, evalID string, cfg result.Config, headers http.Header) error {
	if ecp.IsTarget(cfg.Agent) {
		return s.connectECP(ctx, run, evalID, cfg)
	}
	target, own, err := s.startOwnAgent(ctx, run, domain, cfg.Agent)
	if err != nil {
		return err
	}
	// An evaluation recorded under a higher ceiling is resumed under
	// today's.
	if cfg.MaxResponseBytes == 0 || cfg.MaxResponseBytes > s.maxResponse() {
		cfg.MaxResponseBytes = s.maxResponse()
	}
	opts := clientOptions(cfg, headers)
	if !own { // our own loopback agent needs no guard
		opts = append(opts, s.ClientOptions...)
	}
	traceOpts, err := s.traceOptions(evalID)
	if err != nil {
		run.Close()
		return err
	}
	opts = append(opts, traceOpts...)
	if s.TracerProvider != nil {
		opts = append(opts, a2aclient.WithTracerProvider(s.TracerProvider))
	}
	client, err := dialChecked(ctx, target, opts...)
	if err != nil {
		run.Close()
		if errors.Is(err, a2aclient.ErrDeniedTarget) { // a request for what this service does not do
			return invalid("agent_url %q: %v", truncate(target, 100), err)
		}
		return &AgentError{Target: target, Err: err}
	}
	run.client = client
	return nil
}

// modelOf is the model of agent_url "model:SPEC", else "".
func modelOf(agentURL string) string {
	spec, _ := ModelAgentSpec(agentURL)
	return spec
}

// checkOwnAgent refuses proctor's own agents (built-in or model) where the
// service starts no agents, and a model agent whose model cannot be made
// (no key, unknown provider): made, not called.
func (s *Service) checkOwnAgent(agentURL string) error {
	spec, isModel := ModelAgentSpec(agentURL)
	if s.NoBuiltin && (agentURL == BuiltinAgent || isModel) {
		return invalid("agent_url %q: this service does not start agents", truncate(agentURL, 100))
	}
	if !isModel {
		return nil
	}
	if s.Models == nil {
		return invalid("agent_url %q: this proctor has no language models configured", truncate(agentURL, 100))
	}
	if _, err := s.Models.Model(context.Background(), spec, llm.RoleAgent); err != nil {
		return invalid("agent_url %q: %v", truncate(agentURL, 100), err)
	}
	return nil
}

// startOwnAgent starts the agent agentURL names when it is one of
// proctor's own, on loopback until run stops (the built-in agent, or the
// LLM agent of "model:SPEC"), and returns the URL to reach the agent at
// and whether proctor started it.
func (s *Service) startOwnAgent(ctx context.Context, run *Run, domain *domains.Domain, agentURL string) (target string, own bool, err error) {
	spec, isModel := ModelAgentSpec(agentURL)
	if agentURL != BuiltinAgent && !isModel {
		return agentURL, false, nil
	}
	agentCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	run.stop = stop
	if isModel {
		target, err = s.startModelAgent(agentCtx, domain, spec)
	} else {
		target, err = startBuiltin(agentCtx, domain)
	}
	if err != nil {
		stop()
		return "", false, err
	}
	return target, true, nil
}

// startModelAgent serves proctor's LLM agent (refagent's baseline
// participant) on spec's model, on a loopback port until ctx ends.
func (s *Service) startModelAgent(ctx context.Context, d *domains.Domain, spec string) (string, error) {
	if s.Models == nil {
		return "", invalid("agent_url %q: this proctor has no language models configured", result.ModelAgentPrefix+spec)
	}
	m, err := s.Models.Model(ctx, spec, llm.RoleAgent)
	if err != nil {
		return "", invalid("agent_url %q: %v", result.ModelAgentPrefix+spec, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("start the model agent: %w", err)
	}
	go func() { _ = refagent.ServeBaseline(ctx, ln, refagent.BaselineConfig{Model: m, Domain: d.Name}) }()
	return refagent.BaseURL(ln.Addr()), nil
}

// dialChecked dials an agent and checks, before any call, that the
// interface its card chose is one the client's guard lets it reach: a card
// that points at private addresses is refused as the request it is, with
// nothing stored, rather than failing every simulation.
func dialChecked(ctx context.Context, target string, opts ...a2aclient.Option) (*a2aclient.Client, error) {
	client, err := a2aclient.Dial(ctx, target, opts...)
	if err != nil {
		return nil, err
	}
	if err := client.CheckEndpoint(ctx); err != nil {
		_ = client.Close()
		return nil, err
	}
	return client, nil
}

// traceOptions are the client options that record a run's exchanges in
// its wire trace, if the service keeps one.
func (s *Service) traceOptions(id string) ([]a2aclient.Option, error) {
	if s.WireTrace == nil {
		return nil, nil
	}
	t, err := s.WireTrace(id)
	if err != nil {
		return nil, fmt.Errorf("wire trace: %w", err)
	}
	return []a2aclient.Option{a2aclient.WithWireTrace(t)}, nil
}

// clientOptions are the connection settings an evaluation's config asks for.
func clientOptions(cfg result.Config, headers http.Header) []a2aclient.Option {
	streaming := a2aclient.StreamingMode(cfg.Streaming)
	if streaming == "" {
		streaming = a2aclient.StreamingAuto
	}
	maxResponse := cfg.MaxResponseBytes
	if maxResponse == 0 {
		maxResponse = a2aclient.DefaultMaxResponseBytes
	}
	return []a2aclient.Option{
		a2aclient.WithRequestTimeout(time.Duration(cfg.RequestTimeout)),
		a2aclient.WithMaxConnsPerHost(cfg.Concurrency),
		a2aclient.WithTransport(a2aclient.Transport(cfg.Transport)),
		a2aclient.WithProtocol(a2aclient.ProtocolVersion(cfg.Protocol)),
		a2aclient.WithStreaming(streaming),
		a2aclient.WithRetries(cfg.Retries, a2aclient.DefaultRetryBase),
		a2aclient.WithMaxResponseBytes(maxResponse),
		a2aclient.WithHeaders(headers),
	}
}

// agentInfo describes the agent as its card and the chosen interface say.
func agentInfo(client *a2aclient.Client, cfg result.Config) result.AgentInfo {
	card, iface := client.Card(), client.Endpoint()
	return result.AgentInfo{
		URL: iface.URL, CardURL: client.CardURL(), Name: card.Name, Version: card.Version,
		Transport: string(iface.ProtocolBinding), ProtocolVersion: string(iface.ProtocolVersion),
		Streaming: client.Streaming(), Builtin: cfg.Agent == BuiltinAgent,
		Model: modelOf(cfg.Agent),
	}
}

// modelSpecs picks a new evaluation's user and judge models: the request's,
// else the service's defaults. The user model is recorded only for an LLM
// user; the judge model only when some model could judge.
func (s *Service) modelSpecs(r EvaluationRequest) (user, judge string) {
	if r.User == UserLLM {
		user = cmp.Or(r.UserModel, s.UserModel)
	}
	judge = cmp.Or(r.JudgeModel, s.JudgeModel, user)
	if s.Models == nil {
		judge = ""
	}
	return user, judge
}

// llmParts makes an evaluation's user simulators and NL_ASSERTION judge,
// and records in cfg which guidelines tau2's user speaks from. The judge
// is made only when a task needs one.
func (s *Service) llmParts(ctx context.Context, cfg *result.Config, tasks []*domains.Task) (rollout.UserFactory, scoring.Judge, error) {
	users := rollout.UserFactory(rollout.ScriptedUsers)
	if cfg.User == UserLLM {
		if s.Models == nil {
			return nil, nil, invalid("user %q: this proctor has no language models configured; use %q", UserLLM, DefaultUser)
		}
		if cfg.UserModel == "" {
			return nil, nil, invalid("user %q needs a model: set user_model (e.g. openai:gpt-4.1) or start proctor with a default user model", UserLLM)
		}
		m, err := s.Models.Model(ctx, cfg.UserModel, llm.RoleUser)
		if err != nil {
			return nil, nil, invalid("user_model: %v", err)
		}
		prompt, err := rollout.ParseUserPrompt(cfg.UserPrompt)
		if err != nil {
			return nil, nil, invalid("user_prompt: %v", err)
		}
		var guidelines *rollout.Tau2Guidelines
		if prompt == rollout.UserPromptTau2 {
			if guidelines, err = s.userGuidelines(cfg); err != nil {
				return nil, nil, err
			}
		}
		users = rollout.LLMUsers(rollout.LLMUserConfig{Model: m, Temperature: cfg.Temperature, Seed: cfg.Seed, Prompt: prompt, Guidelines: guidelines})
	}
	judge, err := s.judge(ctx, *cfg, tasks)
	if err != nil {
		return nil, nil, err
	}
	return users, judge, nil
}

// Tau2DataSource is a DomainSource that reads tau2's data from a directory
// (catalog.Catalog): tau2's user simulator guidelines are read from there
// too.
type Tau2DataSource interface {
	Tau2Dir() string
}

// userGuidelines reads the guidelines tau2's user speaks from (the tau2
// data's copy, else proctor's) and records where they came from in cfg. A
// resumed evaluation must find the guidelines it started with: its
// simulations would otherwise be played by two different users.
func (s *Service) userGuidelines(cfg *result.Config) (*rollout.Tau2Guidelines, error) {
	var dir string
	if src, ok := s.Domains.(Tau2DataSource); ok {
		dir = src.Tau2Dir()
	}
	g, err := rollout.LoadTau2Guidelines(dir)
	if err != nil {
		return nil, err
	}
	if was := cfg.UserGuidelines; was != nil && !sameGuidelines(*was, g.Source) {
		return nil, invalid("user guidelines: the evaluation was played with %s and the tau2 data now gives %s; "+
			"resume it with the tau2 data it started with (--tau2-data)", describeGuidelines(*was), describeGuidelines(g.Source))
	}
	cfg.UserGuidelines = &g.Source
	return g, nil
}

// sameGuidelines reports whether two records name the same texts: the
// embedded copy and an unmodified data copy are tau2's both.
func sameGuidelines(a, b result.UserGuidelines) bool {
	if !a.Modified && !b.Modified {
		return true
	}
	return a.Modified && b.Modified && maps.Equal(a.SHA256, b.SHA256)
}

func describeGuidelines(g result.UserGuidelines) string {
	switch {
	case g.Modified:
		return "modified guidelines from " + g.Dir
	case g.Source == result.GuidelinesFromData:
		return "tau2's guidelines from " + g.Dir
	}
	return "proctor's copy of tau2's guidelines"
}

// needsJudge reports whether any task is scored on NL_ASSERTION.
func needsJudge(tasks []*domains.Task) bool {
	return slices.ContainsFunc(tasks, func(t *domains.Task) bool { return slices.Contains(t.Bases(), domains.BasisNLAssertion) })
}

// AgentError says the agent under evaluation could not be reached or
// understood before anything ran.
type AgentError struct {
	Target string
	Err    error
}

func (e *AgentError) Error() string { return fmt.Sprintf("cannot evaluate %s: %v", e.Target, e.Err) }

// Unwrap returns the underlying error.
func (e *AgentError) Unwrap() error { return e.Err }

// writerGone reports whether the process that last wrote an evaluation
// has certainly exited (see store.Process.Gone): one it left "running"
// was killed while another proctor had the database open.
func (s *Service) writerGone(ctx context.Context, id string) bool {
	rec, err := s.Store.GetEvaluation(ctx, id)
	return err == nil && rec.Writer.Gone()
}

// domain finds an evaluation's domain with the tasks of its split (and
// its retrieval configuration), and says which split that is ("" for a
// domain without splits). A domain, split or retrieval configuration that
// does not exist or is not offered, or whose data is not installed, is an
// *InvalidRequestError; data that is there but does not load is not the
// request's fault.
func (s *Service) domain(cfg result.Config) (*domains.Domain, string, error) {
	name, split := cfg.Domain, cfg.Split
	if err := checkRetrieval(name, cfg.RetrievalConfig); err != nil {
		return nil, "", err
	}
	if src, ok := s.Domains.(OptionSource); ok {
		e, err := s.embedder(cfg.RetrievalConfig)
		if err != nil {
			return nil, "", err
		}
		d, resolved, err := src.GetWith(name, split, load.Options{RetrievalConfig: cfg.RetrievalConfig, Embedder: e})
		return domainOutcome(name, split, d, resolved, err)
	}
	src, ok := s.Domains.(SplitSource)
	if !ok {
		if cfg.RetrievalConfig != "" {
			return nil, "", invalid("retrieval_config %q: domain %s takes none", truncate(cfg.RetrievalConfig, 100), name)
		}
		d, err := s.Domains.Get(name)
		if err != nil {
			return nil, "", invalid("domain: %v", err)
		}
		if split != "" && split != DefaultSplit {
			return nil, "", invalid("split %q: domain %s has no task splits", split, name)
		}
		return d, "", nil
	}
	d, resolved, err := src.GetSplit(name, split)
	return domainOutcome(name, split, d, resolved, err)
}

// domainOutcome sorts a domain source's errors into the request's and
// the others.
func domainOutcome(name, split string, d *domains.Domain, resolved string, err error) (*domains.Domain, string, error) {
	var (
		splitErr   *catalog.SplitError
		missingErr *catalog.MissingDataError
		unknownErr *catalog.UnknownDomainError
		optionErr  *catalog.OptionError
	)
	switch {
	case err == nil:
		return d, resolved, nil
	case errors.As(err, &splitErr):
		return nil, "", invalid("split %q: %v", split, err)
	case errors.As(err, &optionErr):
		return nil, "", invalid("retrieval_config: %v", err)
	case errors.As(err, &missingErr), errors.As(err, &unknownErr):
		return nil, "", invalid("domain: %v", err)
	}
	return nil, "", fmt.Errorf("domain %s: %w", name, err)
}

// embedder is the embedder of a retrieval configuration that ranks by
// embeddings, made once per service from its models' source (keys,
// limits, cassette) so that its domain, whose documents it embedded, is
// built once too; nil for the other configurations.
func (s *Service) embedder(config string) (knowledge.Embedder, error) {
	cfg, err := knowledge.Resolve(config, knowledge.Options{})
	if err != nil || cfg.Embedding == nil {
		return nil, nil // checkRetrieval has said what is wrong
	}
	src, ok := s.Models.(*llm.Source)
	if !ok {
		return nil, invalid("retrieval_config %s ranks by embeddings, which need a model provider this service does not have", cfg.Name)
	}
	s.embedMu.Lock()
	defer s.embedMu.Unlock()
	if e := s.embedders[cfg.Name]; e != nil {
		return e, nil
	}
	e, err := knowledge.NewEmbedder(src, cfg)
	if err != nil {
		return nil, invalid("retrieval_config: %v", err)
	}
	if s.embedders == nil {
		s.embedders = make(map[string]knowledge.Embedder)
	}
	s.embedders[cfg.Name] = e
	return e, nil
}

// checkRetrieval refuses, before any data is read, a banking_knowledge
// evaluation without a retrieval configuration proctor offers, saying
// which it offers.
func checkRetrieval(domain, config string) error {
	if domain != banking.Name {
		return nil
	}
	if _, err := knowledge.Resolve(config, knowledge.Options{}); err != nil {
		return invalid("retrieval_config: %v", err)
	}
	return nil
}

// resolveTasks finds the domain and the tasks an evaluation runs: the ones
// selected (selectTasks), then this shard's share (ShardTasks). It returns
// the split the tasks come from.
func (s *Service) resolveTasks(cfg result.Config) (*domains.Domain, []*domains.Task, string, error) {
	domain, split, err := s.domain(cfg)
	if err != nil {
		return nil, nil, "", err
	}
	tasks, err := selectTasks(domain, split, cfg)
	if err != nil {
		return nil, nil, "", err
	}
	return domain, ShardTasks(tasks, cfg.ShardIndex, cfg.NumShards), split, nil
}

// ShardTasks is shard index's share of the selected tasks when they are
// split between num shards: the tasks whose position modulo num is index
// (every trial of a task runs in its shard). With num below 2 it is all of
// them.
func ShardTasks(tasks []*domains.Task, index, num int) []*domains.Task {
	if num < 2 {
		return tasks
	}
	var share []*domains.Task
	for i, t := range tasks {
		if i%num == index {
			share = append(share, t)
		}
	}
	return share
}

// selectTasks finds the tasks an evaluation selects from the domain (with
// the tasks of split), before any split between shards: the ones named (or
// all of the split's), the first num_tasks of those. A shard with no task
// of its own is refused.
func selectTasks(domain *domains.Domain, split string, cfg result.Config) ([]*domains.Task, error) {
	var tasks []*domains.Task
	if len(cfg.TaskIDs) > 0 {
		var unknown []string
		seen := map[string]bool{}
		for _, id := range cfg.TaskIDs {
			id = strings.TrimSpace(id)
			if id == "" || seen[id] {
				continue
			}
			seen[id] = true
			t, ok := domain.Task(id)
			if !ok {
				unknown = append(unknown, truncate(id, 60))
				continue
			}
			tasks = append(tasks, t)
		}
		if len(unknown) > 0 {
			if len(unknown) > 10 {
				unknown = append(unknown[:10], fmt.Sprintf("and %d more", len(unknown)-10))
			}
			return nil, invalid("task_ids: domain %s%s has no task %s", domain.Name, splitNote(split), strings.Join(unknown, ", "))
		}
	} else {
		for i := range domain.Tasks {
			tasks = append(tasks, &domain.Tasks[i])
		}
	}
	if cfg.NumTasks > 0 && cfg.NumTasks < len(tasks) {
		tasks = tasks[:cfg.NumTasks]
	}
	if len(tasks) == 0 {
		return nil, invalid("domain %s%s: no tasks selected", domain.Name, splitNote(split))
	}
	if cfg.NumShards > len(tasks) {
		return nil, invalid("num_shards %d: only %d tasks are selected, and every shard needs one; use at most %d shards",
			cfg.NumShards, len(tasks), len(tasks))
	}
	if cfg.User == DefaultUser || cfg.User == "" {
		if err := scriptless(domain.Name+splitNote(split), tasks); err != nil {
			return nil, err
		}
	}
	return tasks, nil
}

// scriptless refuses tasks the scripted user cannot play: those without a
// script, such as every tau2 task (tau2 describes its user in instructions
// for an LLM to act out).
func scriptless(domain string, tasks []*domains.Task) error {
	var missing []string
	for _, t := range tasks {
		if len(t.UserScenario.Script) == 0 {
			missing = append(missing, t.ID)
		}
	}
	switch {
	case len(missing) == 0:
		return nil
	case len(tasks) == 1:
		return invalid("domain %s: the scripted user cannot play task %s: it has no script (it describes its user for an LLM to act out); "+
			"it needs the LLM user simulator: %s", domain, tasks[0].ID, llmUserFix)
	case len(missing) == len(tasks):
		return invalid("domain %s: the scripted user cannot play these tasks: none of the %d has a script (they describe their user "+
			"for an LLM to act out); they need the LLM user simulator: %s", domain, len(tasks), llmUserFix)
	}
	if len(missing) > 10 {
		missing = append(missing[:10], fmt.Sprintf("and %d more", len(missing)-10))
	}
	return invalid("domain %s: the scripted user cannot play tasks without a script (%s); they need the LLM user simulator (%s), "+
		"or leave them out with task_ids", domain, strings.Join(missing, ", "), llmUserFix)
}

// llmUserFix names the request fields that choose the LLM user simulator.
const llmUserFix = `user "llm" with user_model PROVIDER:MODEL, e.g. openai:gpt-4.1`

// splitNote names a split after a domain's name in messages.
func splitNote(split string) string {
	if split == "" {
		return ""
	}
	return " (split " + split + ")"
}

func taskIDs(tasks []*domains.Task) []string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	return ids
}

// builtinPlays refuses the built-in agent on a domain it has no rules for,
// naming what to do instead: it would fail every simulation otherwise.
func builtinPlays(d *domains.Domain) error {
	if err := refagent.Supports(d); err != nil {
		return invalid("agent_url %q: proctor's reference agent plays only the %s domain, not %s: "+
			"give agent_url your agent's URL, or evaluate domain %q", BuiltinAgent, mock.Name, d.Name, mock.Name)
	}
	return nil
}

// joinInvalid puts the violations of two request errors (either may be nil)
// in one, so that a command line hears of every fix at once; an error that
// is not about the request wins.
func joinInvalid(a, b error) error {
	var all InvalidRequestError
	for _, err := range []error{a, b} {
		var inv *InvalidRequestError
		switch {
		case err == nil:
		case errors.As(err, &inv):
			all.Violations = append(all.Violations, inv.Violations...)
		default:
			return err
		}
	}
	return &all
}

// startBuiltin serves the reference agent on a loopback port until ctx
// ends; the plan has checked that it plays d (builtinPlays).
func startBuiltin(ctx context.Context, d *domains.Domain) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("start the built-in agent: %w", err)
	}
	go func() { _ = refagent.Serve(ctx, ln, d) }()
	return refagent.BaseURL(ln.Addr()), nil
}

// faultsOf is the tool-result corruption an evaluation asked for: its
// rate, drawn with its seed (0 when it has none).
func faultsOf(cfg result.Config) rollout.Faults {
	f := rollout.Faults{Rate: cfg.ToolFaults}
	if cfg.Seed != nil {
		f.Seed = *cfg.Seed
	}
	return f
}
