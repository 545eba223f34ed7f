package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/refagent"
)

func newRefagentCmd() *cobra.Command {
	var domain, host, tau2Data, modelSpec, ecpListen string
	var serveECP bool
	var port int
	var lf llmFlags
	cmd := &cobra.Command{
		Use:     "refagent",
		Aliases: []string{"agent"},
		Short:   "Serve the reference agent, or an LLM baseline agent, over A2A",
		Long: `Serve proctor's reference agent: a real A2A server (protocol 1.0, JSON-RPC) that
solves a domain's tasks with plain rules and no LLM. Use it to try proctor, or as
a known-good baseline when debugging an evaluation setup.

With --model it serves the baseline participant instead: an ADK LLM agent that
follows the agentbeats profile (policy and tools in the first message, one JSON
tool call or respond per reply), a ready-made agent to compare real agents against.`,
		Example: `  proctor refagent --domain mock --port 9019
  proctor run --domain mock --agent http://127.0.0.1:9019
  OPENAI_API_KEY=... proctor refagent --domain airline --model openai:gpt-4.1 --port 9020
  proctor run --domain mock --agent 'ecp+stdio:proctor agent --ecp'
  proctor agent --ecp-listen 127.0.0.1:9030   # then --agent ecp+ws://127.0.0.1:9030/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if port < 0 || port > 65535 {
				return usageErr("--port %d: want 0..65535", port)
			}
			reg, err := newCatalog(tau2Data)
			if err != nil {
				return err
			}
			d, err := reg.Get(domain)
			if err != nil {
				if e := domainErr(err); !isUsage(e) {
					return e
				}
				return usageErr("--domain: %v", err)
			}
			if modelSpec != "" {
				return serveBaseline(cmd, d.Name, host, port, modelSpec, lf)
			}
			if serveECP || ecpListen != "" {
				return serveRefagentECP(cmd, d, ecpListen)
			}
			if _, err := refagent.New(d); err != nil {
				return usageErr("--domain %s: %v (the rule-based agent knows only mock; --model serves an LLM agent on any domain)", domain, err)
			}
			ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
			if err != nil {
				return failErr(fmt.Errorf("listen: %w", err))
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "proctor: reference agent for %s at http://%s (card: /.well-known/agent-card.json); Ctrl-C stops it\n", d.Name, ln.Addr())
			if err := refagent.Serve(cmd.Context(), ln, d); err != nil {
				return failErr(err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&domain, "domain", "mock", "domain whose tasks the agent solves")
	fl.StringVar(&host, "host", "127.0.0.1", "address to listen on")
	fl.IntVar(&port, "port", 9019, "port to listen on (0: any free port)")
	addTau2Flag(cmd, &tau2Data)
	fl.StringVar(&modelSpec, "model", "", "serve the LLM baseline agent with this model (e.g. openai:gpt-4.1) instead of the rule-based one")
	fl.BoolVar(&serveECP, "ecp", false, "serve the rule-based agent over ECP on stdin/stdout instead of A2A (for proctor run --agent 'ecp+stdio:proctor agent --ecp')")
	fl.StringVar(&ecpListen, "ecp-listen", "", "serve the rule-based agent over ECP on a WebSocket at this address (host:port), one agent per connection")
	addLLMFlags(cmd, &lf, false)
	return cmd
}

// serveBaseline serves the LLM baseline participant until the command's
// context ends.
func serveBaseline(cmd *cobra.Command, domain, host string, port int, spec string, lf llmFlags) error {
	if errs := lf.validate(cmd); len(errs) > 0 {
		return usageErr("%s", strings.Join(errs, "; "))
	}
	models, err := lf.source()
	if err != nil {
		return err
	}
	m, err := models.Model(cmd.Context(), spec, llm.RoleAgent)
	if err != nil {
		return usageErr("--model: %v", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return failErr(fmt.Errorf("listen: %w", err))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: baseline agent (%s) for %s at http://%s (card: /.well-known/agent-card.json); Ctrl-C stops it\n", spec, domain, ln.Addr())
	if err := refagent.ServeBaseline(cmd.Context(), ln, refagent.BaselineConfig{Model: m, Domain: domain}); err != nil {
		return failErr(err)
	}
	return nil
}
