package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TenantLimits bound what each tenant may ask of the server; zero fields
// are no bound. They apply to every tenant, admins included; on a server
// without tokens, every caller together is one tenant.
type TenantLimits struct {
	// MaxRunning is how many long tasks (evaluations, eval-set runs,
	// conformance checks) of one tenant run at once; more wait their
	// turn, counted as queued.
	MaxRunning int
	// MaxQueued is how many of one tenant's long tasks may wait for a
	// slot; one more is rejected.
	MaxQueued int
	// MaxSimulations bounds the simulations (tasks x trials) of one
	// run_evaluation request.
	MaxSimulations int
	// RequestsPerSecond and Burst bound one tenant's A2A requests (a
	// token bucket: Burst at once, refilled at RequestsPerSecond); one
	// more is refused with 429 (REST), JSON-RPC error ErrCodeRateLimited,
	// or gRPC RESOURCE_EXHAUSTED.
	RequestsPerSecond float64
	Burst             int
}

// Flags that set TenantLimits, named in the errors of each limit.
const (
	FlagTenantMaxRunning     = "--tenant-max-running"
	FlagTenantMaxQueued      = "--tenant-max-queued"
	FlagTenantMaxSimulations = "--tenant-max-simulations"
	FlagTenantRate           = "--tenant-rate"
	FlagTenantBurst          = "--tenant-burst"
)

// ErrCodeRateLimited is the JSON-RPC error code of a request over its
// tenant's rate (in the -32000..-32099 range JSON-RPC leaves to servers).
const ErrCodeRateLimited = -32029

// tenantGate applies TenantLimits: a rate limiter and a count of long
// tasks per tenant. A nil *tenantGate admits everything (an executor
// built without a server, in tests).
type tenantGate struct {
	limits TenantLimits

	mu      sync.Mutex
	tenants map[string]*tenantState
}

// tenantState is one tenant's limiter and long tasks.
type tenantState struct {
	limiter *rate.Limiter // nil without a rate
	// refusalAudited is when a refusal over the rate was last audited:
	// at most one a second is, so that a caller hammering the server
	// cannot push others' entries out of the audit log.
	refusalAudited time.Time
	slots          chan struct{} // running long tasks; nil without MaxRunning
	queued         int
}

func newTenantGate(l TenantLimits) *tenantGate {
	return &tenantGate{limits: l, tenants: map[string]*tenantState{}}
}

// state returns tenant's state, made on first use. Callers hold g.mu.
func (g *tenantGate) state(tenant string) *tenantState {
	st := g.tenants[tenant]
	if st == nil {
		st = &tenantState{}
		if g.limits.RequestsPerSecond > 0 {
			st.limiter = rate.NewLimiter(rate.Limit(g.limits.RequestsPerSecond), max(g.limits.Burst, 1))
		}
		if g.limits.MaxRunning > 0 {
			st.slots = make(chan struct{}, g.limits.MaxRunning)
		}
		g.tenants[tenant] = st
	}
	return st
}

// allow takes one request from tenant's rate; when it is spent, it says
// how long until the next request is allowed.
// The refusal is to be audited only when audit is true.
func (g *tenantGate) allow(tenant string) (ok bool, wait time.Duration, audit bool) {
	if g.limits.RequestsPerSecond <= 0 {
		return true, 0, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.state(tenant)
	r := st.limiter.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		now := time.Now()
		audit = now.Sub(st.refusalAudited) >= time.Second
		if audit {
			st.refusalAudited = now
		}
		return false, d, audit
	}
	return true, 0, false
}

// rateError is the message of a request over its tenant's rate.
func (g *tenantGate) rateError(tenant string, wait time.Duration) string {
	return fmt.Sprintf("rate limit: tenant %q may send %g requests per second (%s), %d at once (%s); retry in %s",
		tenant, g.limits.RequestsPerSecond, FlagTenantRate, max(g.limits.Burst, 1), FlagTenantBurst, wait.Round(time.Millisecond))
}

// tenantTicket is one long task's place among its tenant's.
type tenantTicket struct {
	g       *tenantGate
	st      *tenantState
	queued  bool
	running bool
}

// admit counts a new long task of tenant as queued, or refuses it when
// the tenant has MaxQueued waiting already.
func (g *tenantGate) admit(tenant string) (*tenantTicket, error) {
	if g == nil { // an executor without limits
		return &tenantTicket{}, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.state(tenant)
	if g.limits.MaxQueued > 0 && st.queued >= g.limits.MaxQueued {
		return nil, fmt.Errorf("queue limit: tenant %q has %d tasks waiting, the most this server queues per tenant (%s %d); wait for one to start, or cancel one",
			tenant, st.queued, FlagTenantMaxQueued, g.limits.MaxQueued)
	}
	st.queued++
	return &tenantTicket{g: g, st: st, queued: true}, nil
}

// wait waits for one of the tenant's MaxRunning slots; it reports whether
// it got one before ctx ended. onWait is told once when it has to wait.
func (tk *tenantTicket) wait(ctx context.Context, onWait func()) bool {
	if tk.st == nil || tk.st.slots == nil {
		return true
	}
	select {
	case tk.st.slots <- struct{}{}:
		tk.running = true
		return true
	default:
	}
	onWait()
	select {
	case tk.st.slots <- struct{}{}:
		tk.running = true
		return true
	case <-ctx.Done():
		return false
	}
}

// started marks the task running: it no longer counts as queued.
func (tk *tenantTicket) started() {
	if tk.g == nil {
		return
	}
	tk.g.mu.Lock()
	defer tk.g.mu.Unlock()
	if tk.queued {
		tk.st.queued--
		tk.queued = false
	}
}

// done gives back what the task held.
func (tk *tenantTicket) done() {
	tk.started()
	if tk.running {
		<-tk.st.slots
		tk.running = false
	}
}

// acquire takes a slot of ctx's tenant, then one of q, for a long task
// that has no A2A task of its own to report its place in line (the chat
// front door's evaluations); it returns their release.
func (g *tenantGate) acquire(ctx context.Context, q *queue) (func(), error) {
	ticket, err := g.admit(tenantOf(ctx))
	if err != nil {
		return nil, err
	}
	if !ticket.wait(ctx, func() {}) {
		ticket.done()
		return nil, ctx.Err()
	}
	release, err := q.acquire(ctx, nil)
	if err != nil {
		ticket.done()
		return nil, err
	}
	ticket.started()
	return func() { release(); ticket.done() }, nil
}

// runningText is the status of a task waiting for its tenant's slot.
func (g *tenantGate) runningText(tenant string) string {
	return fmt.Sprintf("Queued: tenant %q has %d tasks running, the most this server runs at once per tenant (%s); this one starts when one of them ends.",
		tenant, g.limits.MaxRunning, FlagTenantMaxRunning)
}

// simulationsError refuses a run_evaluation request with more than
// MaxSimulations simulations; nil when within it.
func (g *tenantGate) simulationsError(n int) error {
	if g == nil || g.limits.MaxSimulations <= 0 || n <= g.limits.MaxSimulations {
		return nil
	}
	return fmt.Errorf("simulation limit: the request runs %d simulations (tasks x trials), above this server's %d per request (%s); ask for fewer with num_tasks, task_ids or num_trials, or split it into several requests",
		n, g.limits.MaxSimulations, FlagTenantMaxSimulations)
}

// rateLimit refuses an HTTP request over its tenant's rate: 429 with
// Retry-After, and on JSON-RPC paths the JSON-RPC error
// ErrCodeRateLimited with the request's id.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tenant := tenantOf(r.Context())
		ok, wait, audit := s.gate.allow(tenant)
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		msg := s.gate.rateError(tenant, wait)
		if audit {
			s.audit(r.Context(), "HTTP "+r.Method+" "+r.URL.Path, nil, auditRefused(msg))
		}
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		w.Header().Set("Content-Type", "application/json")
		if isJSONRPCPath(r.URL.Path) {
			var req struct {
				ID any `json:"id"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": ErrCodeRateLimited, "message": msg}})
			return
		}
		w.WriteHeader(http.StatusTooManyRequests)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"code": http.StatusTooManyRequests, "status": "RESOURCE_EXHAUSTED", "message": msg}})
	})
}

// grpcRate refuses a gRPC call over its tenant's rate with
// RESOURCE_EXHAUSTED.
func (s *Server) grpcRate(ctx context.Context, method string) error {
	tenant := tenantOf(ctx)
	if ok, wait, audit := s.gate.allow(tenant); !ok {
		msg := s.gate.rateError(tenant, wait)
		if audit {
			s.audit(ctx, "gRPC "+method, nil, auditRefused(msg))
		}
		return status.Error(codes.ResourceExhausted, msg)
	}
	return nil
}
