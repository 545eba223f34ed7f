package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
)

// Exit codes of proctor evalset run beyond the common ones.
const (
	exitCaseFailed = 3 // a case failed its thresholds
	exitRegression = 4 // a regression against --baseline beyond --tolerance
)

// evalSetFormats are the output formats of proctor evalset run.
var evalSetFormats = []string{"table", "json", "markdown", "junit", "evalset-result"}

type evalSetFlags struct {
	agent, metrics          string
	numRuns, concurrency    int
	transport, protocol     string
	streaming               string
	timeout, requestTimeout time.Duration
	retries                 int
	maxResponse             int64
	format, out, outDir     string
	baseline                string
	tolerance               float64
	dbPath, progress        string
	headers                 []string
	bearerToken             string
	apiKey, apiKeyHeader    string
	ecpConfig               string
	llm                     llmFlags
}

func newEvalSetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "evalset",
		Short: "Run eval sets (tRPC-Agent-Go, Google ADK, YAML cases) against an agent",
	}
	cmd.AddCommand(newEvalSetRunCmd(), newEvalSetRescoreCmd())
	return cmd
}

func newEvalSetRunCmd() *cobra.Command {
	f := &evalSetFlags{}
	cmd := &cobra.Command{
		Use:   "run PATH...",
		Short: "Play eval-set cases against an A2A or ECP agent and score them",
		Long: `Play the cases of eval sets against an A2A agent, or an ECP agent
('ecp+stdio:COMMAND ARGS' or ecp+ws://HOST:PORT/PATH), and score them by their
metrics.

PATH is a file or a directory; formats are detected from content:
  tRPC-Agent-Go  <dir>/<app>/<id>.evalset.json with <id>.metrics.json beside it
  Google ADK     *.evalset.json or *.test.json, with test_config.json beside it
  YAML cases     cases/*.yaml, one case per file
--metrics FILE replaces the metrics found beside the sets.

Every case gets its own conversation; its invocations are sent in order; the
agent's tool calls are read from the wire. An ECP agent is reset before every
case and stepped; proctor answers its tool calls with the results the case
expects (tools[].result, YAML tool_calls[].result), and checks the case's
inspect assertions with agent/inspect after its last invocation. Exit status: 0 every case passed,
3 a case failed its thresholds, 4 a regression against --baseline beyond
--tolerance, 2 bad input, 1 could not run.`,
		Example: `  proctor evalset run --agent http://127.0.0.1:9999 examples/a2a/evals --llm-cassette examples/a2a/judge.cassette.json --llm-mode replay
  proctor evalset run --agent http://localhost:8080 cases/ --num-runs 3 --format junit --out report.xml
  proctor evalset run --agent http://localhost:8080 evals/ --format evalset-result --out-dir output
  proctor evalset run --agent http://localhost:8080 evals/ --baseline 0197a2c4 --tolerance 0.05
  proctor evalset run --agent 'ecp+stdio:python3 agent.py' cases/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runEvalSets(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.agent, "agent", "", `agent base URL or agent card URL, or an ECP agent: 'ecp+stdio:COMMAND ARGS' or ecp+ws://HOST:PORT/PATH (required)`)
	fl.StringVar(&f.ecpConfig, "ecp-config", "", `JSON or YAML file passed to an ECP agent's agent/initialize as its config; write secrets as {"$env": "NAME"}`)
	fl.StringVar(&f.metrics, "metrics", "", "metrics file (tRPC metrics JSON, ADK test_config.json or YAML) replacing the sets' own")
	fl.IntVar(&f.numRuns, "num-runs", skills.DefaultNumRuns, "runs of every case (pass@k and pass^k are reported for every k up to this)")
	fl.IntVar(&f.concurrency, "concurrency", skills.DefaultConcurrency, "cases played at the same time")
	fl.StringVar(&f.transport, "transport", "", "transport to use: jsonrpc, rest or grpc (default: the agent card's preference)")
	fl.StringVar(&f.protocol, "protocol", "", "A2A protocol version to use: 1.0 or 0.3 (default: the agent card's preference)")
	fl.StringVar(&f.streaming, "streaming", string(a2aclient.StreamingAuto), "stream replies: auto, on, off")
	fl.DurationVar(&f.timeout, "timeout", skills.DefaultCaseTimeout, "wall-clock limit of one case run")
	fl.DurationVar(&f.requestTimeout, "request-timeout", a2aclient.DefaultRequestTimeout, "limit of one request to the agent")
	fl.IntVar(&f.retries, "retries", a2aclient.DefaultRetries, "retries of a request that failed transiently")
	fl.Int64Var(&f.maxResponse, "max-response-bytes", a2aclient.DefaultMaxResponseBytes, "largest reply accepted from the agent")
	fl.StringVar(&f.format, "format", "table", "output format: "+strings.Join(evalSetFormats, ", "))
	fl.StringVar(&f.out, "out", "", "write the report to this file instead of stdout")
	fl.StringVar(&f.outDir, "out-dir", "", "write report.json and report.md there (with --format evalset-result: <app>/<app>_<set>_<uuid>.evalset_result.json)")
	fl.StringVar(&f.baseline, "baseline", "", "stored run id, or JSON file of a run, to compare with: exit 4 on a regression beyond --tolerance")
	fl.Float64Var(&f.tolerance, "tolerance", 0, "score drop allowed against --baseline before it counts as a regression")
	fl.StringVar(&f.dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&f.progress, "progress", "auto", "progress display on stderr: auto, bar, lines, none")
	fl.StringArrayVar(&f.headers, "header", nil, "extra request header K=V for the agent (repeatable); values are never stored")
	fl.StringVar(&f.bearerToken, "bearer-token", "", "send 'Authorization: Bearer T' to the agent (or set "+envBearerToken+")")
	fl.StringVar(&f.apiKey, "api-key", "", "send an API key to the agent in --api-key-header (or set "+envAPIKey+")")
	fl.StringVar(&f.apiKeyHeader, "api-key-header", "X-API-Key", "header that carries --api-key")
	addLLMFlags(cmd, &f.llm, true)
	return cmd
}

// validate checks what only the command line has.
func (f *evalSetFlags) validate(cmd *cobra.Command) error {
	errs := f.llm.validate(cmd)
	if f.agent == "" {
		errs = append(errs, "--agent is required: the agent's base URL or card URL")
	}
	if !slices.Contains(evalSetFormats, f.format) {
		errs = append(errs, fmt.Sprintf("--format %q: want one of %s", f.format, strings.Join(evalSetFormats, ", ")))
	}
	if f.format == "evalset-result" && f.outDir == "" {
		errs = append(errs, "--format evalset-result writes files: give --out-dir DIR")
	}
	if f.numRuns < 1 || f.numRuns > skills.MaxEvalSetRuns || f.concurrency < 1 {
		errs = append(errs, fmt.Sprintf("--num-runs 1..%d and --concurrency at least 1", skills.MaxEvalSetRuns))
	}
	if f.timeout <= 0 || f.requestTimeout <= 0 {
		errs = append(errs, "--timeout and --request-timeout must be positive")
	}
	if f.tolerance < 0 || f.tolerance > 1 {
		errs = append(errs, fmt.Sprintf("--tolerance %v: want a value in 0..1", f.tolerance))
	}
	if cmd.Flags().Changed("tolerance") && f.baseline == "" {
		errs = append(errs, "--tolerance needs --baseline")
	}
	if err := checkOut(f.out); err != "" {
		errs = append(errs, err)
	}
	if !slices.Contains([]string{"auto", "bar", "lines", "none"}, f.progress) {
		errs = append(errs, fmt.Sprintf("--progress %q: want auto, bar, lines or none", f.progress))
	}
	if len(errs) > 0 {
		return usageErr("%s", strings.Join(errs, "; "))
	}
	return nil
}

// loadSets reads the sets and the metrics that replace theirs; a bad file
// is a usage error that lists every violation. What directory walks
// passed over is said on log.
func loadSets(log io.Writer, paths []string, metricsFile string) ([]*evalset.Set, error) {
	sets, skipped, err := evalset.LoadReporting(paths...)
	noteSkipped(log, skipped)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if metricsFile != "" {
		metrics, err := evalset.LoadMetrics(metricsFile)
		if err != nil {
			return nil, usageErr("--metrics: %v", err)
		}
		for _, s := range sets {
			s.Metrics = metrics
		}
		if err := evalset.Validate(sets, metrics); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	return sets, nil
}

// maxSkippedShown bounds the skipped paths named one by one.
const maxSkippedShown = 10

// noteSkipped says which directories and files a walk passed over, and
// why: the first few by name, then how many more.
func noteSkipped(log io.Writer, skipped []evalset.Skipped) {
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(log, "proctor: skipped %s while looking for eval sets (name a file to read it anyway):\n", report.Plural(len(skipped), "path"))
	for i, s := range skipped {
		if i == maxSkippedShown {
			fmt.Fprintf(log, "  ... and %d more\n", len(skipped)-i)
			break
		}
		fmt.Fprintf(log, "  %s: %s\n", s.Path, s.Why)
	}
}

func runEvalSets(cmd *cobra.Command, f *evalSetFlags, paths []string) error {
	ctx := cmd.Context()
	if err := f.validate(cmd); err != nil {
		return err
	}
	sets, err := loadSets(cmd.ErrOrStderr(), paths, f.metrics)
	if err != nil {
		return err
	}
	rf := runFlags{headers: f.headers, bearerToken: f.bearerToken, apiKey: f.apiKey, apiKeyHeader: f.apiKeyHeader}
	headers, err := rf.requestHeaders()
	if err != nil {
		return usageErr("%v", err)
	}
	ecpConfig, err := loadECPConfig(f.ecpConfig)
	if err != nil {
		return usageErr("%v", err)
	}
	su, err := start(cmd, &f.llm, needs{tracing: true})
	if err != nil {
		return err
	}
	defer su.close()
	base, err := f.readBaseline(cmd)
	if err != nil {
		return err
	}
	traces, err := newWireTraces(cmd)
	if err != nil {
		return err
	}
	defer traces.close()
	// The request and its sets are checked in full before the database is
	// opened (a rejected command must not create or lock it), then the
	// service gets its store and starts the plan.
	svc := &skills.Service{Models: su.models, MaxResponseBytes: f.maxResponse, ECP: runECPSettings(), WireTrace: traces.opener(), TracerProvider: su.tracer}
	plan, err := svc.PlanEvalSets(ctx, f.request(headers, paths, ecpConfig), sets)
	if err != nil {
		return requestErr(err)
	}
	db, err := openWritableDB(ctx, f.dbPath, cmd.ErrOrStderr(), "see 'proctor results'")
	if err != nil {
		return failErr(err)
	}
	defer db.Close()
	svc.Store = db
	job, err := svc.StartEvalSets(ctx, plan)
	if err != nil {
		return requestErr(err)
	}
	defer job.Close()
	run := job.Run()
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: eval-set run %s: %s, %d set(s), %d case(s) x %d run(s) (concurrency %d)\n",
		run.ID, report.AgentLabel(run.Agent), len(sets), countCases(sets), run.Config.NumRuns, run.Config.Concurrency)
	prog := newProgress(cmd.ErrOrStderr(), f.progress)
	runErr := job.Execute(ctx, prog.update)
	prog.finish()
	if runErr != nil {
		return failErr(runErr)
	}
	if err := f.writeOutputs(cmd.OutOrStdout(), cmd.ErrOrStderr(), run); err != nil {
		return failErr(err)
	}
	if run.Status == result.StatusInterrupted {
		fmt.Fprintf(cmd.ErrOrStderr(), "proctor: interrupted; %d case runs kept in %s\n", len(run.Cases), run.ID)
		return &exitError{code: exitInterrupt, err: errors.New("interrupted")}
	}
	return gate(cmd.ErrOrStderr(), run, base, f.tolerance)
}

// request is the eval-set request the flags make, with the request
// headers, the set paths and the ECP agent's config.
func (f *evalSetFlags) request(headers http.Header, paths []string, ecpConfig map[string]any) skills.EvalSetRequest {
	retries := f.retries
	return skills.EvalSetRequest{
		AgentURL: f.agent, NumRuns: f.numRuns, Concurrency: f.concurrency,
		Transport: f.transport, Protocol: f.protocol, Streaming: f.streaming,
		JudgeModel: f.llm.judgeModel, UserModel: f.llm.userModel,
		Timeout: result.Duration(f.timeout), RequestTimeout: result.Duration(f.requestTimeout), Retries: &retries,
		MaxResponseBytes: f.maxResponse, Headers: flattenHeaders(headers), Paths: paths, MetricsFile: f.metrics,
		ECPConfig: ecpConfig,
	}
}

func countCases(sets []*evalset.Set) int {
	n := 0
	for _, s := range sets {
		n += len(s.Cases)
	}
	return n
}

// readBaseline reads --baseline: a stored run's id (or prefix), else a file.
func (f *evalSetFlags) readBaseline(cmd *cobra.Command) (*result.EvalSetRun, error) {
	if f.baseline == "" {
		return nil, nil
	}
	if _, err := os.Stat(f.baseline); err == nil {
		run, err := report.ReadEvalSetBaseline(f.baseline)
		if err != nil {
			return nil, usageErr("--baseline %s: %v", f.baseline, err)
		}
		return run, nil
	}
	db, _, err := openDBForReading(f.dbPath)
	if err != nil {
		return nil, failErr(err)
	}
	if db == nil {
		return nil, usageErr("--baseline %s: neither a file nor a stored run (the database is empty)", f.baseline)
	}
	defer db.Close()
	run, err := skills.NewResults(db).EvalSetRun(cmd.Context(), f.baseline)
	if err != nil {
		return nil, usageErr("--baseline %s: neither a file nor a stored run: %v", f.baseline, err)
	}
	return run, nil
}

// writeOutputs writes the report in --format to --out or stdout, and the
// files of --out-dir.
func (f *evalSetFlags) writeOutputs(stdout, stderr io.Writer, run *result.EvalSetRun) error {
	if f.outDir != "" {
		if err := os.MkdirAll(f.outDir, 0o755); err != nil {
			return fmt.Errorf("--out-dir: %w", err)
		}
		if f.format == "evalset-result" {
			files, err := report.WriteEvalSetResults(f.outDir, run)
			if err != nil {
				return fmt.Errorf("--out-dir: %w", err)
			}
			for _, p := range files {
				fmt.Fprintf(stderr, "proctor: wrote %s\n", p)
			}
			return nil
		}
		if err := report.WriteEvalSetReport(f.outDir, run); err != nil {
			return fmt.Errorf("--out-dir: %w", err)
		}
		fmt.Fprintf(stderr, "proctor: wrote %s and %s\n", filepath.Join(f.outDir, "report.json"), filepath.Join(f.outDir, "report.md"))
	}
	if f.format == "evalset-result" {
		return nil
	}
	return writeOut(stdout, f.out, func(w io.Writer) error { return report.WriteEvalSetRun(w, report.Format(f.format), run) })
}

// gate turns the run's verdicts into the exit status: a regression against
// the baseline first (4), then a failed case (3).
func gate(stderr io.Writer, run, base *result.EvalSetRun, tolerance float64) error {
	if base != nil {
		cmp := report.CompareEvalSets(base, run, tolerance)
		if cmp.HasRegressions() {
			_ = report.WriteComparison(stderr, report.Table, cmp)
			return &exitError{code: exitRegression, err: fmt.Errorf("%d regressions against %s", len(cmp.Regressions), base.ID)}
		}
	}
	if run.Summary.Failed > 0 || run.Summary.Errors > 0 {
		fmt.Fprintf(stderr, "proctor: %d of %d cases failed, %d could not be played\n", run.Summary.Failed, run.Summary.NumCases, run.Summary.Errors)
		return &exitError{code: exitCaseFailed, err: errors.New("cases failed")}
	}
	return nil
}

type evalSetRescoreFlags struct {
	metrics, format, out, outDir string
	dbPath, progress             string
	llm                          llmFlags
}

func newEvalSetRescoreCmd() *cobra.Command {
	f := &evalSetRescoreFlags{}
	cmd := &cobra.Command{
		Use:   "rescore ID",
		Short: "Score a stored eval-set run again, with other metrics or another judge",
		Long: `Score the case runs a stored eval-set run recorded again, into a new run that
names its source. Nothing is played: the agent is not contacted. --metrics
replaces every set's metrics; LLM-judged metrics call their judge again.`,
		Example: `  proctor evalset rescore 0197a2c4 --metrics stricter.metrics.json
  proctor evalset rescore 0197a2c4 --judge-model openai:gpt-4.1 --format markdown`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return rescoreEvalSets(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.metrics, "metrics", "", "metrics file replacing the sets' metrics (tRPC metrics JSON, ADK test_config.json or YAML)")
	fl.StringVar(&f.format, "format", "table", "output format: "+strings.Join(evalSetFormats, ", "))
	fl.StringVar(&f.out, "out", "", "write the report to this file instead of stdout")
	fl.StringVar(&f.outDir, "out-dir", "", "write report.json and report.md there (with --format evalset-result: tRPC-Agent-Go's files)")
	fl.StringVar(&f.dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&f.progress, "progress", "auto", "progress display on stderr: auto, bar, lines, none")
	addLLMFlags(cmd, &f.llm, true)
	return cmd
}

func rescoreEvalSets(cmd *cobra.Command, f *evalSetRescoreFlags, id string) error {
	ctx := cmd.Context()
	out := &evalSetFlags{format: f.format, out: f.out, outDir: f.outDir, progress: f.progress, agent: "-", numRuns: 1,
		concurrency: 1, timeout: time.Second, requestTimeout: time.Second, llm: f.llm}
	if err := out.validate(cmd); err != nil {
		return err
	}
	var metrics []*evalset.Metric
	if f.metrics != "" {
		var err error
		if metrics, err = evalset.LoadMetrics(f.metrics); err != nil {
			return usageErr("--metrics: %v", err)
		}
	}
	su, err := start(cmd, &f.llm, needs{})
	if err != nil {
		return err
	}
	defer su.close()
	db, err := openWritableDB(ctx, f.dbPath, cmd.ErrOrStderr(), "see 'proctor results'")
	if err != nil {
		return failErr(err)
	}
	defer db.Close()
	svc := &skills.Service{Store: db, Models: su.models}
	prog := newProgress(cmd.ErrOrStderr(), f.progress)
	run, err := svc.RescoreEvalSets(ctx, id, metrics, f.llm.judgeModel, prog.update)
	prog.finish()
	if err != nil {
		return requestErr(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: eval-set run %s rescored %s\n", run.ID, run.RescoredFrom)
	if err := out.writeOutputs(cmd.OutOrStdout(), cmd.ErrOrStderr(), run); err != nil {
		return failErr(err)
	}
	return gate(cmd.ErrOrStderr(), run, nil, 0)
}
