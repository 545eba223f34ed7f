package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
	"google.golang.org/adk/model"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// envAuthTokens lists the bearer tokens proctor serve accepts,
// comma-separated, so that they need not appear on a command line.
const envAuthTokens = "PROCTOR_AUTH_TOKENS"

func newServeCmd() *cobra.Command {
	var (
		host, cardURL, dbPath string
		tau2Data              string
		port, grpcPort        int
		maxConcurrent         int
		maxSimulations        int
		streamsPerTask        int
		streamsPerCaller      int
		streamWriteTimeout    time.Duration
		tokens                []string
		maxRequest            int64
		maxResponse           int64
		denyPrivate           bool
		ecpCommands           []string
		trustedProxies        []string
		chatModel             string
		drainTimeout          time.Duration
		noResume              bool
		lf                    llmFlags
		limits                connFlags
		tf                    tenantFlags
		obs                   observabilityFlags
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve evaluations over A2A",
		Long: `Serve proctor as an A2A agent: other agents, CI jobs and competition platforms ask it
to evaluate an agent (run_evaluation), list the domains (list_domains) or read results
(get_results). JSON-RPC and REST at protocol 1.0 and 0.3, gRPC at 1.0 on --grpc-port.
The agent card is at /.well-known/agent-card.json, liveness at /healthz, readiness at /readyz.

SIGTERM or SIGINT drains: new work is refused (retry on another instance), /readyz answers
503, GetTask and the rest are still served, running simulations get --drain-timeout to
finish, the rest is checkpointed, and proctor exits 0; a second signal stops at once. On
start, the tasks a previous proctor left unfinished (drained or killed) carry on under
their A2A task ids: a client polling GetTask sees working go on to completed
(--no-resume ends them as failed, naming the resume request, instead).`,
		Example: `  proctor serve
  proctor serve --host 0.0.0.0 --port 9009 --card-url https://proctor.example.com
  PROCTOR_AUTH_TOKENS=s3cret proctor serve --max-concurrent 8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if port < 0 || port > 65535 || grpcPort < -1 || grpcPort > 65535 {
				return usageErr("--port and --grpc-port: want 0..65535 (--grpc-port -1 turns gRPC off)")
			}
			if maxConcurrent < 1 || maxConcurrent > 1000 {
				return usageErr("--max-concurrent %d: want 1..1000", maxConcurrent)
			}
			if maxSimulations < 1 || maxSimulations > 100000 {
				return usageErr("--max-simulation-concurrency %d: want 1..100000", maxSimulations)
			}
			if streamsPerTask < 1 || streamsPerCaller < 1 || streamWriteTimeout < time.Second {
				return usageErr("--max-streams-per-task and --max-streams-per-caller: want at least 1; --stream-write-timeout: want at least 1s")
			}
			if maxResponse < 1024 {
				return usageErr("--max-response-bytes %d: want at least 1024", maxResponse)
			}
			if drainTimeout < 0 {
				return usageErr("--drain-timeout %s: want 0 or more (0 checkpoints at once)", drainTimeout)
			}
			if err := limits.validate(); err != nil {
				return err
			}
			logger, err := obs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			tenants, err := parseTenants(tokens, os.Getenv(envAuthTokens), tf.admins)
			if err != nil {
				return err
			}
			tenantLimits, err := tf.limits()
			if err != nil {
				return err
			}
			if errs := lf.validate(cmd); len(errs) > 0 {
				return usageErr("%s", strings.Join(errs, "; "))
			}
			su, err := start(cmd, &lf, needs{tracing: true, domains: true, tau2Data: tau2Data})
			if err != nil {
				return err
			}
			defer su.close()
			models, tp, reg := su.models, su.tracer, su.catalog
			var chat model.LLM
			if chatModel != "" {
				if chat, err = models.Model(ctx, chatModel, llm.RoleChat); err != nil {
					return usageErr("--model: %v", err)
				}
			}
			// A2A tasks whose executions died with the previous process
			// carry on (see server.RecoverResumableTasks) or, with
			// --no-resume or when they cannot, end as their work did:
			// completed if their evaluation completed, failed with the
			// resume request otherwise; only when no other proctor has the
			// database open, whose tasks may be running.
			var (
				ids     []a2a.TaskID
				resumes []server.ResumableTask
			)
			db, err := openWritableDB(ctx, dbPath, cmd.ErrOrStderr(), resumeHintFor(noResume), func(db *store.DB) (err error) {
				if noResume {
					ids, err = server.RecoverTasks(ctx, db)
				} else {
					ids, resumes, err = server.RecoverResumableTasks(ctx, db)
				}
				return err
			})
			if err != nil {
				return failErr(err)
			}
			defer db.Close()
			if len(ids) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "proctor: %d A2A task(s) left unfinished by a previous stop now end as their evaluations did (failed ones name their resume request)\n", len(ids))
			}
			viewer, err := serveUI(db, reg, cmd.ErrOrStderr())
			if err != nil {
				return failErr(err)
			}
			proxies, err := parsePrefixes(trustedProxies)
			if err != nil {
				return usageErr("--trusted-proxy: %v", err)
			}
			srv, err := server.New(server.Config{
				Host: host, Port: port, GRPCPort: grpcPort, CardURL: cardURL, TrustedProxies: proxies,
				Tenants: tenants, TenantLimits: tenantLimits, Audit: db,
				MaxConcurrent: maxConcurrent, MaxRequestBytes: maxRequest,
				MaxStreamsPerTask: streamsPerTask, MaxStreamsPerCaller: streamsPerCaller, StreamWriteTimeout: streamWriteTimeout,
				// Tasks survive restarts and belong to the tenant that made
				// them; without tokens every caller is the same, anonymous one.
				TaskStore:     db.TaskStore(store.WithTenantTasks(), store.WithAnonymousTaskList()),
				ChatModel:     chat,
				UI:            viewer,
				HeaderTimeout: limits.header, BodyTimeout: limits.body, IdleTimeout: limits.idle,
				MaxConnections: limits.maxConns, MaxUnauthenticatedConnections: limits.maxUnauthenticated,
				MetricsAddr: obs.metricsListen, Logger: logger, DrainTimeout: drainTimeout,
				ContinueTraces: tp != nil,
			}, withTracing(withModels(withSimulationLimit(service(reg, db, denyPrivate, maxResponse, ecpCommands, cmd.ErrOrStderr()), maxSimulations), models, lf), tp))
			if err != nil {
				return failErr(err)
			}
			if err := resumeTasks(ctx, srv, resumes, cmd.ErrOrStderr()); err != nil {
				return failErr(err)
			}
			auth := "no authentication"
			if n := countTokens(tenants); n > 0 {
				auth = fmt.Sprintf("%d bearer token(s) required, %d tenant(s)", n, len(tenants))
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "proctor: serving at %s (card %s/.well-known/agent-card.json, gRPC %s, %s, metrics %s); Ctrl-C stops\n",
				srv.URL(), srv.URL(), orOff(srv.GRPCAddr()), auth, srv.MetricsURL())
			if dir := reg.Tau2Dir(); dir != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "proctor: domains %s (tau2-bench data from %s, loaded on first use)\n", strings.Join(reg.Names(), ", "), dir)
			}
			served := make(chan struct{})
			defer close(served)
			go drainOnSignal(ctx, served, srv, drainTimeout, cmd.ErrOrStderr())
			if err := srv.Serve(ctx); err != nil {
				return failErr(err)
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "proctor: stopped")
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&host, "host", server.DefaultHost, "address to listen on")
	fl.IntVar(&port, "port", server.DefaultPort, "HTTP port (JSON-RPC, REST, card, health)")
	fl.IntVar(&grpcPort, "grpc-port", server.DefaultPort+1, "gRPC port (0: any free port, -1: no gRPC)")
	fl.StringVar(&cardURL, "card-url", "", "base URL the agent card advertises (default http://host:port)")
	fl.StringArrayVar(&tokens, "auth-token", nil, "bearer token required on every A2A endpoint, as NAME=TOKEN to name its tenant (repeatable; or "+envAuthTokens+", comma-separated); a bare TOKEN belongs to tenant \""+server.DefaultTenant+"\"")
	fl.IntVar(&maxConcurrent, "max-concurrent", server.DefaultMaxConcurrent, "evaluations run at once; more wait in a FIFO queue")
	fl.IntVar(&maxSimulations, "max-simulation-concurrency", server.DefaultMaxSimulationConcurrency(),
		"simulations run at once across all evaluations; a request's concurrency above it is lowered to it (default sized for this machine: 64 per CPU, within the open-file limit)")
	_ = fl.SetAnnotation("max-simulation-concurrency", docsDefaultAnnotation, []string{"64 per CPU, within the open-file limit"})
	fl.IntVar(&streamsPerTask, "max-streams-per-task", server.DefaultMaxStreamsPerTask, "streams (SubscribeToTask) open at once on one task; more are refused")
	fl.IntVar(&streamsPerCaller, "max-streams-per-caller", server.DefaultMaxStreamsPerCaller,
		"streams open at once per caller (its bearer token, or its address without one); more are refused")
	fl.DurationVar(&streamWriteTimeout, "stream-write-timeout", server.DefaultStreamWriteTimeout, "a caller that reads nothing of a reply or stream for this long is disconnected")
	fl.Int64Var(&maxRequest, "max-request-bytes", server.DefaultMaxRequestBytes, "largest request body accepted")
	fl.Int64Var(&maxResponse, "max-response-bytes", a2aclient.DefaultMaxResponseBytes, "largest reply accepted from an agent under evaluation; a request's max_response_bytes may only lower it")
	fl.StringVar(&dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	addTau2Flag(cmd, &tau2Data)
	fl.StringVar(&chatModel, "model", "", "model that answers free-text requests (the chat front door), e.g. openai:gpt-4.1; without it free text gets help")
	addLLMFlags(cmd, &lf, true)
	limits.add(cmd)
	tf.add(cmd)
	obs.add(cmd)
	fl.StringSliceVar(&ecpCommands, "ecp-allow-command", nil, "let requests launch ecp+stdio: agents with this command (the first word, exactly as written; repeatable); without it none are launched. Allowing an interpreter allows whatever it runs")
	fl.DurationVar(&drainTimeout, "drain-timeout", server.DefaultDrainTimeout,
		"on SIGTERM or SIGINT, how long running simulations may finish before the rest is checkpointed for the next start to resume")
	fl.BoolVar(&noResume, "no-resume", false, "do not carry on the tasks a previous proctor left unfinished: end them failed, naming the resume request")
	fl.StringSliceVar(&trustedProxies, "trusted-proxy", nil, "address or CIDR of a TLS-terminating proxy in front of this server (repeatable): its X-Forwarded-Proto: https makes the viewer's session cookie Secure; nobody else's is believed")
	fl.BoolVar(&denyPrivate, "deny-private-targets", false, "refuse to evaluate agents on loopback, private, link-local and other non-public addresses (after DNS resolution); for servers untrusted callers can reach")
	return cmd
}

// parsePrefixes reads addresses ("10.0.0.7", "::1") and CIDR prefixes
// ("10.0.0.0/8") as prefixes, an address as the prefix of itself alone.
func parsePrefixes(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, v := range list {
		v = strings.TrimSpace(v)
		if p, err := netip.ParsePrefix(v); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(v)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR prefix (10.0.0.7, 10.0.0.0/8)", v)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// service is the skills' implementation for proctor serve. With denyPrivate
// every connection to an agent under evaluation is checked against the
// address it actually reaches; the built-in agent (on loopback, started by
// proctor itself) stays available. maxResponse is the ceiling on an
// agent's reply, which callers may lower but not raise. Stdio ECP agents'
// stderr lines go to log, with their evaluation's id.
func service(reg skills.DomainSource, db *store.DB, denyPrivate bool, maxResponse int64, ecpCommands []string, log io.Writer) *skills.Service {
	svc := &skills.Service{Domains: reg, Store: db, MaxResponseBytes: maxResponse, ECP: serveECPSettings(ecpCommands, denyPrivate, log)}
	if denyPrivate {
		svc.ClientOptions = []a2aclient.Option{a2aclient.WithDenyPrivateTargets()}
		svc.ConformanceOptions = []conformance.Option{conformance.WithDenyPrivateTargets()}
	}
	return svc
}

// withSimulationLimit bounds the simulations the service runs at once,
// across evaluations and per request (see
// skills.Service.MaxSimulationConcurrency).
func withSimulationLimit(svc *skills.Service, n int) *skills.Service {
	svc.MaxSimulationConcurrency = n
	return svc
}

// withModels gives the service its models: those of LLM users and judges,
// with the flags' specs as defaults for requests that name none.
func withModels(svc *skills.Service, models skills.ModelSource, lf llmFlags) *skills.Service {
	svc.Models, svc.UserModel, svc.JudgeModel = models, lf.userModel, lf.judgeModel
	return svc
}

func orOff(addr string) string {
	if addr == "" {
		return "off"
	}
	return addr
}

// connFlags are proctor serve's bounds on its callers' connections.
type connFlags struct {
	header, body, idle           time.Duration
	maxConns, maxUnauthenticated int
}

func (f *connFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&f.header, "header-timeout", server.DefaultHeaderTimeout, "longest a request's headers may take to arrive (and a gRPC handshake)")
	fl.DurationVar(&f.body, "body-timeout", server.DefaultBodyTimeout, "longest a request's body may take to arrive (408 after); answers and streams are not bounded")
	fl.DurationVar(&f.idle, "idle-timeout", server.DefaultIdleTimeout, "closes a connection with no request for this long")
	fl.IntVar(&f.maxConns, "max-connections", server.DefaultMaxConnections, "open connections at most (HTTP and gRPC); one more is refused with 503")
	fl.IntVar(&f.maxUnauthenticated, "max-unauthenticated-connections", server.DefaultMaxUnauthenticatedConnections,
		"connections at most whose caller has not yet sent a valid token; one more closes the oldest")
}

func (f *connFlags) validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--header-timeout", f.header}, {"--body-timeout", f.body}, {"--idle-timeout", f.idle}} {
		if d.v <= 0 {
			return usageErr("%s %s: want a positive duration, e.g. 30s", d.name, d.v)
		}
	}
	if f.maxConns < 1 {
		return usageErr("--max-connections %d: want at least 1", f.maxConns)
	}
	if f.maxUnauthenticated < 1 || f.maxUnauthenticated > f.maxConns {
		return usageErr("--max-unauthenticated-connections %d: want 1..--max-connections (%d)", f.maxUnauthenticated, f.maxConns)
	}
	return nil
}

// resumeHintFor is what the start-up line about evaluations a stopped
// proctor left running says to do.
func resumeHintFor(noResume bool) string {
	if noResume {
		return `resume one with run_evaluation {"resume": ID}`
	}
	return `their A2A tasks carry on by themselves; resume others with run_evaluation {"resume": ID}`
}

// resumeTasks carries on the tasks a previous proctor left unfinished, and
// says which.
func resumeTasks(ctx context.Context, srv *server.Server, tasks []server.ResumableTask, log io.Writer) error {
	if len(tasks) == 0 {
		return nil
	}
	names := make([]string, len(tasks))
	for i, r := range tasks {
		names[i] = string(r.ID)
		if r.EvaluationID != "" {
			names[i] += " (evaluation " + r.EvaluationID + ")"
		} else {
			names[i] += " (its request again)"
		}
	}
	fmt.Fprintf(log, "proctor: resuming %d A2A task(s) a previous stop left unfinished: %s\n", len(tasks), strings.Join(names, ", "))
	return srv.Resume(ctx, tasks)
}

// drainOnSignal announces the drain that ctx's end (the first SIGTERM or
// SIGINT) starts, and aborts it on a second signal, until served closes.
func drainOnSignal(ctx context.Context, served <-chan struct{}, srv *server.Server, timeout time.Duration, log io.Writer) {
	select {
	case <-ctx.Done():
	case <-served:
		return
	}
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	fmt.Fprintf(log, "proctor: draining: new work is refused; running simulations have %s to finish, then the rest is checkpointed (a second signal stops at once)\n", timeout)
	select {
	case <-again:
		fmt.Fprintln(log, "proctor: second signal: stopping at once; unfinished simulations are not recorded")
		srv.Abort()
	case <-served:
	}
}
