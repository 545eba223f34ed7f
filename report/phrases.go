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

// ProcessNote says how the agent worked: "to success 4.2 turns, 9.0
// requests, 1234 tokens; 120 tool calls: 3 repeated, 2 unverified writes, 5
// errors (0.042)"; "" when the summary has no process figures.
func ProcessNote(s result.Summary) string {
	p := s.Process
	if p == nil {
		return ""
	}
	success := "no success"
	if p.TurnsToSuccess > 0 {
		success = fmt.Sprintf("to success %.1f turns, %.1f requests, %.0f tokens", p.TurnsToSuccess, p.RequestsToSuccess, p.TokensPerSuccess)
	}
	return fmt.Sprintf("%s; %s: %d repeated, %s, %d errors (%.3f)", success, Plural(p.ToolCalls, "tool call"),
		p.RepeatedCalls, Plural(p.UnverifiedWrites, "unverified write"), p.ToolErrors, p.ToolErrorRate)
}

// RobustnessNote says how the agent met corrupted tool results: "9 of 12
// handled (0.750): 7 rechecked, 4 told the user; error 3, stale 4, ...";
// "" when none were corrupted.
func RobustnessNote(s result.Summary) string {
	r := s.Robustness
	if r == nil {
		return ""
	}
	return fmt.Sprintf("%d of %s handled (%.3f): %d rechecked, %d told the user; %s", r.Handled,
		Plural(r.Faults, "corrupted tool result"), r.HandledShare, r.Rechecked, r.ToldUser, Counts(r.ByKind))
}

// VacuousNote counts and names the tasks the do-nothing agent passes: "3
// vacuous tasks: mock-03, mock-07, mock-11", the first limit of them and
// how many more (every one is in the JSON).
func VacuousNote(ids []string, limit int) string {
	noun := "vacuous tasks"
	if len(ids) == 1 {
		noun = "vacuous task"
	}
	shown := ids
	more := ""
	if limit > 0 && len(ids) > limit {
		shown, more = ids[:limit], fmt.Sprintf(" and %d more", len(ids)-limit)
	}
	return fmt.Sprintf("%d %s: %s%s", len(ids), noun, strings.Join(shown, ", "), more)
}

// SimulationsNote says how many simulations an evaluation has and of
// what: "17 (17 tasks x 1 trial)" when they are all there, "40 of 204
// (17 tasks x 12 trials)" when it did not finish, counting what it set out
// to run.
func SimulationsNote(e *result.Evaluation) string {
	s := e.Summary
	planned := len(e.Config.TaskIDs) * e.Config.NumTrials
	switch {
	case s.NumSimulations == s.NumTasks*s.NumTrials && (planned == 0 || planned == s.NumSimulations):
		return fmt.Sprintf("%d (%s x %s)", s.NumSimulations, Plural(s.NumTasks, "task"), Plural(s.NumTrials, "trial"))
	case planned > 0:
		return fmt.Sprintf("%d of %d (%s x %s)", s.NumSimulations, planned, Plural(len(e.Config.TaskIDs), "task"), Plural(e.Config.NumTrials, "trial"))
	}
	return fmt.Sprintf("%d (%d tasks, up to %d trials each)", s.NumSimulations, s.NumTasks, s.NumTrials)
}

// maxKs is the most values of k a pass^k line shows; beyond it the line
// shows k = 1, 2, 4, 8... and the largest k (every k is in the JSON).
const maxKs = 10

// kLine renders pass^k or pass@k values in one line of bounded width.
func kLine(m map[string]float64) string {
	if len(m) <= maxKs {
		return kv(m)
	}
	largest := 0
	for k := range m {
		if n, err := strconv.Atoi(k); err == nil {
			largest = max(largest, n)
		}
	}
	some := map[string]float64{}
	for k := 1; k < largest; k *= 2 {
		if v, ok := m[strconv.Itoa(k)]; ok {
			some[strconv.Itoa(k)] = v
		}
	}
	some[strconv.Itoa(largest)] = m[strconv.Itoa(largest)]
	return kv(some) + "  (every k: --format json)"
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
		if u.SlotWaitMS > 0 {
			v += fmt.Sprintf(", %s waiting for a provider slot", ms(u.SlotWaitMS))
		}
		if u.Throttled > 0 {
			v += fmt.Sprintf(", %d retried after 429", u.Throttled)
		}
		out = append(out, [2]string{r + " model", v})
	}
	return out
}

// ShortID is an id cut for tight columns: its last 12 characters (UUIDv7
// ids made close together share their first ones), or the id itself when
// short. The full id still resolves, and so does this ending.
func ShortID(id string) string {
	if len(id) <= 13 {
		return id
	}
	return "…" + id[len(id)-12:]
}
