package main

// The eval subcommand: tRPC-Agent-Go's own evaluator (module
// trpc.group/trpc-go/trpc-agent-go/evaluation v1.10.0) run in-process on
// the calculator agent of --mode calc, the reference proctor's eval-set
// scores are compared with.
//
//	trpcpeer eval --data DIR --app APP --set ID[,ID...] --out DIR [--runs N]
//
// It reads DIR/APP/<ID>.evalset.json and DIR/APP/<ID>.metrics.json with the
// framework's local managers, runs each set N times (serially, cases one
// after another) and lets the framework's local result manager write
// OUT/APP/APP_<ID>_<uuid>.evalset_result.json. For each set, one line goes
// to stdout:
//
//	RESULT <set id> <overall status> <path of the result file>

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"trpc.group/trpc-go/trpc-agent-go/evaluation"
	"trpc.group/trpc-go/trpc-agent-go/evaluation/evalresult"
	evalresultlocal "trpc.group/trpc-go/trpc-agent-go/evaluation/evalresult/local"
	"trpc.group/trpc-go/trpc-agent-go/evaluation/evalset"
	evalsetlocal "trpc.group/trpc-go/trpc-agent-go/evaluation/evalset/local"
	"trpc.group/trpc-go/trpc-agent-go/evaluation/metric"
	metriclocal "trpc.group/trpc-go/trpc-agent-go/evaluation/metric/local"
	"trpc.group/trpc-go/trpc-agent-go/runner"
)

// evalTimeout bounds a whole eval run: the agent is scripted and in-process.
const evalTimeout = 2 * time.Minute

// evalArgs are the eval subcommand's flags.
type evalArgs struct {
	data, app, out string
	sets           []string
	runs           int
}

func parseEvalArgs(args []string) (evalArgs, error) {
	fs := flag.NewFlagSet("trpcpeer eval", flag.ContinueOnError)
	data := fs.String("data", "", "directory holding APP/<set>.evalset.json and APP/<set>.metrics.json")
	app := fs.String("app", "", "app name: the folder under --data")
	sets := fs.String("set", "", "eval set id, or several separated by commas")
	out := fs.String("out", "", "directory the evalset_result.json files are written under (OUT/APP/...)")
	runs := fs.Int("runs", 1, "number of runs of each set")
	if err := fs.Parse(args); err != nil {
		return evalArgs{}, err
	}
	a := evalArgs{data: *data, app: *app, out: *out, runs: *runs}
	for _, id := range strings.Split(*sets, ",") {
		if id = strings.TrimSpace(id); id != "" {
			a.sets = append(a.sets, id)
		}
	}
	switch {
	case a.data == "" || a.app == "" || a.out == "" || len(a.sets) == 0:
		return evalArgs{}, errors.New("eval needs --data, --app, --set and --out")
	case a.runs < 1 || a.runs > 100:
		return evalArgs{}, fmt.Errorf("--runs %d: want 1 to 100", a.runs)
	}
	return a, nil
}

// runEval is the eval subcommand.
func runEval(args []string) error {
	a, err := parseEvalArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "trpcpeer eval: %v\n", err)
		os.Exit(2)
	}
	logToStderr()
	ctx, cancel := context.WithTimeout(context.Background(), evalTimeout)
	defer cancel()
	results := evalresultlocal.New(evalresult.WithBaseDir(a.out))
	r := runner.NewRunner(a.app, newCalcAgent())
	defer r.Close()
	ev, err := evaluation.New(a.app, r,
		evaluation.WithEvalSetManager(evalsetlocal.New(evalset.WithBaseDir(a.data))),
		evaluation.WithMetricManager(metriclocal.New(metric.WithBaseDir(a.data))),
		evaluation.WithEvalResultManager(results),
		evaluation.WithNumRuns(a.runs),
	)
	if err != nil {
		return fmt.Errorf("build the evaluator: %w", err)
	}
	defer ev.Close()
	for _, id := range a.sets {
		res, err := ev.Evaluate(ctx, id)
		if err != nil {
			return fmt.Errorf("evaluate set %s: %w", id, err)
		}
		path := evalresult.NewOptions().Locator.Build(a.out, a.app, res.EvalResult.EvalSetResultID)
		fmt.Printf("RESULT %s %s %s\n", id, res.OverallStatus, path)
	}
	return nil
}
