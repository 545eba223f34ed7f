// Command proctor evaluates A2A agents: it drives them through tau-bench
// style conversations with a simulated user, runs their tool calls against a
// simulated domain, scores every conversation and stores the results.
//
// Run `proctor --help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK        = 0
	exitFailure   = 1 // the evaluation could not run at all
	exitUsage     = 2 // bad flags or arguments
	exitFailUnder = 3 // pass^1 below --fail-under
	// 4 is a regression against a baseline (evalset run --baseline).
	exitNoOutcome = 5 // the evaluation ran, but every simulation failed before an outcome
	exitInterrupt = 130
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

func failErr(err error) error { return &exitError{code: exitFailure, err: err} }

// isUsage reports whether err is a usage error.
func isUsage(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == exitUsage
}

func main() {
	// A reader that closes stdout early (proctor run | head -1) makes a
	// write fail with EPIPE instead of killing proctor with SIGPIPE before
	// it has finished and stored its work.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program, callable from tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		// --fail-under, interruptions and failed evaluations have said
		// why already.
		if ee.err != nil && ee.code != exitFailUnder && ee.code != exitInterrupt && ee.code != exitNoOutcome {
			fmt.Fprintln(stderr, "proctor:", ee.err)
		}
		return ee.code
	}
	// Errors cobra produces itself are about flags and arguments.
	fmt.Fprintln(stderr, "proctor:", err)
	fmt.Fprintln(stderr, "Run 'proctor --help' for usage.")
	return exitUsage
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "proctor",
		Short: "Evaluate A2A agents with tau-bench style simulated conversations",
		Long: `proctor evaluates agents that speak the A2A protocol. It plays a simulated user,
runs the agent's tool calls against a simulated domain, scores every conversation
(database state, expected actions, information communicated) and records latency,
token and status metrics in a local database.

Quick start (no API keys, nothing to start by hand):

  proctor run --domain mock --agent builtin`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.Version = version()
	root.SetVersionTemplate("proctor {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newRunCmd(), newRescoreCmd(), newResultsCmd(), newDomainsCmd(), newRefagentCmd(), newServeCmd(), newHealthcheckCmd())
	root.AddCommand(newConformanceCmd(), newEvalSetCmd(), newViewCmd())
	root.AddCommand(newShowCmd(), newCompareCmd(), newLeaderboardCmd(), newAuditCmd())
	root.AddCommand(newMergeCmd(), newImportCmd(), newUserAuditCmd(), newDocsCmd())
	addTraceWireFlags(root)
	addConfigFlags(root)
	return root
}
