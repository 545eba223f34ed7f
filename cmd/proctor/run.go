package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/skills"
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
	agentModel                   string
	split, tau2Data              string
	retrievalConfig              string
	numTrials, numTasks          int
	taskIDs                      []string
	maxSteps, maxErrors          int
	timeout, requestTimeout      time.Duration
	concurrency                  int
	dbPath, format, out          string
	failUnder                    optionalFloat
	resume                       string
	progress                     string
	transport, protocol          string
	strict                       bool
	actionMatch                  string
	streaming                    string
	retries                      int
	maxResponse                  int64
	headers                      []string
	bearerToken                  string
	apiKey, apiKeyHeader         string
	ecpConfig                    string
	ecpAllowTools                []string
	toolFaults                   float64
	ecpStderr                    string
	llm                          llmFlags
	shard                        shardFlags
}

func newRunCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Evaluate an agent on a domain",
		Long: `Evaluate an A2A agent on a domain's tasks and store the results.

--agent is the agent's base URL (its card is read from /.well-known/agent-card.json,
then /.well-known/agent.json), the URL of its card, or "builtin" for proctor's
reference agent, started in-process on a loopback port.

tau2-bench's domains (airline, retail, telecom, tau2-mock, banking_knowledge) need
its data ('proctor domains install tau2', or --tau2-data) and come in task splits:
--split base (the default), train or test (telecom also small and full).
banking_knowledge needs --retrieval-config (bm25, grep_only...).`,
		Example: `  proctor run --domain mock --agent builtin
  proctor run --domain mock --agent http://localhost:9019 --num-trials 4 --concurrency 8
  proctor run --domain mock --agent http://localhost:9019 --task-ids mock-01,mock-02 --format json --out result.json
  proctor run --domain banking_knowledge --retrieval-config bm25_grep --agent http://localhost:9019 --user llm --user-model openai:gpt-4.1
  proctor run --resume e88edbe3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEvaluation(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.domain, "domain", skills.DefaultDomain, "domain to evaluate on (see 'proctor domains')")
	fl.StringVar(&f.split, "split", skills.DefaultSplit, "task split of a tau2 domain: base, train or test (a domain without splits takes all its tasks)")
	fl.BoolVar(&f.strict, "strict", false, "add ACTION to every task's reward basis: the expected tool calls must be made, not just their effect reached")
	fl.StringVar(&f.actionMatch, "action-match", string(result.ActionMatchTau2), "how ACTION matches expected tool calls: tau2 (tau2-bench's reading) or exact (proctor's stricter one: the right side, every expected argument)")
	addTau2Flag(cmd, &f.tau2Data)
	fl.StringVar(&f.retrievalConfig, "retrieval-config", "", "banking_knowledge's retrieval configuration, as tau2 names it: "+
		strings.Join(knowledge.ConfigNames(), ", ")+" (the agent's retrieval tools and prompt; the embedding ones call an OpenAI-compatible embeddings endpoint; tau2's default, alltools, needs a shell sandbox proctor does not offer)")
	fl.StringVar(&f.agent, "agent", builtinAgent, `agent base URL, agent card URL, "builtin", model:PROVIDER:MODEL (see --agent-model), or an ECP agent: 'ecp+stdio:COMMAND ARGS' or ecp+ws://HOST:PORT/PATH`)
	fl.StringVar(&f.agentModel, "agent-model", "", "evaluate a model without writing an agent: proctor serves an ADK LLM agent on it (the baseline participant) in-process, e.g. openai:gpt-4.1 (same as --agent model:openai:gpt-4.1)")
	fl.StringVar(&f.profile, "profile", string(agent.ProfileAgentBeats), "what the agent is told and how: "+strings.Join(translation.ProfileNames(), ", "))
	fl.StringVar(&f.user, "user", skills.DefaultUser, "user simulator: scripted (the task's script) or llm (a model plays the user: --user-model)")
	fl.IntVar(&f.numTrials, "num-trials", skills.DefaultNumTrials, "trials per task (pass^k is reported for every k up to this)")
	fl.IntVar(&f.numTasks, "num-tasks", 0, "evaluate only the first N tasks (0: all)")
	fl.StringSliceVar(&f.taskIDs, "task-ids", nil, "evaluate only these task ids (comma-separated)")
	fl.IntVar(&f.maxSteps, "max-steps", rollout.DefaultMaxSteps, "messages per simulation before it ends as max_steps")
	fl.IntVar(&f.maxErrors, "max-errors", rollout.DefaultMaxErrors, "failed tool calls per simulation before it ends as too_many_errors")
	fl.DurationVar(&f.timeout, "timeout", rollout.DefaultTimeout, "wall-clock limit of one simulation")
	fl.DurationVar(&f.requestTimeout, "request-timeout", a2aclient.DefaultRequestTimeout, "limit of one request to the agent")
	fl.IntVar(&f.concurrency, "concurrency", skills.DefaultConcurrency, "simulations run at the same time")
	fl.StringVar(&f.dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&f.format, "format", "table", "output format: table, json, markdown, tau2 (tau2-bench's results.json), html (one self-contained file)")
	fl.StringVar(&f.out, "out", "", "write the result to this file instead of stdout")
	fl.Var(&f.failUnder, "fail-under", "exit with status 3 when pass^1 is below this value (0..1; default: never)")
	fl.StringVar(&f.resume, "resume", "", "finish the interrupted evaluation with this id (or short id: its last 8 characters, or a unique prefix)")
	fl.StringVar(&f.progress, "progress", "auto", "progress display on stderr: auto (a bar on a terminal), bar, lines, none")
	fl.StringVar(&f.transport, "transport", "", "transport to use: jsonrpc, rest or grpc (default: the agent card's preference)")
	fl.StringVar(&f.protocol, "protocol", "", "A2A protocol version to use: 1.0 or 0.3 (default: the agent card's preference)")
	fl.StringVar(&f.streaming, "streaming", string(a2aclient.StreamingAuto), "stream replies: auto (when the card says the agent can), on, off")
	fl.IntVar(&f.retries, "retries", a2aclient.DefaultRetries, "retries of a request that failed transiently (refused, reset, 502/503/504, gRPC UNAVAILABLE)")
	fl.StringVar(&f.ecpConfig, "ecp-config", "", `JSON or YAML file passed to an ECP agent's agent/initialize as its config; write secrets as {"$env": "NAME"}`)
	fl.StringVar(&f.ecpStderr, "ecp-stderr", ecpStderrLog, "where stdio ECP agents' stderr goes, line by line with the simulation and pid: "+ecpStderrLog+" (proctor's own), none, or a file to append to")
	fl.Float64Var(&f.toolFaults, "tool-faults", 0, "corrupt this share (0..1) of the agent's tool results before it sees them (errors, stale values, cut output, wrong records; --seed chooses which) and score its robustness beside the reward, which the true environment decides")
	fl.StringSliceVar(&f.ecpAllowTools, "ecp-allow-tools", nil, "the only domain tools an ECP agent may call (comma-separated; overrides allow_tools in --ecp-config); other calls are refused and counted as policy violations")
	fl.Int64Var(&f.maxResponse, "max-response-bytes", a2aclient.DefaultMaxResponseBytes, "largest reply accepted from the agent")
	fl.StringArrayVar(&f.headers, "header", nil, "extra request header K=V for the agent (repeatable); values are never stored")
	fl.StringVar(&f.bearerToken, "bearer-token", "", "send 'Authorization: Bearer T' to the agent (or set "+envBearerToken+")")
	fl.StringVar(&f.apiKey, "api-key", "", "send an API key to the agent in --api-key-header (or set "+envAPIKey+")")
	fl.StringVar(&f.apiKeyHeader, "api-key-header", "X-API-Key", "header that carries --api-key")
	addLLMFlags(cmd, &f.llm, true)
	addShardFlags(cmd, &f.shard)
	return cmd
}

// validate checks what only the command line has: output, progress and
// header flags, and the flags whose zero means "the default" in a request
// but is a mistake on a command line, where every flag shows its default.
// The request's own fields (ranges, names, the agent's URL, models) are the
// service's to check (skills.Service.Check), in one place for the CLI and
// the server.
func (f *runFlags) validate(cmd *cobra.Command) error {
	errs := f.llm.validate(cmd)
	if f.agentModel != "" {
		if cmd.Flags().Changed("agent") {
			errs = append(errs, "--agent-model and --agent both name the agent: give one")
		}
		f.agent = result.ModelAgentPrefix + f.agentModel
	}
	errs = append(errs, f.shard.resolve(cmd, f.resume != "")...)
	if !slices.Contains(report.Formats(), report.Format(f.format)) && f.format != formatHTML {
		errs = append(errs, fmt.Sprintf("--format %q: want table, json, markdown, tau2 or html", f.format))
	}
	for _, n := range []struct {
		flag  string
		value int
	}{{"num-trials", f.numTrials}, {"concurrency", f.concurrency}, {"max-steps", f.maxSteps}, {"max-errors", f.maxErrors}} {
		if n.value == 0 {
			errs = append(errs, fmt.Sprintf("--%s 0: want at least 1", n.flag))
		}
	}
	if f.timeout <= 0 || f.requestTimeout <= 0 {
		errs = append(errs, "--timeout and --request-timeout must be positive")
	}
	if f.toolFaults < 0 || f.toolFaults > 1 || math.IsNaN(f.toolFaults) {
		errs = append(errs, fmt.Sprintf("--tool-faults %v: want a share in 0..1, e.g. 0.1 for one result in ten", f.toolFaults))
	}
	if v := f.failUnder.value; f.failUnder.set && (v < 0 || v > 1 || math.IsNaN(v)) {
		errs = append(errs, fmt.Sprintf("--fail-under %v: want a value in 0..1", v))
	}
	if f.user == skills.UserLLM && f.llm.userModel == "" && f.resume == "" {
		errs = append(errs, "--user llm needs --user-model, e.g. --user-model openai:gpt-4.1 (the key comes from OPENAI_API_KEY)")
	}
	if err := checkOut(f.out); err != "" {
		errs = append(errs, err)
	}
	if _, err := f.requestHeaders(); err != nil {
		errs = append(errs, err.Error())
	}
	if !slices.Contains([]string{"auto", "bar", "lines", "none"}, f.progress) {
		errs = append(errs, fmt.Sprintf("--progress %q: want auto, bar, lines or none", f.progress))
	}
	if f.resume != "" {
		if kept := keptOnResume(cmd); len(kept) > 0 {
			errs = append(errs, fmt.Sprintf("%s: a resumed evaluation keeps its settings; drop them, or start a new evaluation with them",
				strings.Join(kept, ", ")))
		}
	}
	if len(errs) > 0 {
		return usageErr("%s", strings.Join(errs, "; "))
	}
	return nil
}

// appliedOnResume are the run flags a resume uses: where and how to show
// the result, and what is never stored with an evaluation (credentials,
// the data and model API's location, the ceilings the operator sets).
var appliedOnResume = []string{
	"resume", "db", "format", "out", "progress", "fail-under", "concurrency", "max-response-bytes",
	"header", "bearer-token", "api-key", "api-key-header", "tau2-data",
	"llm-cassette", "llm-mode", "llm-base-url", "llm-prices", "llm-retries", "shard-out",
}

// keptOnResume lists the flags given with --resume that would change the
// stored evaluation's settings, which a resume keeps.
func keptOnResume(cmd *cobra.Command) []string {
	var kept []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if !slices.Contains(appliedOnResume, fl.Name) {
			kept = append(kept, "--"+fl.Name)
		}
	})
	return kept
}

// executable is a prepared evaluation or rescore.
type executable interface {
	Execute(ctx context.Context, onProgress func(evaluation.Progress)) error
	Evaluation() *result.Evaluation
}

// output is where and how a command shows its result.
type output struct {
	out, format, progress string
	cat                   *catalog.Catalog
	// prog is the progress display, when it had to exist before (nil:
	// execute makes one).
	prog *progress
}

// execute runs a prepared evaluation with a progress display, writes its
// result, and turns an interruption into exit 130 with what to do next
// (the end of the sentence "N simulations ..."), which an error that stops
// the evaluation (a full disk) says too.
func execute(cmd *cobra.Command, e executable, o output, next string) (*result.Evaluation, error) {
	prog := o.prog
	if prog == nil {
		prog = newProgress(cmd.ErrOrStderr(), o.progress)
	}
	runErr := e.Execute(cmd.Context(), prog.update)
	prog.finish()
	if runErr != nil {
		return nil, failErr(fmt.Errorf("%w\nproctor: the simulations stored before the error are %s", runErr, next))
	}
	eval := e.Evaluation()
	if err := writeResult(cmd.OutOrStdout(), o.out, o.format, eval, o.cat); errors.Is(err, syscall.EPIPE) {
		fmt.Fprintf(cmd.ErrOrStderr(), "proctor: stdout was closed before the whole result was written; evaluation %s is stored: proctor results %s\n", eval.ID, eval.ID)
	} else if err != nil {
		return nil, failErr(err)
	}
	if eval.Status == result.StatusInterrupted {
		fmt.Fprintf(cmd.ErrOrStderr(), "proctor: interrupted; %d simulations %s\n", len(eval.Simulations), next)
		return nil, &exitError{code: exitInterrupt, err: errors.New("interrupted")}
	}
	if eval.Status == result.StatusFailed {
		fmt.Fprintf(cmd.ErrOrStderr(), "proctor: evaluation %s failed: %s\n", eval.ID, eval.Error)
		return nil, &exitError{code: exitNoOutcome, err: errors.New(eval.Error)}
	}
	return eval, nil
}

// checkOut says what is wrong with an --out path, if anything: found out
// before a long evaluation runs, not after.
func checkOut(out string) string {
	if out == "" {
		return ""
	}
	if fi, err := os.Stat(filepath.Dir(out)); err != nil || !fi.IsDir() {
		return fmt.Sprintf("--out %s: directory %s does not exist", out, filepath.Dir(out))
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return fmt.Sprintf("--out %s: is a directory", out)
	}
	return ""
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

func runEvaluation(cmd *cobra.Command, f *runFlags) error {
	ctx := cmd.Context()
	if err := f.validate(cmd); err != nil {
		return err
	}
	su, err := start(cmd, &f.llm, needs{tracing: true, domains: true, tau2Data: f.tau2Data})
	if err != nil {
		return err
	}
	defer su.close()
	headers, err := f.requestHeaders() // from flags on resume too: never stored
	if err != nil {
		return usageErr("%v", err)
	}
	ecpConfig, err := loadECPConfig(f.ecpConfig)
	if err != nil {
		return usageErr("%v", err)
	}
	retries := f.retries
	req := skills.EvaluationRequest{
		ECPConfig: ecpConfig,
		Domain:    f.domain, Split: f.split, RetrievalConfig: f.retrievalConfig, AgentURL: f.agent, Profile: f.profile, User: f.user, Strict: f.strict,
		ActionMatch: result.ActionMatch(f.actionMatch),
		NumTrials:   f.numTrials, NumTasks: f.numTasks, TaskIDs: f.taskIDs,
		MaxSteps: f.maxSteps, MaxErrors: f.maxErrors, Concurrency: f.concurrency,
		Timeout: result.Duration(f.timeout), RequestTimeout: result.Duration(f.requestTimeout),
		Transport: f.transport, Protocol: f.protocol, Streaming: f.streaming, Retries: &retries,
		MaxResponseBytes: f.maxResponse, Headers: flattenHeaders(headers), Resume: f.resume,
		UserModel: f.llm.userModel, UserPrompt: f.llm.userPrompt, JudgeModel: f.llm.judgeModel, JudgeSamples: f.llm.judgeSamples,
		Temperature: f.llm.temperaturePtr(cmd), Seed: f.llm.seedPtr(cmd),
		ShardIndex: f.shard.index, NumShards: f.shard.numShards, ToolFaults: f.toolFaults,
	}
	if cmd.Flags().Changed("ecp-allow-tools") {
		req.ECPAllowTools = append([]string{}, f.ecpAllowTools...) // given empty: no tool
	}
	if f.resume != "" {
		req.AgentURL = ""
		if !cmd.Flags().Changed("concurrency") {
			req.Concurrency = 0 // keep the evaluation's own
		}
	}
	// One service for the run: a new evaluation's command line is checked
	// in full before the database is opened (a rejected command must not
	// create or lock it), then the service gets its store.
	svc := &skills.Service{Domains: su.catalog, Models: su.models, MaxResponseBytes: f.maxResponse, ECP: runECPSettings(), TracerProvider: su.tracer}
	var plan *skills.Plan
	if f.resume == "" {
		if plan, err = svc.Plan(ctx, req); err != nil {
			return requestErr(err)
		}
	}
	traces, err := newWireTraces(cmd)
	if err != nil {
		return err
	}
	defer traces.close()
	resume := f.resumeCommand(cmd)
	db, err := openWritableDB(ctx, f.dbPath, cmd.ErrOrStderr(), "see 'proctor results'; finish one with: "+resume("ID"))
	if err != nil {
		return failErr(err)
	}
	defer db.Close()

	errOut := cmd.ErrOrStderr()
	// Here the user is the operator: --max-response-bytes is the ceiling,
	// and a resume without it keeps the evaluation's own.
	prog := newProgress(errOut, f.progress)
	ecpSettings := runECPSettings()
	stderrLog, closeLog, err := agentStderrLog(f.ecpStderr, prog)
	if err != nil {
		return failErr(err)
	}
	defer closeLog()
	ecpSettings.Stderr = stderrLog
	svc.Store, svc.ECP, svc.WireTrace = db, ecpSettings, traces.opener()
	if f.resume != "" && !cmd.Flags().Changed("max-response-bytes") {
		svc.MaxResponseBytes = math.MaxInt64
	}
	// A resume is planned once its stored evaluation can be read.
	run, err := startPlanned(ctx, svc, plan, req)
	if err != nil {
		return requestErr(err)
	}
	defer run.Close()
	eval := run.Evaluation()
	if f.resume != "" {
		fmt.Fprintf(errOut, "proctor: resuming %s: %d simulations already done\n", eval.ID, run.Resumed())
	}
	onDomain := eval.Config.Domain
	if eval.Config.Split != "" {
		onDomain += " (split " + eval.Config.Split + ")"
	}
	fmt.Fprintf(errOut, "proctor: evaluation %s: %s on %s, %d tasks x %d trials (concurrency %d)\n",
		eval.ID, report.AgentLabel(eval.Agent), onDomain, len(run.Tasks()), eval.Config.NumTrials, eval.Config.Concurrency)
	if g := eval.Config.UserGuidelines; g != nil && g.Modified {
		fmt.Fprintf(errOut, "proctor: warning: the user simulator speaks from modified guidelines (%s), not tau2-bench's: scores do not compare with tau2's\n", g.Dir)
	}
	eval, err = execute(cmd, run, output{f.out, f.format, f.progress, su.catalog, prog}, "kept. Finish with: "+resume(eval.ID))
	if serr := writeShard(ctx, cmd, db, run.Evaluation(), f.shard.out); serr != nil {
		return serr
	}
	if err != nil {
		return err
	}
	if f.failUnder.set {
		if p1 := eval.Summary.PassHatK["1"]; p1 < f.failUnder.value {
			fmt.Fprintf(errOut, "proctor: pass^1 %.3f is below --fail-under %.3f\n", p1, f.failUnder.value)
			return &exitError{code: exitFailUnder, err: errors.New("below --fail-under")}
		}
	}
	return nil
}

// resumeCommand returns the command that finishes an evaluation, to print
// for pasting: the database it is in (as an absolute path, so that it works
// from any directory) and the flags whose values are not stored with it
// (tau2-bench's data, the model API's URL), shell-quoted. Credentials are
// never printed: flags that gave them are named, to be given again.
func (f *runFlags) resumeCommand(cmd *cobra.Command) func(id string) string {
	args := []string{"proctor", "run", "--resume", ""}
	if p, err := dbPath(f.dbPath); err == nil {
		args = append(args, "--db", absPath(p))
	}
	changed := cmd.Flags().Changed
	if f.tau2Data != "" {
		args = append(args, "--tau2-data", absPath(f.tau2Data))
	}
	for _, fl := range []struct {
		name, value string
	}{{"llm-base-url", f.llm.baseURL}, {"llm-prices", f.llm.priceTable}, {"api-key-header", f.apiKeyHeader}} {
		if changed(fl.name) {
			args = append(args, "--"+fl.name, fl.value)
		}
	}
	var secret []string
	for _, name := range []string{"header", "bearer-token", "api-key"} {
		if changed(name) {
			secret = append(secret, "--"+name)
		}
	}
	return func(id string) string {
		args[3] = id
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = shellQuote(a)
		}
		line := strings.Join(quoted, " ")
		if len(secret) > 0 {
			line += " (and your " + strings.Join(secret, ", ") + " again: their values are never stored)"
		}
		return line
	}
}

// resumeLine is the command that resumes evaluation ID of the database
// flag names, with nothing else.
func resumeLine(dbFlag string) string {
	line := "proctor run --resume ID"
	if p, err := dbPath(dbFlag); err == nil {
		line += " --db " + shellQuote(absPath(p))
	}
	return line
}

// absPath is path made absolute, or path itself when that fails.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// requestErr maps what skills.Service said to an exit: a bad request is a
// usage error, with the request's field names turned into the flags that
// set them; anything else means the evaluation could not run.
func requestErr(err error) error {
	var inv *skills.InvalidRequestError
	if !errors.As(err, &inv) {
		return failErr(err)
	}
	msgs := make([]string, len(inv.Violations))
	for i, v := range inv.Violations {
		msgs[i] = flagNames(v)
	}
	return usageErr("%s", strings.Join(msgs, "; "))
}

// flagNames rewrites a violation in the command line's words: a leading
// request field's name becomes its flag ("num_trials 0: ..." -> "--num-trials
// 0: ..."), and so do field names with an underscore further on
// ("user_model" -> "--user-model") and the phrases skills uses to name a
// choice (user "llm" -> --user llm).
func flagNames(v string) string {
	name, rest, _ := strings.Cut(v, " ")
	if field := strings.TrimRight(name, ":"); requestFields[field] {
		v = flagFor(field) + strings.TrimPrefix(name, field) + " " + rest
	}
	v = fieldWord.ReplaceAllStringFunc(v, func(w string) string {
		if requestFields[w] {
			return flagFor(w)
		}
		return w
	})
	return requestPhrases.Replace(v)
}

// flagFor is the flag that sets a request field.
func flagFor(field string) string {
	flag := map[string]string{"agent_url": "agent", "headers": "header", "task_ids": "task-ids"}[field]
	if flag == "" {
		flag = strings.ReplaceAll(field, "_", "-")
	}
	return "--" + flag
}

// fieldWord matches a word that may be a request field named with an
// underscore; requestPhrases are the phrases skills names choices with.
var (
	fieldWord      = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)
	requestPhrases = strings.NewReplacer(`user "llm"`, "--user llm", `domain "mock"`, "--domain mock")
)

// requestFields are the wire names of the fields of an evaluation request.
var requestFields = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[skills.EvaluationRequest]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}()

// flattenHeaders keeps the last value of each header: the request form.
func flattenHeaders(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, vs := range h {
		out[k] = strings.Join(vs, ", ")
	}
	return out
}

// openWritableDB opens the database for writing. When no other proctor has
// it open for writing, an evaluation still marked running was left by one
// that stopped: it is marked interrupted, recover (if any) runs too, and
// hint tells the user what to do about it.
func openWritableDB(ctx context.Context, path string, errOut io.Writer, hint string, recover ...func(*store.DB) error) (*store.DB, error) {
	n := 0
	db, err := openDB(path, store.WithWhenSole(func(db *store.DB) error {
		var err error
		if n, err = db.MarkInterrupted(ctx, string(result.StatusRunning), string(result.StatusInterrupted)); err != nil {
			return err
		}
		for _, r := range recover {
			if err := r(db); err != nil {
				return err
			}
		}
		return nil
	}))
	if err != nil {
		return nil, err
	}
	if p, err := dbPath(path); err == nil {
		fmt.Fprintf(errOut, "proctor: results database %s\n", absPath(p))
	}
	if n > 0 {
		fmt.Fprintf(errOut, "proctor: %d evaluation(s) left running by a proctor that stopped are now marked interrupted (%s)\n", n, hint)
	}
	return db, nil
}

func openDB(path string, opts ...store.Option) (*store.DB, error) {
	path, err := dbPath(path)
	if err != nil {
		return nil, err
	}
	return openStore(path, opts...)
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
	db, err := openStore(path, store.WithReadOnly())
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

// writeResult writes the evaluation in format to --out, or to stdout
// without it; a result written to a file is summed up on stdout.
func writeResult(stdout io.Writer, out, format string, eval *result.Evaluation, cat *catalog.Catalog) error {
	if err := writeOut(stdout, out, func(w io.Writer) error { return writeReport(w, format, eval, cat) }); err != nil || out == "" {
		return err
	}
	if err := report.WriteSummary(stdout, eval); err != nil {
		return err
	}
	_, err := fmt.Fprintf(stdout, "result       %s (%s)\n", out, format)
	return err
}

// writeOut runs write on the file --out names (created, and closed with
// its error reported), or on stdout when out is empty.
func writeOut(stdout io.Writer, out string, write func(io.Writer) error) (err error) {
	if out == "" {
		return write(stdout)
	}
	file, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	defer func() {
		if cerr := file.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("--out: %w", cerr)
		}
	}()
	return write(file)
}

// startPlanned starts a run's planned evaluation, or plans and starts a
// resume (skills.Service.Prepare).
func startPlanned(ctx context.Context, svc *skills.Service, plan *skills.Plan, req skills.EvaluationRequest) (*skills.Run, error) {
	if plan == nil {
		return svc.Prepare(ctx, req)
	}
	return svc.Start(ctx, plan)
}
