package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// exitNonConformant is conformance's exit code when a MUST check failed:
// the check ran, the agent is below the bar (as --fail-under's 3).
const exitNonConformant = 3

func newConformanceCmd() *cobra.Command {
	var (
		transport, protocol, token, format, out, dbPath string
		message, slowMessage, multiTurn, followUp       string
		ecpConfigPath                                   string
		timeout                                         time.Duration
	)
	cmd := &cobra.Command{
		Use:   "conformance URL",
		Short: "Check an agent against the A2A specification (or an ECP agent against the ECP draft)",
		Long: `Check the A2A agent at URL (its base URL or the URL of its agent card) against the
A2A specification, 1.0 and 0.3, on every interface its card declares: the agent card,
the task lifecycle, streaming, error codes, authentication and transport equivalence.
Every check has a stable id and a level (MUST, SHOULD, MAY); the report's level is
full, partial, minimal or non-conformant (any MUST check failed), and is stored: see
'proctor results --conformance'.

An ECP agent ('ecp+stdio:COMMAND ARGS', ecp+ws://HOST:PORT/PATH) is checked against the
Evaluation Context Protocol 0.1.0 draft and JSON-RPC 2.0 instead: initialize, reset,
step result shapes, that a reset clears the agent's state, error codes for bad requests,
and that the agent survives them. --message and --follow-up-message are the two inputs
it is stepped with; --ecp-config is its initialize config.

The checks send a harmless greeting by default. --slow-message should start a task that
runs a few seconds (to check cancellation, subscriptions and disconnects) and
--multi-turn-message one that makes the agent ask for input; without them those checks
are skipped when the greeting does not lead there.

Exit codes: 0 no MUST check failed, 3 some MUST check failed, 2 bad arguments,
1 the check could not run (database in use...).`,
		Example: `  proctor conformance http://localhost:9019
  proctor conformance https://agent.example.com --protocol 1.0 --transport jsonrpc --format markdown
  PROCTOR_AGENT_TOKEN=s3cret proctor conformance https://agent.example.com --format junit --out conformance.xml
  proctor conformance 'ecp+stdio:python3 examples/ecp/taskly_agent.py'
  proctor conformance ecp+ws://127.0.0.1:9030/ --format markdown`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if !slices.Contains(conformance.Formats(), format) {
				return usageErr("--format %q: want %s", format, strings.Join(conformance.Formats(), ", "))
			}
			if out != "" {
				if fi, err := os.Stat(filepath.Dir(out)); err != nil || !fi.IsDir() {
					return usageErr("--out %s: directory %s does not exist", out, filepath.Dir(out))
				}
			}
			if token == "" && !ecp.IsTarget(args[0]) { // the environment's A2A token is no ECP agent's
				token = os.Getenv(envBearerToken)
			}
			ecpConfig, err := loadECPConfig(ecpConfigPath)
			if err != nil {
				return usageErr("%v", err)
			}
			req := skills.ConformanceRequest{
				AgentURL: args[0], Transport: transport, Protocol: protocol, AuthToken: token, Timeout: result.Duration(timeout),
				Message: message, SlowMessage: slowMessage, MultiTurnMessage: multiTurn, FollowUpMessage: followUp,
				ECPConfig: ecpConfig,
			}
			svc := &skills.Service{ECP: runECPSettings()}
			if err := svc.CheckConformanceRequest(req); err != nil {
				return conformanceUsage(err)
			}
			db, err := openWritableDB(ctx, dbPath, cmd.ErrOrStderr(), "see 'proctor results'; finish one with: "+resumeLine(dbPath))
			if err != nil {
				return failErr(err)
			}
			defer db.Close()
			svc.Store = db
			tp, stopTracing, err := startTracing(cmd)
			if err != nil {
				return err
			}
			defer stopTracing()
			svc.TracerProvider = tp
			rep, err := svc.CheckConformance(ctx, req)
			if rep == nil {
				return conformanceUsage(err)
			}
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "proctor:", err)
			}
			if err := writeConformance(cmd.OutOrStdout(), out, format, rep); err != nil {
				return failErr(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "proctor: conformance %s: %s (%d passed, %d failed, %d skipped; %d requests in %.1fs)\n",
				rep.ID, rep.Level, rep.Summary.Passed, rep.Summary.Failed, rep.Summary.Skipped, rep.Requests, rep.DurationMS/1000)
			if ctx.Err() != nil {
				return &exitError{code: exitInterrupt, err: errors.New("interrupted")}
			}
			if rep.Summary.MustFailed > 0 {
				return &exitError{code: exitNonConformant, err: errors.New("non-conformant")}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&transport, "transport", "", "check only this transport: jsonrpc, rest or grpc (default: every one the card declares)")
	fl.StringVar(&protocol, "protocol", string(conformance.ProtocolAuto), "check only this protocol version: 1.0, 0.3 or auto (every one the card declares)")
	fl.StringVar(&token, "auth-token", "", "bearer token for the agent (or set "+envBearerToken+"); the card and the auth probes go without it")
	fl.StringVar(&format, "format", conformance.FormatText, "output format: "+strings.Join(conformance.Formats(), ", "))
	fl.StringVar(&out, "out", "", "write the report to this file instead of stdout")
	fl.DurationVar(&timeout, "timeout", conformance.DefaultTimeout, "limit of the whole check (at most 10m)")
	fl.StringVar(&message, "message", "", "text sent to check the task lifecycle (default: a short greeting)")
	fl.StringVar(&slowMessage, "slow-message", "", "text that starts a task running a few seconds (cancel, subscribe, disconnect)")
	fl.StringVar(&multiTurn, "multi-turn-message", "", "text that makes the agent ask for input (input-required)")
	fl.StringVar(&followUp, "follow-up-message", "", "the answer to the agent's question")
	fl.StringVar(&ecpConfigPath, "ecp-config", "", "an ECP agent's initialize config: a JSON or YAML file (secrets as {\"$env\": \"NAME\"})")
	fl.StringVar(&dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	return cmd
}

// conformanceUsage turns a rejected request into a usage error naming
// flags.
func conformanceUsage(err error) error {
	var inv *skills.InvalidRequestError
	if !errors.As(err, &inv) {
		return failErr(err)
	}
	flags := map[string]string{"agent_url": "URL", "auth_token": "--auth-token", "slow_message": "--slow-message",
		"multi_turn_message": "--multi-turn-message", "follow_up_message": "--follow-up-message", "ecp_config": "--ecp-config"}
	msgs := make([]string, len(inv.Violations))
	for i, v := range inv.Violations {
		name, rest, _ := strings.Cut(v, " ")
		field := strings.TrimRight(name, ":")
		if f, ok := flags[field]; ok {
			v = f + strings.TrimPrefix(name, field) + " " + rest
		} else if slices.Contains([]string{"transport", "protocol", "timeout", "message"}, field) {
			v = "--" + v
		}
		msgs[i] = v
	}
	return usageErr("%s", strings.Join(msgs, "; "))
}

// writeConformance renders a report to stdout or the --out file.
func writeConformance(stdout io.Writer, out, format string, rep *conformance.Report) error {
	return writeOut(stdout, out, func(w io.Writer) error { return conformance.Write(w, format, rep) })
}

// showConformance is 'proctor results ID' for a conformance run.
func showConformance(ctx context.Context, db *store.DB, stdout io.Writer, id, out, format string) error {
	rep, err := skills.LoadConformance(ctx, db, id)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
		return usageErr("%v", err)
	}
	if err != nil {
		return failErr(err)
	}
	if !slices.Contains(conformance.Formats(), format) {
		return usageErr("--format %q: a conformance report is shown as %s", format, strings.Join(conformance.Formats(), ", "))
	}
	if err := writeConformance(stdout, out, format, rep); err != nil {
		return failErr(err)
	}
	return nil
}

// listConformance is 'proctor results --conformance'.
func listConformance(ctx context.Context, db *store.DB, w io.Writer, format, agent string, limit int) error {
	var runs []store.ConformanceRun
	if db != nil {
		var err error
		if runs, err = db.ListConformance(ctx, store.ConformanceFilter{AgentURL: agent, Limit: limit}); err != nil {
			return failErr(err)
		}
	}
	type row struct {
		ID       string                  `json:"id"`
		Created  time.Time               `json:"created_at"`
		AgentURL string                  `json:"agent_url"`
		Level    string                  `json:"level"`
		Summary  conformance.Summary     `json:"summary"`
		Requests int                     `json:"requests"`
		Ifaces   []conformance.Interface `json:"interfaces,omitempty"`
	}
	rows := []row{}
	for _, r := range runs {
		var rep conformance.Report
		_ = json.Unmarshal(r.Data, &rep) // a run that does not read still lists its header
		rows = append(rows, row{ID: r.ID, Created: r.CreatedAt, AgentURL: r.AgentURL, Level: r.Level, Summary: rep.Summary,
			Requests: rep.Requests, Ifaces: rep.Interfaces})
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No conformance runs stored yet. Start one with: proctor conformance URL")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED\tAGENT\tLEVEL\tPASSED\tFAILED\tSKIPPED\tREQUESTS")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\n", r.ID, r.Created.Local().Format("2006-01-02 15:04"), r.AgentURL, r.Level,
			r.Summary.Passed, r.Summary.Failed, r.Summary.Skipped, r.Requests)
	}
	return tw.Flush()
}

// conformanceExists reports whether id names a stored conformance run
// (exactly, or by a prefix matching one or several).
func conformanceExists(ctx context.Context, db *store.DB, id string) bool {
	_, err := db.GetConformance(ctx, id)
	return err == nil || errors.Is(err, store.ErrAmbiguous)
}
