package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/result"
)

// strictNote explains strict scoring (scoring.NewScorer in strict mode) in results.
const strictNote = "strict: ACTION added to the reward basis of every task with expected actions"

// exactMatchNote explains exact action matching (result.ActionMatchExact)
// in results: its scores are not tau2-bench's.
const exactMatchNote = "exact: each expected call must come from its own side and send every expected argument (proctor's reading; tau2-bench's, the default, is --action-match tau2)"

// EnvUncheckedNote lists the tasks whose environment was not checked (see
// result.Summary.EnvUncheckedTasks) and says why, or "" when there are
// none. Anything that shows a score should show it beside, as BaselineNote.
func EnvUncheckedNote(s result.Summary) string {
	if len(s.EnvUncheckedTasks) == 0 {
		return ""
	}
	return strings.Join(s.EnvUncheckedTasks, ", ") + " (no expected actions or env assertions: DB scores 1 without a check, as in tau2)"
}

// PolicyViolationsNote sums up the tool calls an agent's manifest of
// permissions refused: "3 in 2 simulations: create_task 2, delete_task 1",
// or "" when there were none (or the simulations were not read).
func PolicyViolationsNote(sims []result.Simulation) string {
	byTool := map[string]int{}
	n, in := 0, 0
	for _, s := range sims {
		if v := s.RewardInfo.PolicyViolations; len(v) > 0 {
			in++
			n += len(v)
			for _, p := range v {
				byTool[p.Tool]++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d in %d simulations: %s", n, in, Counts(byTool))
}

// BaselineNote puts a score in context: "0.100 (5 of 50 tasks pass without
// the agent doing anything)", the do-nothing agent's pass^1 (see
// scoring.DoNothingPasses), or "" when no task is vacuous or the summary
// predates the baseline. Anything that shows a score should show it beside.
func BaselineNote(s result.Summary) string {
	n := len(s.VacuousTasks)
	if n == 0 || s.DoNothingBaseline == nil {
		return ""
	}
	return fmt.Sprintf("%.3f (%d of %d tasks pass without the agent doing anything)", s.DoNothingBaseline.PassHat1, n, s.NumTasks)
}

// AgentLabel names an evaluated agent in one phrase.
func AgentLabel(a result.AgentInfo) string {
	if a.Builtin {
		return "built-in reference agent"
	}
	if a.Name != "" {
		return fmt.Sprintf("%q at %s", a.Name, a.URL)
	}
	return a.URL
}

// Counts renders a histogram as "a 3, b 1", largest first.
func Counts(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := slices.Collect(maps.Keys(m))
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// kv renders pass^k or pass@k as "k=1 0.500  k=2 0.250", by increasing k.
func kv(m map[string]float64) string {
	keys := slices.Collect(maps.Keys(m))
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.Atoi(keys[i])
		b, _ := strconv.Atoi(keys[j])
		return a < b
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("k=%s %.3f", k, m[k])
	}
	return strings.Join(parts, "  ")
}

// ms renders a latency in milliseconds: "1.50s", "120ms" or "5.2ms".
func ms(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 10:
		return fmt.Sprintf("%.0fms", v)
	}
	return fmt.Sprintf("%.1fms", v)
}

// estimated marks token counts that were estimated rather than reported.
func estimated(b bool) string {
	if b {
		return " (estimated)"
	}
	return ""
}

// llmUsageLines describes proctor's own model usage, a line per role
// (user simulator, judge) in a fixed order.
func llmUsageLines(m result.Metrics) [][2]string {
	var out [][2]string
	roles := make([]string, 0, len(m.LLMUsage))
	for r := range m.LLMUsage {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	for _, r := range roles {
		u := m.LLMUsage[r]
		v := fmt.Sprintf("%d calls, in %d out %d tokens, $%.4f", u.Calls, u.InputTokens, u.OutputTokens, u.CostUSD)
		if u.Errors > 0 {
			v += fmt.Sprintf(", %d failed", u.Errors)
		}
		if u.Unpriced > 0 {
			v += fmt.Sprintf(", %d unpriced", u.Unpriced)
		}
		out = append(out, [2]string{r + " model", v})
	}
	return out
}
