package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/bench"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/builtin"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/store"
	"github.com/proctor-eval/proctor/translation"
)

// builtinAgent is the --agent value that selects proctor's reference agent.
const builtinAgent = "builtin"

// Environment variables that carry the agent's credentials, so that they
// need not appear on a command line (and in ps).
const (
	envBearerToken = "PROCTOR_AGENT_TOKEN"
	envAPIKey      = "PROCTOR_AGENT_API_KEY"
)

type runFlags struct {
	domain, agent, profile, user string
	numTrials, numTasks          int
	taskIDs                      []string
	maxSteps, maxErrors          int
	timeout, requestTimeout      time.Duration
	concurrency                  int
	dbPath, format, out          string
	failUnder                    float64
	resume                       string
	progress                     string
	transport, protocol          string
	streaming                    string
	retries                      int
	maxResponse                  int64
	headers                      []string
	bearerToken                  string
	apiKey, apiKeyHeader         string
}

func newRunCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Evaluate an agent on a domain",
		Long: `Evaluate an A2A agent on a domain's tasks and store the results.

--agent is the agent's base URL (its card is read from /.well-known/agent-card.json,
then /.well-known/agent.json), the URL of its card, or "builtin" for proctor's
reference agent, started in-process on a loopback port.`,
		Example: `  proctor run --domain mock --agent builtin
  proctor run --domain mock --agent http://localhost:9019 --num-trials 4 --concurrency 8
  proctor run --domain mock --agent http://localhost:9019 --task-ids mock-01,mock-02 --format json --out result.json
  proctor run --resume 01970d1c`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEvaluation(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.domain, "domain", "mock", "domain to evaluate on (see 'proctor domains')")
	fl.StringVar(&f.agent, "agent", builtinAgent, `agent base URL, agent card URL, or "builtin"`)
	fl.StringVar(&f.profile, "profile", "agentbeats", "what the agent is told and how: "+strings.Join(translation.ProfileNames(), ", "))
	fl.StringVar(&f.user, "user", "scripted", "user simulator: scripted")
	fl.IntVar(&f.numTrials, "num-trials", 1, "trials per task (pass^k is reported for every k up to this)")
	fl.IntVar(&f.numTasks, "num-tasks", 0, "evaluate only the first N tasks (0: all)")
	fl.StringSliceVar(&f.taskIDs, "task-ids", nil, "evaluate only these task ids (comma-separated)")
	fl.IntVar(&f.maxSteps, "max-steps", bench.DefaultMaxSteps, "messages per simulation before it ends as max_steps")
	fl.IntVar(&f.maxErrors, "max-errors", bench.DefaultMaxErrors, "failed tool calls per simulation before it ends as too_many_errors")
	fl.DurationVar(&f.timeout, "timeout", bench.DefaultTimeout, "wall-clock limit of one simulation")
	fl.DurationVar(&f.requestTimeout, "request-timeout", a2aclient.DefaultRequestTimeout, "limit of one request to the agent")
	fl.IntVar(&f.concurrency, "concurrency", 4, "simulations run at the same time")
	fl.StringVar(&f.dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&f.format, "format", "table", "output format: table, json, markdown")
	fl.StringVar(&f.out, "out", "", "write the result to this file instead of stdout")
	fl.Float64Var(&f.failUnder, "fail-under", -1, "exit with status 3 when pass^1 is below this value (0..1)")
	fl.StringVar(&f.resume, "resume", "", "finish the interrupted evaluation with this id (or unique id prefix)")
	fl.StringVar(&f.progress, "progress", "auto", "progress display on stderr: auto (a bar on a terminal), bar, lines, none")
	fl.StringVar(&f.transport, "transport", "", "transport to use: jsonrpc, rest or grpc (default: the agent card's preference)")
	fl.StringVar(&f.protocol, "protocol", "", "A2A protocol version to use: 1.0 or 0.3 (default: the agent card's preference)")
	fl.StringVar(&f.streaming, "streaming", a2aclient.StreamingAuto, "stream replies: auto (when the card says the agent can), on, off")
	fl.IntVar(&f.retries, "retries", a2aclient.DefaultRetries, "retries of a request that failed transiently (refused, reset, 502/503/504, gRPC UNAVAILABLE)")
	fl.Int64Var(&f.maxResponse, "max-response-bytes", a2aclient.DefaultMaxResponseBytes, "largest reply accepted from the agent")
	fl.StringArrayVar(&f.headers, "header", nil, "extra request header K=V for the agent (repeatable); values are never stored")
	fl.StringVar(&f.bearerToken, "bearer-token", "", "send 'Authorization: Bearer T' to the agent (or set "+envBearerToken+")")
	fl.StringVar(&f.apiKey, "api-key", "", "send an API key to the agent in --api-key-header (or set "+envAPIKey+")")
	fl.StringVar(&f.apiKeyHeader, "api-key-header", "X-API-Key", "header that carries --api-key")
	return cmd
}

func (f *runFlags) validate() error {
	var errs []string
	if !slices.Contains([]string{"table", "json", "markdown"}, f.format) {
		errs = append(errs, fmt.Sprintf("--format %q: want table, json or markdown", f.format))
	}
	if f.numTrials < 1 || f.numTrials > 1000 {
		errs = append(errs, fmt.Sprintf("--num-trials %d: want 1..1000", f.numTrials))
	}
	if f.numTasks < 0 {
		errs = append(errs, fmt.Sprintf("--num-tasks %d: must not be negative", f.numTasks))
	}
	if f.concurrency < 1 || f.concurrency > 10000 {
		errs = append(errs, fmt.Sprintf("--concurrency %d: want 1..10000", f.concurrency))
	}
	if f.maxSteps < 2 {
		errs = append(errs, fmt.Sprintf("--max-steps %d: want at least 2", f.maxSteps))
	}
	if f.maxErrors < 1 {
		errs = append(errs, fmt.Sprintf("--max-errors %d: want at least 1", f.maxErrors))
	}
	if f.timeout <= 0 || f.requestTimeout <= 0 {
		errs = append(errs, "--timeout and --request-timeout must be positive")
	}
	if f.failUnder != -1 && (f.failUnder < 0 || f.failUnder > 1) {
		errs = append(errs, fmt.Sprintf("--fail-under %v: want a value in 0..1", f.failUnder))
	}
	if f.user != "scripted" {
		errs = append(errs, fmt.Sprintf("--user %q: only the scripted user is available in this build", f.user))
	}
	if f.out != "" {
		// Found out now, not after a long evaluation has run.
		if fi, err := os.Stat(filepath.Dir(f.out)); err != nil || !fi.IsDir() {
			errs = append(errs, fmt.Sprintf("--out %s: directory %s does not exist", f.out, filepath.Dir(f.out)))
		} else if fi, err := os.Stat(f.out); err == nil && fi.IsDir() {
			errs = append(errs, fmt.Sprintf("--out %s: is a directory", f.out))
		}
	}
	if f.resume == "" {
		if err := checkAgent(f.agent); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if !slices.Contains([]string{"", a2aclient.TransportJSONRPC, a2aclient.TransportREST, a2aclient.TransportGRPC}, f.transport) {
		errs = append(errs, fmt.Sprintf("--transport %q: want jsonrpc, rest or grpc", f.transport))
	}
	if !slices.Contains([]string{"", a2aclient.Protocol10, a2aclient.Protocol03}, f.protocol) {
		errs = append(errs, fmt.Sprintf("--protocol %q: want 1.0 or 0.3", f.protocol))
	}
	if !slices.Contains([]string{a2aclient.StreamingAuto, a2aclient.StreamingOn, a2aclient.StreamingOff}, f.streaming) {
		errs = append(errs, fmt.Sprintf("--streaming %q: want auto, on or off", f.streaming))
	}
	if f.retries < 0 || f.retries > 20 {
		errs = append(errs, fmt.Sprintf("--retries %d: want 0..20", f.retries))
	}
	if f.maxResponse < 1024 {
		errs = append(errs, fmt.Sprintf("--max-response-bytes %d: want at least 1024", f.maxResponse))
	}
	if _, err := f.requestHeaders(); err != nil {
		errs = append(errs, err.Error())
	}
	if !slices.Contains([]string{"auto", "bar", "lines", "none"}, f.progress) {
		errs = append(errs, fmt.Sprintf("--progress %q: want auto, bar, lines or none", f.progress))
	}
	if len(errs) > 0 {
		return usageErr("%s", strings.Join(errs, "; "))
	}
	return nil
}

// requestHeaders assembles the headers sent to the agent from --header,
// --bearer-token and --api-key (or their environment variables).
func (f *runFlags) requestHeaders() (http.Header, error) {
	h := http.Header{}
	for _, kv := range f.headers {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("--header %q: want NAME=VALUE", redactHeader(kv))
		}
		h.Add(k, v)
	}
	token := f.bearerToken
	if token == "" {
		token = os.Getenv(envBearerToken)
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	key := f.apiKey
	if key == "" {
		key = os.Getenv(envAPIKey)
	}
	if key != "" {
		if strings.TrimSpace(f.apiKeyHeader) == "" {
			return nil, errors.New("--api-key-header must name a header")
		}
		h.Set(f.apiKeyHeader, key)
	}
	return h, nil
}

// redactHeader shows a --header argument without its value.
func redactHeader(kv string) string {
	if k, _, ok := strings.Cut(kv, "="); ok {
		return k + "=…"
	}
	if len(kv) > 20 {
		return kv[:20] + "…"
	}
	return kv
}

// checkAgent rejects --agent values that cannot name an agent, so that a
// typo is a usage error and not a failed evaluation.
func checkAgent(agent string) error {
	if agent == builtinAgent {
		return nil
	}
	u, err := url.Parse(agent)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--agent %q: want %q or an http:// or https:// URL such as http://127.0.0.1:9019", agent, builtinAgent)
	}
	return nil
}

func runEvaluation(cmd *cobra.Command, f *runFlags) error {
	ctx := cmd.Context()
	if err := f.validate(); err != nil {
		return err
	}
	if _, err := translation.ProfileByName(f.profile); err != nil {
		return usageErr("--profile: %v", err)
	}
	reg, err := builtin.Registry()
	if err != nil {
		return failErr(err)
	}
	// A new evaluation's command line is checked in full before the
	// database is opened: a rejected command must not create or lock it.
	if f.resume == "" {
		if _, _, err := resolveTasks(reg, f.domain, f.taskIDs, f.numTasks, f.user); err != nil {
			return err
		}
	}
	db, err := openDB(f.dbPath)
	if err != nil {
		return failErr(err)
	}
	defer db.Close()
	// We hold the database's exclusive lock, so no other proctor is running:
	// an evaluation still marked running was left by one that died.
	if n, err := db.MarkInterrupted(ctx, bench.StatusRunning, bench.StatusInterrupted); err != nil {
		return failErr(err)
	} else if n > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "proctor: %d evaluation(s) left running by a proctor that stopped are now marked interrupted (see 'proctor results'; finish one with --resume ID)\n", n)
	}

	var eval *bench.Evaluation
	if f.resume != "" {
		if eval, err = resumable(ctx, cmd, db, f); err != nil {
			return err
		}
	} else {
		eval = bench.NewEvaluation(store.NewID(), bench.Config{
			Domain: f.domain, Agent: f.agent, Profile: f.profile, User: f.user,
			NumTrials: f.numTrials, NumTasks: f.numTasks, TaskIDs: f.taskIDs,
			MaxSteps: f.maxSteps, MaxErrors: f.maxErrors, Concurrency: f.concurrency,
			Timeout: bench.Duration(f.timeout), RequestTimeout: bench.Duration(f.requestTimeout),
			Transport: f.transport, Protocol: f.protocol, Streaming: f.streaming, Retries: f.retries,
		}, bench.AgentInfo{})
	}
	cfg := eval.Config
	domain, tasks, err := resolveTasks(reg, cfg.Domain, cfg.TaskIDs, cfg.NumTasks, cfg.User)
	if err != nil {
		return err
	}
	profile, err := translation.ProfileByName(cfg.Profile)
	if err != nil {
		return usageErr("--profile: %v", err)
	}

	agentCtx, stopAgent := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAgent()
	target, builtinURL := cfg.Agent, false
	if cfg.Agent == builtinAgent {
		if target, err = startBuiltin(agentCtx, domain); err != nil {
			return failErr(err)
		}
		builtinURL = true
	}
	headers, err := f.requestHeaders() // from flags on resume too: never stored
	if err != nil {
		return usageErr("%v", err)
	}
	eval.Config.HeaderNames = slices.Sorted(maps.Keys(headers))
	streaming := cfg.Streaming
	if streaming == "" {
		streaming = a2aclient.StreamingAuto
	}
	client, err := a2aclient.Dial(ctx, target,
		a2aclient.WithRequestTimeout(time.Duration(cfg.RequestTimeout)),
		a2aclient.WithMaxConnsPerHost(f.concurrency),
		a2aclient.WithTransport(cfg.Transport),
		a2aclient.WithProtocol(cfg.Protocol),
		a2aclient.WithStreaming(streaming),
		a2aclient.WithRetries(cfg.Retries, a2aclient.DefaultRetryBase),
		a2aclient.WithMaxResponseBytes(f.maxResponse),
		a2aclient.WithHeaders(headers),
	)
	if err != nil {
		return failErr(fmt.Errorf("cannot evaluate %s: %w", target, err))
	}
	defer client.Close()
	card, iface := client.Card(), client.Endpoint()
	eval.Agent = bench.AgentInfo{
		URL: iface.URL, CardURL: client.CardURL(), Name: card.Name, Version: card.Version,
		Transport: string(iface.ProtocolBinding), ProtocolVersion: string(iface.ProtocolVersion),
		Streaming: client.Streaming(), Builtin: builtinURL,
	}
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	eval.Config.TaskIDs = ids // resume runs exactly these

	errOut := cmd.ErrOrStderr()
	fmt.Fprintf(errOut, "proctor: evaluation %s: %s on %s, %d tasks x %d trials (concurrency %d)\n",
		eval.ID, agentLabel(eval.Agent), cfg.Domain, len(tasks), cfg.NumTrials, f.concurrency)
	prog := newProgress(errOut, f.progress)
	runner := &bench.Runner{
		Simulator: bench.NewSimulator(domain, profile, bench.Limits{
			MaxSteps: cfg.MaxSteps, MaxErrors: cfg.MaxErrors, Timeout: time.Duration(cfg.Timeout),
		}),
		Agent:       bench.ClientAgent(client),
		Users:       bench.ScriptedUsers,
		Store:       db,
		Concurrency: f.concurrency,
		OnProgress:  prog.update,
	}
	runErr := runner.Run(ctx, eval, tasks)
	prog.finish()
	if runErr != nil {
		return failErr(fmt.Errorf("evaluation %s: %w", eval.ID, runErr))
	}
	if eval.Status == bench.StatusInterrupted {
		// The runner's record of an interrupted evaluation can miss
		// simulations stored just as it was interrupted; report what the
		// database holds, which is what --resume will keep.
		if stored, err := bench.Load(context.WithoutCancel(ctx), db, eval.ID); err == nil {
			eval = stored
		}
	}
	if err := writeResult(cmd.OutOrStdout(), f.out, f.format, eval); err != nil {
		return failErr(err)
	}
	if eval.Status == bench.StatusInterrupted {
		fmt.Fprintf(errOut, "proctor: interrupted; %d simulations kept. Finish with: proctor run --resume %s\n", len(eval.Simulations), eval.ID)
		return &exitError{code: exitInterrupt, err: errors.New("interrupted")}
	}
	if f.failUnder >= 0 {
		if p1 := eval.Summary.PassHatK["1"]; p1 < f.failUnder {
			fmt.Fprintf(errOut, "proctor: pass^1 %.3f is below --fail-under %.3f\n", p1, f.failUnder)
			return &exitError{code: exitFailUnder, err: errors.New("below --fail-under")}
		}
	}
	return nil
}

// resumable loads an evaluation to finish. Its stored config wins over flags:
// a resumed evaluation must be the same evaluation.
func resumable(ctx context.Context, cmd *cobra.Command, db *store.DB, f *runFlags) (*bench.Evaluation, error) {
	eval, err := bench.Load(ctx, db, f.resume)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
			return nil, usageErr("--resume: %v", err)
		}
		return nil, failErr(err)
	}
	if eval.Status == bench.StatusCompleted {
		return nil, usageErr("--resume: evaluation %s is already completed (see 'proctor results %s')", eval.ID, eval.ID)
	}
	for _, name := range []string{"domain", "agent", "profile", "user", "num-trials", "num-tasks", "task-ids", "max-steps", "max-errors", "timeout", "request-timeout", "transport", "protocol", "streaming", "retries"} {
		if cmd.Flags().Changed(name) {
			fmt.Fprintf(cmd.ErrOrStderr(), "proctor: --%s ignored: a resumed evaluation keeps its original settings\n", name)
		}
	}
	if !cmd.Flags().Changed("concurrency") && eval.Config.Concurrency > 0 {
		f.concurrency = eval.Config.Concurrency
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: resuming %s: %d simulations already done\n", eval.ID, len(eval.Simulations))
	return eval, nil
}

// resolveTasks finds the domain and the tasks an evaluation runs.
func resolveTasks(reg *domains.Registry, name string, ids []string, n int, user string) (*domains.Domain, []*domains.Task, error) {
	domain, err := reg.Get(name)
	if err != nil {
		return nil, nil, usageErr("--domain: %v", err)
	}
	tasks, err := selectTasks(domain, ids, n)
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	if user == "scripted" {
		if err := requireScripts(tasks); err != nil {
			return nil, nil, usageErr("%v", err)
		}
	}
	return domain, tasks, nil
}

func selectTasks(d *domains.Domain, ids []string, n int) ([]*domains.Task, error) {
	var tasks []*domains.Task
	if len(ids) > 0 {
		var unknown []string
		seen := map[string]bool{}
		for _, id := range ids {
			id = strings.TrimSpace(id)
			if id == "" || seen[id] {
				continue
			}
			seen[id] = true
			t, ok := d.Task(id)
			if !ok {
				unknown = append(unknown, id)
				continue
			}
			tasks = append(tasks, t)
		}
		if len(unknown) > 0 {
			return nil, fmt.Errorf("--task-ids: domain %s has no task %s (see 'proctor domains %s')", d.Name, strings.Join(unknown, ", "), d.Name)
		}
	} else {
		for i := range d.Tasks {
			tasks = append(tasks, &d.Tasks[i])
		}
	}
	if n > 0 && n < len(tasks) {
		tasks = tasks[:n]
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("domain %s: no tasks selected", d.Name)
	}
	return tasks, nil
}

func requireScripts(tasks []*domains.Task) error {
	var missing []string
	for _, t := range tasks {
		if len(t.UserScenario.Script) == 0 {
			missing = append(missing, t.ID)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the scripted user cannot play tasks without a script (%s); they need the LLM user simulator", strings.Join(missing, ", "))
	}
	return nil
}

// startBuiltin serves the reference agent on a loopback port until ctx ends.
func startBuiltin(ctx context.Context, d *domains.Domain) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("start the built-in agent: %w", err)
	}
	go func() { _ = refagent.Serve(ctx, ln, d) }()
	return "http://" + ln.Addr().String(), nil
}

func openDB(path string) (*store.DB, error) {
	path, err := dbPath(path)
	if err != nil {
		return nil, err
	}
	return store.Open(path)
}

// openDBForReading opens the database read-only, with a lock shared with
// other readers. A database that does not exist yet is not created: it
// reads as empty, and openDBForReading returns nil and the path.
func openDBForReading(path string) (*store.DB, string, error) {
	path, err := dbPath(path)
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	db, err := store.Open(path, store.WithReadOnly())
	return db, path, err
}

func dbPath(path string) (string, error) {
	if path != "" {
		return path, nil
	}
	p, err := store.DefaultPath()
	if err != nil {
		return "", fmt.Errorf("no --db given and no default location: %w", err)
	}
	return p, nil
}

func agentLabel(a bench.AgentInfo) string {
	if a.Builtin {
		return "built-in reference agent"
	}
	if a.Name != "" {
		return fmt.Sprintf("%q at %s", a.Name, a.URL)
	}
	return a.URL
}

func writeResult(stdout io.Writer, out, format string, eval *bench.Evaluation) (err error) {
	w := stdout
	if out != "" {
		file, err := os.Create(out)
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		defer func() {
			if cerr := file.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("--out: %w", cerr)
			}
		}()
		w = file
	}
	return render(w, format, eval)
}
