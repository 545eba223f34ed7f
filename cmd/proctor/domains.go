package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/domains/tau2/install"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
	"github.com/proctor-eval/proctor/domains/tau2/load"
	"github.com/proctor-eval/proctor/skills"
)

func newDomainsCmd() *cobra.Command {
	var format, tau2Data string
	cmd := &cobra.Command{
		Use:   "domains [NAME]",
		Short: "List the domains agents can be evaluated on",
		Long: `List the domains agents can be evaluated on: the built-in mock domain and, when
tau2-bench's data is available, tau2's airline, retail, telecom, banking_knowledge and
mock (tau2-mock) domains with their task splits (base, the default, train and test;
telecom also has small and full). Naming banking_knowledge lists its retrieval
configurations, and those of tau2's that proctor does not offer, with what they need.

tau2-bench's data is not part of proctor. Get it with 'proctor domains install tau2',
or point --tau2-data (or ` + catalog.EnvTau2Data + `) at a copy of tau2-bench's
data/tau2/domains.`,
		Example: `  proctor domains
  proctor domains mock --format json
  proctor domains install tau2
  proctor domains airline --tau2-data ~/tau2-bench/data/tau2/domains`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "json" {
				return usageErr("--format %q: want table or json", format)
			}
			cat, err := newCatalog(tau2Data)
			if err != nil {
				return err
			}
			var infos []skills.DomainInfo
			if len(args) == 1 {
				s, err := cat.Summary(args[0])
				if err != nil {
					return domainErr(err)
				}
				infos = append(infos, skills.DescribeSummary(s, true))
			} else {
				sums, err := cat.Summaries()
				if err != nil {
					// Data that is there but does not read: say so, list the rest.
					fmt.Fprintf(cmd.ErrOrStderr(), "proctor: warning: %v\n", err)
				}
				for _, s := range sums {
					infos = append(infos, skills.DescribeSummary(s, false))
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
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", d.Name, taskCount(d), len(d.Tools), d.Description)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if len(args) == 1 {
				d := infos[0]
				fmt.Fprintf(out, "\ntools: %s\n", strings.Join(d.Tools, ", "))
				if len(d.Splits) > 0 {
					fmt.Fprintf(out, "splits: %s (default %s; choose with 'proctor run --split')\n", splitList(d.Splits), d.DefaultSplit)
					fmt.Fprintf(out, "tasks (%s): %s\n", d.DefaultSplit, strings.Join(d.TaskIDs, ", "))
				} else {
					fmt.Fprintf(out, "tasks: %s\n", strings.Join(d.TaskIDs, ", "))
				}
				printRetrievalConfigs(out, d.RetrievalConfigs)
			} else if cat.Tau2Dir() == "" {
				// On stderr: the listing itself is what it always was.
				fmt.Fprintf(cmd.ErrOrStderr(), "proctor: tau2-bench's %s domains need its data: proctor domains install tau2\n", andList(load.Names()))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json")
	addTau2Flag(cmd, &tau2Data)
	cmd.AddCommand(newDomainsInstallCmd())
	return cmd
}

// printRetrievalConfigs lists a domain's retrieval configurations and
// those of tau2's proctor does not offer, with what each would need.
func printRetrievalConfigs(out io.Writer, configs []string) {
	if len(configs) == 0 {
		return
	}
	fmt.Fprintf(out, "retrieval configs: %s (choose one with 'proctor run --retrieval-config')\n", strings.Join(configs, ", "))
	fmt.Fprintln(out, "not offered:")
	for _, c := range knowledge.NotOffered() {
		fmt.Fprintf(out, "  %s: needs %s\n", c[0], c[1])
	}
}

// domainErr maps a domain that cannot be had to an exit: one that does not
// exist, or whose data is not installed, is the request's fault.
func domainErr(err error) error {
	var (
		missing *catalog.MissingDataError
		unknown *catalog.UnknownDomainError
	)
	if errors.As(err, &missing) || errors.As(err, &unknown) {
		return usageErr("%v", err)
	}
	return failErr(err)
}

// taskCount is the TASKS column: the default count, and each split's.
func taskCount(d skills.DomainInfo) string {
	if len(d.Splits) == 0 {
		return fmt.Sprint(d.NumTasks)
	}
	return fmt.Sprintf("%d (%s)", d.NumTasks, splitList(d.Splits))
}

// andList joins names as a sentence does: "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func splitList(splits []skills.SplitInfo) string {
	parts := make([]string, len(splits))
	for i, s := range splits {
		parts[i] = fmt.Sprintf("%s %d", s.Name, s.NumTasks)
	}
	return strings.Join(parts, ", ")
}

func newDomainsInstallCmd() *cobra.Command {
	var baseURL, dir string
	cmd := &cobra.Command{
		Use:   "install tau2",
		Short: "Download tau2-bench's domain data",
		Long: `Download the data of tau2-bench's airline, retail, mock, telecom and
banking_knowledge domains and its user simulator's guidelines (MIT licence) at the
commit proctor's tau2 domains follow (` + install.Commit[:7] + `), check every
file against the SHA-256 proctor has built in, and install them where proctor finds
them (default: beside the results database, in the user data directory).

Nothing is installed unless every file is right: the files are downloaded and checked
in a staging directory, then each domain's directory is moved into place, replacing
the previous copy. A failed download says which file failed and why, and leaves the
previous installation as it was.

--base-url points at a mirror of tau2-bench's data/tau2/domains at that commit; files
are fetched from BASE/<domain>/<file>, tau2-bench's LICENSE from the repository
root and the guidelines from data/tau2/user_simulator (for a BASE ending in
data/tau2/domains; otherwise BASE/LICENSE and BASE/user_simulator/<file>).`,
		Example: `  proctor domains install tau2
  proctor domains install tau2 --dir ./tau2-data
  proctor domains install tau2 --base-url https://mirror.example.com/tau2-bench/data/tau2/domains`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "tau2" {
				return usageErr("install %q: only tau2 can be installed (proctor domains install tau2)", args[0])
			}
			if u, err := url.Parse(baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return usageErr("--base-url %q: want an http:// or https:// URL", baseURL)
			}
			target := dir
			if target == "" {
				d, err := install.DefaultDir()
				if err != nil {
					return failErr(err)
				}
				target = d
			}
			ctx := cmd.Context()
			res, err := install.Install(ctx, install.Options{BaseURL: baseURL, Dir: target, Progress: cmd.ErrOrStderr()})
			if err != nil {
				if ctx.Err() != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "proctor: install interrupted; nothing was changed")
					return &exitError{code: exitInterrupt, err: ctx.Err()}
				}
				return failErr(withOfflineHint(err))
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "installed tau2-bench's %s data (%d files, %.1f MiB, all verified) in %s\n",
				strings.Join(res.Domains, ", "), res.Files, float64(res.Bytes)/(1<<20), res.Dir)
			fmt.Fprintf(out, "proctor evaluates on %s with it ('proctor domains' lists them)\n", strings.Join(load.Names(), " and "))
			def, _ := install.DefaultDir()
			env := os.Getenv(catalog.EnvTau2Data)
			switch {
			case env != "" && !samePath(env, res.Dir):
				fmt.Fprintf(out, "note: %s=%s is set and takes precedence; unset it, or use --tau2-data %s\n", catalog.EnvTau2Data, env, res.Dir)
			case !samePath(def, res.Dir):
				fmt.Fprintf(out, "this is not proctor's default location: use it with --tau2-data %s (or %s=%s)\n", res.Dir, catalog.EnvTau2Data, res.Dir)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&baseURL, "base-url", install.DefaultBaseURL, "URL of tau2-bench's data/tau2/domains at commit "+install.Commit[:7]+" (a mirror)")
	fl.StringVar(&dir, "dir", "", "directory to install into (default: proctor's data directory, e.g. ~/.local/share/proctor/tau2)")
	return cmd
}

// withOfflineHint adds to an installation that could not download what to
// do without access to the data's server.
func withOfflineHint(err error) error {
	var ie *install.Error
	if !errors.As(err, &ie) || !ie.Unreachable() {
		return err
	}
	return fmt.Errorf("%w\nWithout access to that server: install from a mirror of tau2-bench's data/tau2/domains at commit %.7s "+
		"(proctor domains install tau2 --base-url URL), or use a copy you have where you evaluate: --tau2-data DIR, or %s=DIR",
		err, install.Commit, catalog.EnvTau2Data)
}

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ca, err1 := filepath.Abs(a)
	cb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && filepath.Clean(ca) == filepath.Clean(cb)
}
