package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/server/ui"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

func newLeaderboardCmd() *cobra.Command {
	var dbPath, format, domain, split string
	var latest, derived bool
	cmd := &cobra.Command{
		Use:   "leaderboard --domain D",
		Short: "Rank the agents evaluated on a domain by pass^1",
		Long: `Rank every agent evaluated on a domain (told apart by URL, or "builtin") by pass^1:
each agent's best completed evaluation (highest pass^1, then most tasks, then newest),
or its latest with --latest. Each row shows pass^1 with its 95% interval, pass^k for
the largest k all rows have, the agent's tokens, what proctor's own models cost, and
request latency. Agents whose pass^1 lies inside each other's interval share a rank
(shown as =N): their difference is within the noise. The do-nothing baseline (what an
agent that does nothing scores on the same tasks) is shown as a reference row.

Only evaluations of one split are ranked together: --split, or by default the domain's
default split ("base"; the mock domain has no splits).`,
		Example: `  proctor leaderboard --domain mock
  proctor leaderboard --domain airline --split test --latest --format markdown
  proctor leaderboard --domain mock --format html > leaderboard.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if domain == "" {
				return usageErr("--domain is required: %s", rankedDomains(cmd.Context(), dbPath))
			}
			if !slices.Contains([]string{"table", "markdown", "json", formatHTML}, format) {
				return usageErr("--format %q: want table, markdown, json or html", format)
			}
			db, _, err := openDBForReading(dbPath)
			if err != nil {
				return failErr(err)
			}
			var evals []*result.Evaluation
			if db != nil {
				defer db.Close()
				if evals, err = skills.NewResults(db).Completed(cmd.Context(), domain, split); err != nil {
					return failErr(err)
				}
			}
			lb := report.NewLeaderboard(evals, report.LeaderboardOptions{Domain: domain, Split: split, Latest: latest, Derived: derived})
			write := func() error { return report.WriteLeaderboard(cmd.OutOrStdout(), report.Format(format), lb) }
			if format == formatHTML {
				write = func() error { return ui.WriteLeaderboard(cmd.OutOrStdout(), lb) }
			}
			if err := write(); err != nil {
				return failErr(err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&format, "format", "table", "output format: table, markdown, json or html (one self-contained page)")
	fl.StringVar(&domain, "domain", "", "domain whose evaluations to rank (required)")
	fl.StringVar(&split, "split", "", `task split: base, train, test... (default: the domain's default split, "base")`)
	fl.BoolVar(&latest, "latest", false, "rank each agent's latest evaluation instead of its best")
	fl.BoolVar(&derived, "derived", false, "rank shards and rescores too (by default only runs and merged evaluations count)")
	return cmd
}

// rankedDomains says which domains have completed evaluations to rank in
// the database (among its newest thousand), for a leaderboard asked for
// without --domain.
func rankedDomains(ctx context.Context, dbPath string) string {
	db, path, err := openDBForReading(dbPath)
	if err != nil || db == nil {
		return "see 'proctor domains'"
	}
	defer db.Close()
	evals, err := db.ListEvaluations(ctx, store.ListFilter{Status: string(result.StatusCompleted), Kind: store.KindSimulations, Limit: 1000})
	if err != nil {
		return "see 'proctor domains'"
	}
	count := map[string]int{}
	for _, e := range evals {
		count[e.Domain]++
	}
	if len(count) == 0 {
		return fmt.Sprintf("%s holds no completed evaluation yet (see 'proctor domains' for what to evaluate)", path)
	}
	var names []string
	for _, d := range slices.Sorted(maps.Keys(count)) {
		names = append(names, fmt.Sprintf("%s (%s)", d, report.Plural(count[d], "evaluation")))
	}
	return "the domains with completed evaluations in " + path + " are " + strings.Join(names, ", ")
}
