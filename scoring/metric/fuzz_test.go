package metric

import (
	"encoding/json"
	"testing"

	"github.com/proctor-eval/proctor/evalset"
)

// FuzzJSONCriterion feeds untrusted JSON (an agent's final response, a
// metrics file's trees) through the JSON criterion: it must never panic,
// and a value always matches itself.
func FuzzJSONCriterion(f *testing.F) {
	f.Add(`{"a": 1, "b": [1, {"c": null}]}`, `{"a": true, "b": {"c": true}}`, false)
	f.Add(`[1, 2.5e300, "x"]`, `{}`, true)
	f.Add(`{"a": {"b": {"c": 1}}}`, `{"a": {"b": {"c": true}}}`, true)
	f.Add(`1 2`, `{"x": "y"}`, false)
	f.Fuzz(func(t *testing.T, doc, tree string, only bool) {
		var tr map[string]any
		_ = json.Unmarshal([]byte(tree), &tr)
		c := &evalset.JSONCriterion{}
		if only {
			c.OnlyTree = tr
		} else {
			c.IgnoreTree = tr
		}
		if checkJSON(c) != nil {
			c = &evalset.JSONCriterion{}
		}
		ok, why := matchJSON(c, rawJSON(doc), rawJSON(doc), true)
		if _, err := parseJSON([]byte(doc)); err == nil && !ok {
			t.Errorf("%s does not match itself under %s: %s", doc, tree, why)
		}
	})
}

// FuzzTextRegex compiles untrusted patterns (expected texts) and matches
// them: never a panic, and a literal exact text matches itself.
func FuzzTextRegex(f *testing.F) {
	f.Add("order A12 shipped", `A\d+`, true)
	f.Add("x", `(`, false)
	f.Add("ÉTÉ", `(?i)été`, true)
	f.Fuzz(func(t *testing.T, source, pattern string, fold bool) {
		re := &regexpCache{}
		_ = re.matchText(&evalset.TextCriterion{MatchStrategy: evalset.TextRegex, CaseInsensitive: fold}, source, pattern, true)
		if why := re.matchText(&evalset.TextCriterion{CaseInsensitive: fold}, source, source, true); why != "" {
			t.Errorf("%q does not match itself: %s", source, why)
		}
	})
}

// FuzzJudgeReply parses untrusted judge replies: never a panic.
func FuzzJudgeReply(f *testing.F) {
	f.Add("reasoning: ok\nis_the_agent_response_valid: valid")
	f.Add(`{"rubricScores": [{"id": "1", "score": 1, "reason": "r"}]}`)
	f.Add("ID: 1\nRubric: r\nEvidence: e\nReason: x\nVerdict: yes")
	f.Fuzz(func(t *testing.T, reply string) {
		m := judgeMetric(evalset.MetricLLMRubricResponse, 1, "rubric")
		_, _ = scoreValidity(m, reply)
		if sc, err := scoreRubrics(m, reply); err == nil && (sc.score < 0 || sc.score > 1) {
			t.Errorf("score %v out of [0, 1]", sc.score)
		}
	})
}
