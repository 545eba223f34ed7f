package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/proctor-eval/proctor/result"
)

// Leaderboard ranks agents on one domain and split by pass^1: one
// evaluation per agent, the best or the latest. It is the model of proctor
// leaderboard (and of the viewer's leaderboard page).
type Leaderboard struct {
	Domain string `json:"domain"`
	Split  string `json:"split,omitempty"`
	// Latest is true when each agent's newest evaluation is shown, false
	// for its best (highest pass^1, then most tasks, then newest).
	Latest bool `json:"latest"`
	// K is the k of every entry's PassHatK: the most trials all entries
	// have (1 when some ran one).
	K       int                `json:"k"`
	Entries []LeaderboardEntry `json:"entries"`
	// Baseline is the do-nothing agent's pass^1 on the first entry's tasks:
	// the score to read every other beside. Nil when unknown.
	Baseline *result.Baseline `json:"do_nothing_baseline,omitempty"`
	Notes    []string         `json:"notes"`
}

// LeaderboardEntry is an agent's place on a leaderboard.
type LeaderboardEntry struct {
	// Rank is shared by entries tied with the first of their group: each
	// one's pass^1 inside the other's 95% interval. Tied marks them.
	Rank int  `json:"rank"`
	Tied bool `json:"tied,omitempty"`
	// Agent identifies the agent as stored (its URL, or "builtin"),
	// AgentLabel names it for people.
	Agent        string          `json:"agent"`
	AgentLabel   string          `json:"agent_label"`
	EvaluationID string          `json:"evaluation_id"`
	CreatedAt    time.Time       `json:"created_at"`
	Evaluations  int             `json:"evaluations"`
	NumTasks     int             `json:"num_tasks"`
	NumTrials    int             `json:"num_trials"`
	PassHat1     float64         `json:"pass_hat_1"`
	PassHat1CI95 result.Interval `json:"pass_hat_1_ci95"`
	PassHatK     float64         `json:"pass_hat_k"`
	AvgReward    float64         `json:"avg_reward"`
	// InputTokens and OutputTokens are the agent's, over the evaluation;
	// LLMCostUSD is what proctor's own models (user simulator, judge) cost.
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	LLMCostUSD   float64 `json:"llm_cost_usd"`
	// LatencyP50MS and LatencyP95MS are the agent's request latencies.
	LatencyP50MS float64 `json:"latency_p50_ms"`
	LatencyP95MS float64 `json:"latency_p95_ms"`
}

// LeaderboardOptions say which evaluations a leaderboard shows.
type LeaderboardOptions struct {
	Domain, Split string
	Latest        bool
	// Derived ranks shards and rescores too; without it only runs and
	// merges count (see result.Evaluation.Derived).
	Derived bool
}

// AgentKey is how a leaderboard tells agents apart: "builtin" for the
// reference agent, else its URL, else its card's name.
func AgentKey(a result.AgentInfo) string {
	if addr := a.Address(); addr != "" {
		return addr
	}
	return a.Name
}

// NewLeaderboard ranks the agents of evals, which must be completed
// evaluations of opts.Domain and opts.Split (with their summaries; their
// simulations are not read).
func NewLeaderboard(evals []*result.Evaluation, opts LeaderboardOptions) Leaderboard {
	lb := Leaderboard{Domain: opts.Domain, Split: opts.Split, Latest: opts.Latest, K: 1, Entries: []LeaderboardEntry{}, Notes: []string{}}
	chosen := map[string]*result.Evaluation{}
	count := map[string]int{}
	for _, e := range evals {
		if e.Derived() && !opts.Derived {
			continue
		}
		key := AgentKey(e.Agent)
		count[key]++
		if cur, ok := chosen[key]; !ok || better(e, cur, opts.Latest) {
			chosen[key] = e
		}
	}
	minTrials := 0
	for key, e := range chosen {
		lb.Entries = append(lb.Entries, entryOf(key, e, count[key]))
		if minTrials == 0 || e.Summary.NumTrials < minTrials {
			minTrials = e.Summary.NumTrials
		}
	}
	lb.K = max(1, minTrials)
	for i := range lb.Entries {
		lb.Entries[i].PassHatK = chosen[lb.Entries[i].Agent].Summary.PassHatK[strconv.Itoa(lb.K)]
	}
	slices.SortFunc(lb.Entries, func(a, b LeaderboardEntry) int {
		switch {
		case a.PassHat1 != b.PassHat1:
			return cmpFloat(b.PassHat1, a.PassHat1)
		case a.NumTasks != b.NumTasks:
			return b.NumTasks - a.NumTasks
		}
		return strings.Compare(a.Agent, b.Agent)
	})
	rankTies(lb.Entries)
	lb.Baseline, lb.Notes = leaderboardContext(lb.Entries, chosen)
	return lb
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// better says whether e should stand for its agent rather than cur.
func better(e, cur *result.Evaluation, latest bool) bool {
	if latest {
		return e.CreatedAt.After(cur.CreatedAt)
	}
	ep, cp := e.Summary.PassHatK["1"], cur.Summary.PassHatK["1"]
	switch {
	case ep != cp:
		return ep > cp
	case e.Summary.NumTasks != cur.Summary.NumTasks:
		return e.Summary.NumTasks > cur.Summary.NumTasks
	}
	return e.CreatedAt.After(cur.CreatedAt)
}

func entryOf(key string, e *result.Evaluation, n int) LeaderboardEntry {
	s, m := e.Summary, e.Metrics
	cost := 0.0
	for _, u := range m.LLMUsage {
		cost += u.CostUSD
	}
	return LeaderboardEntry{Agent: key, AgentLabel: AgentLabel(e.Agent), EvaluationID: e.ID, CreatedAt: e.CreatedAt, Evaluations: n,
		NumTasks: s.NumTasks, NumTrials: s.NumTrials, PassHat1: s.PassHatK["1"], PassHat1CI95: s.PassHat1CI95, AvgReward: s.AvgReward,
		InputTokens: m.InputTokens, OutputTokens: m.OutputTokens, LLMCostUSD: round6(cost),
		LatencyP50MS: m.LatencyMS.P50, LatencyP95MS: m.LatencyMS.P95}
}

// rankTies gives sorted entries their ranks: an entry shares the rank of
// the first entry of the current group when each one's pass^1 lies inside
// the other's interval; otherwise it starts a group ranked by its place.
func rankTies(entries []LeaderboardEntry) {
	lead := 0
	for i := range entries {
		if i > 0 && inside(entries[i].PassHat1, entries[lead].PassHat1CI95) && inside(entries[lead].PassHat1, entries[i].PassHat1CI95) {
			entries[i].Rank = entries[lead].Rank
			entries[i].Tied, entries[lead].Tied = true, true
			continue
		}
		lead = i
		entries[i].Rank = i + 1
	}
}

func inside(p float64, ci result.Interval) bool {
	return p >= ci.Low-scoreEpsilon && p <= ci.High+scoreEpsilon
}

// leaderboardContext is the do-nothing baseline to show and what to say
// about the entries' comparability.
func leaderboardContext(entries []LeaderboardEntry, chosen map[string]*result.Evaluation) (*result.Baseline, []string) {
	notes := []string{}
	if len(entries) == 0 {
		return nil, notes
	}
	first := chosen[entries[0].Agent]
	tasks := map[int]bool{}
	for _, e := range entries {
		tasks[e.NumTasks] = true
	}
	if len(tasks) > 1 {
		notes = append(notes, "the entries ran different numbers of tasks: their scores are not on the same tasks")
	}
	base := first.Summary.DoNothingBaseline
	if base != nil {
		for _, e := range entries[1:] {
			if b := chosen[e.Agent].Summary.DoNothingBaseline; b != nil && b.PassHat1 != base.PassHat1 {
				notes = append(notes, fmt.Sprintf("the do-nothing baseline is that of %s's tasks; others differ", entries[0].EvaluationID))
				break
			}
		}
	}
	return base, notes
}

// WriteLeaderboard renders a leaderboard in format: Table, Markdown or
// JSON (the Leaderboard, indented).
func WriteLeaderboard(w io.Writer, format Format, lb Leaderboard) error {
	switch format {
	case JSON:
		return writeJSON(w, lb)
	case Markdown:
		return leaderboardMarkdown(w, lb)
	case Table:
		return leaderboardTable(w, lb)
	}
	return fmt.Errorf("unknown leaderboard format %q: want table, json or markdown", format)
}

func rankText(e LeaderboardEntry) string {
	if e.Tied {
		return "=" + strconv.Itoa(e.Rank)
	}
	return strconv.Itoa(e.Rank)
}

func leaderboardTitle(lb Leaderboard) string {
	pick := "best"
	if lb.Latest {
		pick = "latest"
	}
	split := ""
	if lb.Split != "" {
		split = ", split " + lb.Split
	}
	return fmt.Sprintf("domain %s%s: the %s evaluation per agent, ranked by pass^1 (=N: tied, each inside the other's 95%% interval)", lb.Domain, split, pick)
}

// passKCell is the pass^k column's header (format takes K), or nothing
// when K is 1 and pass^1 is already shown.
func passKCell(lb Leaderboard, format string) string {
	if lb.K <= 1 {
		return ""
	}
	if strings.Contains(format, "%d") {
		return fmt.Sprintf(format, lb.K)
	}
	return format
}

// passKValue is a pass^k cell, or nothing when K is 1.
func passKValue(lb Leaderboard, v float64, format string) string {
	if lb.K <= 1 {
		return ""
	}
	return fmt.Sprintf(format, v)
}

func leaderboardTable(w io.Writer, lb Leaderboard) error {
	fmt.Fprintln(w, leaderboardTitle(lb))
	if len(lb.Entries) == 0 {
		fmt.Fprintln(w, "No completed evaluation matches. Run one with: proctor run --domain "+lb.Domain)
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "RANK\tAGENT\tPASS^1\t95%% CI\t%sTASKS\tTOKENS IN/OUT\tLLM COST\tLATENCY P50/P95\tEVALUATION\n", passKCell(lb, "PASS^%d\t"))
	for _, e := range lb.Entries {
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f-%.3f\t%s%dx%d\t%d/%d\t$%.4f\t%s/%s\t%s\n", rankText(e), clip(e.AgentLabel, tableTextChars),
			e.PassHat1, e.PassHat1CI95.Low, e.PassHat1CI95.High, passKValue(lb, e.PassHatK, "%.3f\t"), e.NumTasks, e.NumTrials,
			e.InputTokens, e.OutputTokens, e.LLMCostUSD, ms(e.LatencyP50MS), ms(e.LatencyP95MS), e.EvaluationID)
	}
	if lb.Baseline != nil {
		fmt.Fprintf(tw, "-\tdo-nothing baseline\t%.3f\t\t%s\t\t\t\t(reference)\n", lb.Baseline.PassHat1, passKValue(lb, lb.Baseline.PassHat1, "%.3f\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range lb.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}

func leaderboardMarkdown(w io.Writer, lb Leaderboard) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## proctor leaderboard\n\n%s.\n\n", mdEscape(leaderboardTitle(lb)))
	fmt.Fprintf(&b, "| rank | agent | pass^1 | 95%% CI | %stasks | tokens in/out | LLM cost | latency p50/p95 | evaluation |\n", passKCell(lb, "pass^%d | "))
	fmt.Fprintf(&b, "|---|---|---|---|%s---|---|---|---|---|\n", passKCell(lb, "---|"))
	for _, e := range lb.Entries {
		fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f-%.3f | %s%dx%d | %d/%d | $%.4f | %s/%s | `%s` |\n", rankText(e), mdEscape(e.AgentLabel),
			e.PassHat1, e.PassHat1CI95.Low, e.PassHat1CI95.High, passKValue(lb, e.PassHatK, "%.3f | "), e.NumTasks, e.NumTrials,
			e.InputTokens, e.OutputTokens, e.LLMCostUSD, ms(e.LatencyP50MS), ms(e.LatencyP95MS), e.EvaluationID)
	}
	if lb.Baseline != nil {
		fmt.Fprintf(&b, "| – | *do-nothing baseline* | %.3f | | %s | | | | reference |\n", lb.Baseline.PassHat1, passKValue(lb, lb.Baseline.PassHat1, "%.3f | "))
	}
	for _, n := range lb.Notes {
		fmt.Fprintf(&b, "\nNote: %s\n", mdEscape(n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
