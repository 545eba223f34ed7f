package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/domains/builtin"
	"github.com/proctor-eval/proctor/tools"
)

func newDomainsCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "domains [NAME]",
		Short: "List the domains agents can be evaluated on",
		Example: `  proctor domains
  proctor domains mock --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "json" {
				return usageErr("--format %q: want table or json", format)
			}
			reg, err := builtin.Registry()
			if err != nil {
				return failErr(err)
			}
			var infos []tools.DomainInfo
			if len(args) == 1 {
				d, err := reg.Get(args[0])
				if err != nil {
					return usageErr("%v", err)
				}
				infos = append(infos, tools.Describe(d, true))
			} else {
				for _, d := range reg.All() {
					infos = append(infos, tools.Describe(d, false))
				}
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(infos)
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DOMAIN\tTASKS\tTOOLS\tDESCRIPTION")
			for _, d := range infos {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", d.Name, d.NumTasks, len(d.Tools), d.Description)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if len(args) == 1 {
				fmt.Fprintf(out, "\ntools: %s\ntasks: %s\n", strings.Join(infos[0].Tools, ", "), strings.Join(infos[0].TaskIDs, ", "))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json")
	return cmd
}
