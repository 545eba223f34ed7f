package main

import (
	"fmt"
	"net"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/refagent"
)

func newAgentCmd() *cobra.Command {
	var domain, host, tau2Data string
	var port int
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Serve the rule-based reference agent over A2A",
		Long: `Serve proctor's reference agent: a real A2A server (protocol 1.0, JSON-RPC) that
solves a domain's tasks with plain rules and no LLM. Use it to try proctor, or as
a known-good baseline when debugging an evaluation setup.`,
		Example: `  proctor agent --domain mock --port 9019
  proctor run --domain mock --agent http://127.0.0.1:9019`,
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
			if _, err := refagent.New(d); err != nil {
				return usageErr("--domain %s: %v", domain, err)
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
	return cmd
}
