package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// PathMetrics is where the Prometheus metrics are served (see
// Config.MetricsAddr).
const PathMetrics = "/metrics"

// modelOther is the model label of a model the price table does not know:
// a request may name any model of a provider, and labels must stay few.
const modelOther = "other"

// metrics are one Server's Prometheus metrics, in a registry of its own.
// Every label takes values from a set fixed by proctor's code (domains,
// termination reasons, methods, status codes, roles, priced models), never
// an id, a URL or a caller's text.
type metrics struct {
	registry *prometheus.Registry

	simulations    *prometheus.CounterVec   // domain, termination_reason
	passed         *prometheus.CounterVec   // domain
	agentLatency   *prometheus.HistogramVec // domain, method
	agentResponses *prometheus.CounterVec   // domain, code
	agentErrors    *prometheus.CounterVec   // domain, class
	llmTokens      *prometheus.CounterVec   // role, model, direction
	llmCost        *prometheus.CounterVec   // role, model
	llmCalls       *prometheus.CounterVec   // role, model
	storeWrites    *prometheus.HistogramVec // operation
	tasksFinished  *prometheus.CounterVec   // skill, state
}

// newMetrics registers the server's metrics, with the Go runtime's and
// the process's, and gauges that read q's running and waiting tasks.
func newMetrics(q *queue) *metrics {
	reg := prometheus.NewRegistry()
	m := &metrics{
		registry: reg,
		simulations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_simulations_finished_total",
			Help: "Simulations finished and recorded, by domain and termination reason.",
		}, []string{"domain", "termination_reason"}),
		passed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_simulations_passed_total",
			Help: "Simulations finished with full reward, by domain.",
		}, []string{"domain"}),
		agentLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "proctor_agent_request_duration_seconds",
			Help:    "Latency of requests to agents under evaluation, by domain and method.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, []string{"domain", "method"}),
		agentResponses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_agent_responses_total",
			Help: `Requests to agents under evaluation by response status: the HTTP status, the gRPC code name, or "none" when no response came.`,
		}, []string{"domain", "code"}),
		agentErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_agent_request_errors_total",
			Help: "Failed requests to agents under evaluation, by error class.",
		}, []string{"domain", "class"}),
		llmTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_llm_tokens_total",
			Help: `Tokens of proctor's own model calls (user simulator, judge), by role, model ("other" for models without a price) and direction.`,
		}, []string{"role", "model", "direction"}),
		llmCost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_llm_cost_usd_total",
			Help: "Cost in US dollars of proctor's own model calls, by role and model, from the price table.",
		}, []string{"role", "model"}),
		llmCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_llm_calls_total",
			Help: "Proctor's own model calls, by role and model.",
		}, []string{"role", "model"}),
		storeWrites: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "proctor_store_write_duration_seconds",
			Help:    "Latency of writes to the results database, by operation.",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
		}, []string{"operation"}),
		tasksFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_tasks_finished_total",
			Help: "Long-running A2A tasks (evaluations, eval-set runs, conformance checks) finished, by skill and final state.",
		}, []string{"skill", "state"}),
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.simulations, m.passed, m.agentLatency, m.agentResponses, m.agentErrors,
		m.llmTokens, m.llmCost, m.llmCalls, m.storeWrites, m.tasksFinished,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "proctor_evaluations_running",
			Help: "Long-running tasks (evaluations, eval-set runs, conformance checks) holding one of the --max-concurrent slots.",
		}, func() float64 { running, _ := q.stats(); return float64(running) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "proctor_evaluations_queued",
			Help: "Long-running tasks waiting for a --max-concurrent slot.",
		}, func() float64 { _, waiting := q.stats(); return float64(waiting) }),
	)
	return m
}

// observe has svc's evaluations report their simulations to m, and time
// their writes to the store, unless svc already has an observer.
func observe(svc *skills.Service, m *metrics) {
	if svc == nil || svc.Observer != nil {
		return
	}
	svc.Observer = m
	switch {
	case svc.EvaluationStore != nil:
		svc.EvaluationStore = timedEvaluationStore{svc.EvaluationStore, m}
	case svc.Store != nil:
		svc.EvaluationStore = timedEvaluationStore{svc.Store, m}
	}
}

// handler serves the exposition.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

var _ evaluation.Observer = (*metrics)(nil)

// SimulationRecorded implements evaluation.Observer: it counts the
// simulation, its requests to the agent and its model calls.
func (m *metrics) SimulationRecorded(domain string, sim *result.Simulation) {
	m.simulations.WithLabelValues(domain, string(sim.TerminationReason)).Inc()
	if sim.Passed() {
		m.passed.WithLabelValues(domain).Inc()
	}
	for i := range sim.Requests {
		q := &sim.Requests[i]
		m.agentLatency.WithLabelValues(domain, q.Method).Observe(q.LatencyMS / 1000)
		m.agentResponses.WithLabelValues(domain, responseCode(q.HTTPStatus, q.GRPCCode)).Inc()
		if q.ErrorClass != "" {
			m.agentErrors.WithLabelValues(domain, string(q.ErrorClass)).Inc()
		}
	}
	for _, c := range sim.LLMCalls {
		model := c.Model
		if !c.Priced {
			model = modelOther
		}
		m.llmCalls.WithLabelValues(c.Role, model).Inc()
		m.llmTokens.WithLabelValues(c.Role, model, "input").Add(float64(c.InputTokens))
		m.llmTokens.WithLabelValues(c.Role, model, "output").Add(float64(c.OutputTokens))
		m.llmCost.WithLabelValues(c.Role, model).Add(c.CostUSD)
	}
}

// responseCode is a request's status label: its HTTP status (any value
// outside 100-599 is "other"), its gRPC code name, or "none".
func responseCode(httpStatus int, grpcCode string) string {
	switch {
	case httpStatus >= 100 && httpStatus <= 599:
		return strconv.Itoa(httpStatus)
	case httpStatus != 0:
		return "other"
	case grpcCode != "":
		return grpcCode
	}
	return "none"
}

// taskFinished counts a long task that ended in state, or, when the
// server stopped it (a drain checkpointed it, or the server died under
// it), as "interrupted". A nil m counts nothing.
func (m *metrics) taskFinished(skill Skill, state a2a.TaskState, serverStopped bool) {
	if m == nil {
		return
	}
	label := strings.ToLower(strings.TrimPrefix(string(state), "TASK_STATE_"))
	if serverStopped {
		label = "interrupted"
	}
	m.tasksFinished.WithLabelValues(string(skill), label).Inc()
}

// timeWrite observes how long a store write took.
func (m *metrics) timeWrite(operation string, start time.Time) {
	m.storeWrites.WithLabelValues(operation).Observe(time.Since(start).Seconds())
}

// timedEvaluationStore times an evaluation store's writes.
type timedEvaluationStore struct {
	evaluation.Store
	m *metrics
}

// PutEvaluation implements evaluation.Store.
func (s timedEvaluationStore) PutEvaluation(ctx context.Context, e store.Evaluation) error {
	defer s.m.timeWrite("put_evaluation", time.Now())
	return s.Store.PutEvaluation(ctx, e)
}

// PutEvaluationWith implements evaluation.Store: one put_evaluation write
// and, like PutSimulations, one put_simulation for each simulation, all
// taking the shared write's time.
func (s timedEvaluationStore) PutEvaluationWith(ctx context.Context, e store.Evaluation, sims []store.Simulation) error {
	start := time.Now()
	err := s.Store.PutEvaluationWith(ctx, e, sims)
	s.m.timeWrite("put_evaluation", start)
	for range sims {
		s.m.timeWrite("put_simulation", start)
	}
	return err
}

// PutSimulations implements evaluation.Store. Each simulation stored counts
// as one put_simulation write, which took the shared write's time.
func (s timedEvaluationStore) PutSimulations(ctx context.Context, evalID string, sims []store.Simulation) error {
	start := time.Now()
	err := s.Store.PutSimulations(ctx, evalID, sims)
	for range sims {
		s.m.timeWrite("put_simulation", start)
	}
	return err
}

// timedTaskStore times an A2A task store's writes.
type timedTaskStore struct {
	taskstore.Store
	m *metrics
}

// Create implements taskstore.Store.
func (s timedTaskStore) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	defer s.m.timeWrite("create_task", time.Now())
	return s.Store.Create(ctx, task)
}

// Update implements taskstore.Store.
func (s timedTaskStore) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	defer s.m.timeWrite("update_task", time.Now())
	return s.Store.Update(ctx, req)
}
