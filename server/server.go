package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/adk/model"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"

	"github.com/proctor-eval/proctor/internal/a2afix"
	"github.com/proctor-eval/proctor/internal/tracing"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// Defaults of Config.
const (
	// DefaultHost is Config.Host's default: loopback only.
	DefaultHost = "127.0.0.1"
	// DefaultPort is the port `proctor serve` listens on (gRPC on the
	// next one); Config.Port 0 picks a free one.
	DefaultPort = 9009
	// DefaultMaxConcurrent is Config.MaxConcurrent's default.
	DefaultMaxConcurrent = 4
	// DefaultMaxRequestBytes is Config.MaxRequestBytes's default.
	DefaultMaxRequestBytes = 4 << 20
	// DefaultProgressEvery is Config.ProgressEvery's default.
	DefaultProgressEvery = 30 * time.Second
	// DefaultCancelWait is Config.CancelWait's default.
	DefaultCancelWait = 5 * time.Second
)

// Config configures a Server. Zero fields take the defaults.
type Config struct {
	// Host is the address to listen on (default DefaultHost).
	Host string
	// Port is the HTTP port (JSON-RPC, REST, card, health); 0 picks a free one.
	Port int
	// GRPCPort is the gRPC port: 0 picks a free one, -1 serves no gRPC.
	GRPCPort int
	// CardURL is the base URL the agent card advertises; default
	// http://host:port.
	CardURL string
	// AuthTokens, when set, are the bearer tokens every A2A endpoint
	// requires; the agent card and /healthz stay public. They are the
	// tokens of tenant DefaultTenant (see Tenants).
	AuthTokens []string
	// Tenants, when set, name the callers: a request with one of a
	// tenant's tokens acts for it, sees only what it created (an admin
	// sees everything) and counts against its TenantLimits. Names and
	// tokens must be unique. Give TaskStore a store.DB.TaskStore with
	// store.WithTenantTasks, or admins see only their own A2A tasks.
	Tenants []Tenant
	// TenantLimits bound each tenant's requests and long tasks.
	TenantLimits TenantLimits
	// Audit, when set, gets an entry per A2A call and per refusal.
	Audit AuditLog
	// MaxConcurrent long-running tasks (evaluations, conformance checks)
	// run at once; more wait in a FIFO queue.
	MaxConcurrent int
	// MaxRequestBytes bounds a request body.
	MaxRequestBytes int64
	// TaskStore keeps the A2A tasks (default: in memory, each tenant's
	// to itself, admins included; without tenants listed to every caller).
	TaskStore taskstore.Store
	// ProgressEvery is the longest time between two status updates of a
	// running evaluation.
	ProgressEvery time.Duration
	// CancelWait bounds how long CancelTask takes: it waits at most four
	// fifths of it for a long-running task to stop, the rest being left to
	// store and send the canceled status.
	CancelWait time.Duration
	// ChatModel, when set, answers free-text requests: an ADK LLM agent
	// whose tools are the skills. Without it free text gets help.
	ChatModel model.LLM
	// UI, when set, is served at PathUI behind the same bearer-token
	// authentication and request limits as the A2A endpoints: the web
	// viewer of package server/ui, built with Base PathUI.
	UI http.Handler
	// TrustedProxies are the addresses of the TLS-terminating proxies in
	// front of the server: a request from one of them that says
	// X-Forwarded-Proto: https counts as secure, so the viewer's session
	// cookie is Secure. Nobody else's X-Forwarded-Proto is believed.
	TrustedProxies []netip.Prefix
	// HeaderTimeout bounds the time a request's headers may take to arrive
	// (and a gRPC connection's handshake).
	HeaderTimeout time.Duration
	// BodyTimeout bounds the time a request's body may take to arrive,
	// from the end of its headers; a late body gets 408. Answers are not
	// bounded: a stream lasts as long as its task.
	BodyTimeout time.Duration
	// IdleTimeout closes a kept-alive HTTP connection, or a gRPC
	// connection, that has had no request for this long.
	IdleTimeout time.Duration
	// MaxConnections bounds the open connections, HTTP and gRPC together.
	MaxConnections int
	// MaxUnauthenticatedConnections bounds the connections whose caller
	// has not yet sent a valid token (without tokens: a complete A2A
	// request); one more evicts the oldest of them.
	MaxUnauthenticatedConnections int
	// MaxStreamsPerTask bounds the streams (SubscribeToTask) open on one
	// task, and MaxStreamsPerCaller those (SubscribeToTask and
	// SendStreamingMessage) of one caller: its bearer token, or its host
	// without one. More are refused (PermissionDenied) until some close.
	MaxStreamsPerTask, MaxStreamsPerCaller int
	// StreamWriteTimeout is how long a write to a caller may wait for it
	// to read: a reader that stops reading is disconnected after it.
	StreamWriteTimeout time.Duration
	// MetricsAddr, when set, is the address (host:port) that serves the
	// Prometheus metrics at PathMetrics, instead of the HTTP port: for a
	// scrape from inside a cluster that callers cannot reach. Either way
	// the metrics need no token: they hold counts by domain, status and
	// model, no ids, no URLs, no caller's data and no secret.
	MetricsAddr string
	// Logger receives the request log (one record per A2A request) and
	// the evaluations' start and end; nil logs nothing.
	Logger *slog.Logger
	// ContinueTraces makes the spans of the work an A2A request starts (an
	// evaluation, an eval-set run, a conformance run) children of the span
	// its caller names in a W3C traceparent, as an HTTP header or gRPC
	// metadata, so that they join the caller's trace; set it when tracing
	// is on. Without it inbound trace context is ignored.
	ContinueTraces bool
	// DrainTimeout is how long Serve, once its context ends, lets the
	// simulations running finish before it checkpoints what is left (see
	// Serve). Zero checkpoints at once: unlike the other fields, it has no
	// default here (`proctor serve` has DefaultDrainTimeout).
	DrainTimeout time.Duration
}

// DefaultDrainTimeout is `proctor serve --drain-timeout`'s default. After
// it, stopping takes at most abortWait more (normally milliseconds) and up
// to 5s to close open connections: give a Kubernetes pod a
// terminationGracePeriodSeconds of DrainTimeout + 15s (45 by default).
const DefaultDrainTimeout = 30 * time.Second

// Server is proctor as an A2A server: the agent card, the skills behind
// JSON-RPC, HTTP+JSON and gRPC, the queue of long-running tasks, and
// authentication.
type Server struct {
	cfg    Config
	httpLn net.Listener
	// metricsLn and metricsHTTP serve the metrics on Config.MetricsAddr.
	metricsLn   net.Listener
	metricsHTTP *http.Server
	metrics     *metrics
	log         *slog.Logger
	grpcLn      net.Listener
	http        *http.Server
	grpc        *grpc.Server
	card        *a2a.AgentCard
	baseURL     string
	executor    *executor
	conns       *connLimits
	sessions    *uiSessions // the web viewer's sign-in, with tokens and a UI
	tokens      tokenTable  // every token, with its tenant; empty without
	gate        *tenantGate // per-tenant limits
	// handler is the A2A request handler, which Resume calls in-process.
	handler   a2asrv.RequestHandler
	abort     chan struct{} // closed by Abort
	abortOnce sync.Once
}

// New binds the server's listeners and builds its handlers; Serve serves.
// Unless svc already has an Observer, New has svc's evaluations report to
// the server's metrics: it sets svc.Observer and times svc's writes
// (svc.EvaluationStore).
func New(cfg Config, svc *skills.Service) (*Server, error) {
	cfg = cfg.withDefaults()
	tokens, err := newTokenTable(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, conns: newConnLimits(cfg.MaxConnections, cfg.MaxUnauthenticatedConnections),
		tokens: tokens, gate: newTenantGate(cfg.TenantLimits), abort: make(chan struct{})}
	grpcAddr, err := s.listen()
	if err != nil {
		return nil, err
	}
	cardURL := cfg.CardURL
	if cardURL == "" {
		cardURL = "http://" + advertised(s.httpLn.Addr(), cfg.Host)
	}
	s.card = Card(cardURL, grpcAddr)
	if cfg.UI != nil && len(tokens) > 0 {
		if s.sessions, err = newUISessions(tokens); err != nil {
			s.closeListeners()
			return nil, err
		}
	}
	if len(tokens) > 0 {
		requireBearer(s.card)
	}
	s.baseURL = strings.TrimRight(cardURL, "/")

	q := newQueue(cfg.MaxConcurrent)
	s.metrics, s.log = newMetrics(q), orDiscard(cfg.Logger)
	observe(svc, s.metrics)
	s.executor = &executor{
		svc: svc, queue: q, progressEvery: cfg.ProgressEvery,
		cancelWait: cfg.CancelWait, running: map[a2a.TaskID]*activeRun{}, gate: s.gate,
		audit: s.audit, metrics: s.metrics, log: s.log,
		resumes: map[a2a.TaskID]ResumableTask{},
	}
	if cfg.ChatModel != nil {
		if s.executor.chat, err = newChatExecutor(cfg.ChatModel, svc, s.executor.queue, s.gate, &s.executor.drain); err != nil {
			s.closeListeners()
			return nil, err
		}
		s.card.Skills = append(s.card.Skills, chatSkill())
	}
	// No credential of a request is kept: the store redacts every task
	// before it is written (the executor already redacts those it makes).
	tasks := cfg.TaskStore
	if tasks == nil {
		tasks = taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: anonymousTaskUser})
	}
	// A task whose update cannot be stored (a full disk) ends failed at
	// once instead of staying working (see unstoredTasks); a2afix.Store
	// gives every saved status a timestamp, which ListTasks orders and
	// filters by.
	s.executor.stored = newStoreWatch(timedTaskStore{tasks, s.metrics})
	opts := []a2asrv.RequestHandlerOption{a2asrv.WithTaskStore(a2afix.Store(redactingStore{newUnstoredTasks(s.executor.stored)})),
		a2asrv.WithCallInterceptors(tenantUser{}, auditInterceptor{s: s}, methodRecorder{})}
	// a2afix answers what a2a-go answers wrongly (see its doc); blocking
	// SendMessage calls wait for the task to end, as the specification
	// says: clients that poll ask to return immediately.
	s.handler = a2afix.Handler(a2asrv.NewHandler(s.executor, opts...))
	handler := newStreamLimits(s.handler, cfg.MaxStreamsPerTask, cfg.MaxStreamsPerCaller)
	// No ReadTimeout or WriteTimeout: they would cut streams short
	// (bodyDeadline bounds bodies, slowReaders each write, instead).
	s.http = &http.Server{Handler: s.routes(handler), ReadHeaderTimeout: cfg.HeaderTimeout, IdleTimeout: cfg.IdleTimeout,
		ConnContext: withConn}
	if s.metricsLn != nil {
		mux := http.NewServeMux()
		mux.Handle(PathMetrics, s.metrics.handler())
		s.metricsHTTP = &http.Server{Handler: mux, ReadHeaderTimeout: cfg.HeaderTimeout, IdleTimeout: cfg.IdleTimeout}
	}
	if s.grpcLn != nil {
		s.grpc = s.grpcServer(handler)
	}
	return s, nil
}

// anonymousTaskUser names the owner of a task in the default store: the
// caller's tenant, else its user name, else "anonymous" (without tenants
// callers are not told apart, so ListTasks is open to whoever may call at
// all). The default store has no admins: they see their own tasks only.
func anonymousTaskUser(ctx context.Context) (string, error) {
	if t, ok := store.TenantFrom(ctx); ok {
		return "tenant:" + t.Name, nil
	}
	if callCtx, ok := a2asrv.CallContextFrom(ctx); ok && callCtx.User != nil && callCtx.User.Name != "" {
		return callCtx.User.Name, nil
	}
	return "anonymous", nil
}

// withDefaults fills the zero fields of cfg.
func (cfg Config) withDefaults() Config {
	if cfg.Host == "" {
		cfg.Host = DefaultHost
	}
	cfg.MaxConcurrent = orDefault(cfg.MaxConcurrent, DefaultMaxConcurrent)
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = DefaultProgressEvery
	}
	if cfg.CancelWait <= 0 {
		cfg.CancelWait = DefaultCancelWait
	}
	cfg.HeaderTimeout = orDefaultDuration(cfg.HeaderTimeout, DefaultHeaderTimeout)
	cfg.BodyTimeout = orDefaultDuration(cfg.BodyTimeout, DefaultBodyTimeout)
	cfg.IdleTimeout = orDefaultDuration(cfg.IdleTimeout, DefaultIdleTimeout)
	cfg.MaxConnections = orDefault(cfg.MaxConnections, DefaultMaxConnections)
	cfg.MaxUnauthenticatedConnections = min(orDefault(cfg.MaxUnauthenticatedConnections, DefaultMaxUnauthenticatedConnections), cfg.MaxConnections)
	return cfg.withStreamDefaults()
}

// listen binds the HTTP listener and, unless gRPC is off, the gRPC one,
// whose address for the card it returns ("" without gRPC).
func (s *Server) listen() (grpcAddr string, err error) {
	if s.httpLn, err = net.Listen("tcp", net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))); err != nil {
		return "", fmt.Errorf("listen: %w", err)
	}
	if s.cfg.MetricsAddr != "" {
		if s.metricsLn, err = net.Listen("tcp", s.cfg.MetricsAddr); err != nil {
			_ = s.httpLn.Close()
			return "", fmt.Errorf("listen for metrics: %w", err)
		}
	}
	if s.cfg.GRPCPort < 0 {
		return "", nil
	}
	if s.grpcLn, err = net.Listen("tcp", net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.GRPCPort))); err != nil {
		s.closeListeners()
		return "", fmt.Errorf("listen for gRPC: %w", err)
	}
	return advertised(s.grpcLn.Addr(), s.cfg.Host), nil
}

// closeListeners closes what listen bound, for a New that fails after it.
func (s *Server) closeListeners() {
	_ = s.httpLn.Close()
	if s.grpcLn != nil {
		_ = s.grpcLn.Close()
	}
	if s.metricsLn != nil {
		_ = s.metricsLn.Close()
	}
}

// routes serves the card and /healthz publicly, and the A2A handler on
// its JSON-RPC and REST paths of both protocol versions, behind the body
// limit and the tokens.
func (s *Server) routes(handler a2asrv.RequestHandler) http.Handler {
	mux := http.NewServeMux()
	routeCards(mux, s.card)
	mux.HandleFunc("/", s.root)
	mux.HandleFunc(PathHealth, s.health)
	if s.metricsLn == nil {
		mux.Handle(PathMetrics, s.metrics.handler())
	}
	mux.HandleFunc(PathReady, s.ready)
	// Bodies are bounded in size, then (once the caller is known) in
	// nesting depth, before anything decodes them.
	guard := func(binding int, ep endpoint, h http.Handler) http.Handler {
		return s.logRequests(ep, withRemoteHost(slowReaders(s.cfg.StreamWriteTimeout, s.bodyDeadline(s.limit(s.authenticate(s.joinTrace(s.rateLimit(limitDepth(binding, h)))))))))
	}
	// Each interface serves one protocol version and refuses requests
	// for another (a2afix); a JSON-RPC request that names no version is
	// served by the version its method belongs to, on every JSON-RPC path.
	// The root serves JSON-RPC of both versions, for platforms (the
	// AgentBeats gateway) that post to the card's base URL.
	jsonrpc := map[a2a.ProtocolVersion]http.Handler{a2a.Version: a2asrv.NewJSONRPCHandler(handler), a2av0.Version: a2av0.NewJSONRPCHandler(handler)}
	jsonrpcAt := func(declared ...a2a.ProtocolVersion) http.Handler {
		return a2afix.JSONRPCEndpoint{Declared: declared, Handlers: jsonrpc, Served: noteVersion}
	}
	mux.Handle(PathJSONRPC, guard(bindingJSONRPC, endpoint{"jsonrpc", "1.0"}, jsonrpcAt(a2a.Version)))
	mux.Handle(PathJSONRPC03, guard(bindingJSONRPC, endpoint{"jsonrpc", "0.3"}, jsonrpcAt(a2av0.Version)))
	mux.Handle("POST /{$}", guard(bindingJSONRPC, endpoint{"jsonrpc", "1.0 or 0.3"}, jsonrpcAt(a2a.Version, a2av0.Version)))
	mux.Handle(PathREST+"/", guard(bindingREST, endpoint{"rest", "1.0"}, a2afix.Version(a2a.Version, http.StripPrefix(PathREST, a2afix.REST(a2asrv.NewRESTHandler(handler))))))
	mux.Handle(PathREST03+"/", guard(bindingREST03, endpoint{"rest", "0.3"}, a2afix.Version(a2av0.Version, http.StripPrefix(PathREST03, a2afix.REST03(a2av0.NewRESTHandler(handler))))))
	if s.cfg.UI != nil {
		mux.Handle(PathUI, withRemoteHost(slowReaders(s.cfg.StreamWriteTimeout, s.bodyDeadline(s.limit(s.authenticateUI(s.cfg.UI))))))
	}
	return mux
}

// grpcServer serves the A2A handler over gRPC (1.0), behind the message
// size limit, the tokens and the nesting limit.
func (s *Server) grpcServer(handler a2asrv.RequestHandler) *grpc.Server {
	srv := grpc.NewServer(
		grpc.MaxRecvMsgSize(int(s.cfg.MaxRequestBytes)),
		grpc.ConnectionTimeout(s.cfg.HeaderTimeout),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: s.cfg.IdleTimeout}),
		grpc.ChainUnaryInterceptor(s.logUnary, func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			ctx, err := s.grpcAuth(ctx)
			if err != nil {
				return nil, err
			}
			ctx = s.joinGRPCTrace(ctx)
			if err := s.grpcRate(ctx, info.FullMethod); err != nil {
				return nil, err
			}
			return next(ctx, req)
		}, grpcLimitDepth, a2afix.GRPCUnary(a2a.Version)),
		grpc.ChainStreamInterceptor(s.logStream, func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
			ctx, err := s.grpcAuth(ss.Context())
			if err != nil {
				return err
			}
			ctx = s.joinGRPCTrace(ctx)
			if err := s.grpcRate(ctx, info.FullMethod); err != nil {
				return err
			}
			// Requests nested too deeply are refused as they are received.
			return next(srv, depthCheckedStream{tenantStream{ss, ctx}})
		}, a2afix.GRPCStream(a2a.Version)),
	)
	grpcv1.NewHandler(handler).RegisterWith(srv)
	return srv
}

// joinTrace gives an authenticated request's context the caller's trace
// context, when the server continues traces (Config.ContinueTraces).
func (s *Server) joinTrace(next http.Handler) http.Handler {
	if !s.cfg.ContinueTraces {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(tracing.ExtractHeader(r.Context(), r.Header)))
	})
}

// joinGRPCTrace is joinTrace for a gRPC call's context.
func (s *Server) joinGRPCTrace(ctx context.Context) context.Context {
	if !s.cfg.ContinueTraces {
		return ctx
	}
	return tracing.ExtractMetadata(ctx)
}

func orDefaultDuration(v, d time.Duration) time.Duration {
	if v <= 0 {
		return d
	}
	return v
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// advertised is the address to put in the card: the listener's port with
// the configured host, or loopback when listening on every interface.
func advertised(addr net.Addr, host string) string {
	_, port, _ := net.SplitHostPort(addr.String())
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// MetricsURL is where the server's Prometheus metrics are served.
func (s *Server) MetricsURL() string {
	if s.metricsLn == nil {
		return s.URL() + PathMetrics
	}
	host, _, _ := net.SplitHostPort(s.cfg.MetricsAddr)
	return "http://" + advertised(s.metricsLn.Addr(), host) + PathMetrics
}

// URL is the server's base URL, as its card advertises it.
func (s *Server) URL() string {
	return s.card.SupportedInterfaces[0].URL[:len(s.card.SupportedInterfaces[0].URL)-len(PathJSONRPC)]
}

// Card returns the server's agent card.
func (s *Server) Card() *a2a.AgentCard { return s.card }

// GRPCAddr is the gRPC listener's address, "" when gRPC is off.
func (s *Server) GRPCAddr() string {
	if s.grpcLn == nil {
		return ""
	}
	return s.grpcLn.Addr().String()
}

// Serve serves until ctx ends, then drains and stops: requests for new
// work are refused (DrainingText) and PathReady answers 503, while every
// other request (GetTask...) is still served; running simulations may
// finish for Config.DrainTimeout (Abort cuts it short), after which the
// rest are stopped unrecorded; every long task that did not end is
// checkpointed (it stays working, its evaluation interrupted and
// resumable, for the next process's Resume). Then the listeners close.
func (s *Server) Serve(ctx context.Context) error {
	errs := make(chan error, 3)
	if s.metricsHTTP != nil {
		go func() {
			if err := s.metricsHTTP.Serve(s.metricsLn); !errors.Is(err, http.ErrServerClosed) {
				errs <- err
			}
		}()
	}
	go func() {
		ln := limitedListener{Listener: s.httpLn, limits: s.conns, refuse: refuseHTTP}
		if err := s.http.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errs <- err
		}
	}()
	if s.grpc != nil {
		go func() {
			ln := limitedListener{Listener: s.grpcLn, limits: s.conns, refuse: refuseGRPC}
			if err := s.grpc.Serve(ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
				errs <- err
			}
		}()
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errs:
	}
	s.drain(s.cfg.DrainTimeout)
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.http.Shutdown(shutdown)
	if s.metricsHTTP != nil {
		_ = s.metricsHTTP.Shutdown(shutdown)
	}
	if s.grpc != nil {
		s.grpc.Stop()
	}
	return err
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	running, waiting := s.executor.queue.stats()
	open, unauthenticated := s.conns.stats()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "ok", "draining": s.executor.drain.isDraining(), "running": running, "queued": waiting,
		"connections": map[string]any{"open": open, "unauthenticated": unauthenticated}})
}
