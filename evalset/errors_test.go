package evalset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeFiles writes files (by slash path) under a new directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lines renders violations with paths relative to dir.
func lines(t *testing.T, err error, dir string) []string {
	t.Helper()
	var out []string
	for _, v := range violations(t, err) {
		v.File = strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(v.File, dir)), "/")
		out = append(out, v.String())
	}
	return out
}

func TestLoadReportsEveryViolation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name: "trpc set and metrics",
			files: map[string]string{
				"app/bad.evalset.json": `{"evalSetId":"bad","evalCases":[
 {"evalId":"a","conversation":[{"userContent":{"role":"user","content":"hi"},"finalResponse":{"role":"assistant","content":"(["}}]},
 {"evalId":"a","conversation":[{"invocationId":"x"}]},
 {"evalId":"c","evalMode":"trace"},
 {"conversation":[{"userContent":{"role":"user","content":"  ","content_parts":[{"type":"image","image":{"url":"u"}}]}}],"evalMod":"trace"},
 {"evalId":"e","conversationScenario":{"driver":"robot"}}]}`,
				"app/bad.metrics.json": `[
 {"metricName":"final_response_avg_score","threshold":1.5,"criterion":{"finalResponse":{"text":{"matchStrategy":"regex"}}}},
 {"metricName":"final_response_avg_score","treshold":1},
 {"metricName":"bleu","threshold":0.5},
 {"metricName":"t","evaluatorName":"tool_trajectory_avg_score","criterion":{"toolTrajectory":{"compareName":"mine","defaultStrategy":{"name":{"matchStrategy":"fuzzy"}}}}}]`,
			},
			want: []string{
				"app/bad.evalset.json: evalCases[3].evalMod: unknown field (known: actualConversation, contextMessages, conversation, conversationScenario, creationTimestamp, evalId, evalMode, expectedRunnerEnabled, inspect, maxSteps, metrics, rubrics, scorer, sessionInput, transport)",
				"app/bad.metrics.json: [1].treshold: unknown field (known: criterion, evaluatorName, metricName, threshold)",
				"app/bad.metrics.json: [0].threshold: 1.5 is outside [0, 1]",
				`app/bad.metrics.json: [1].metricName: duplicate metric name "final_response_avg_score" (also [0])`,
				`app/bad.metrics.json: [2].metricName: unknown metric "bleu"; known: tool_trajectory_avg_score, final_response_avg_score, llm_final_response, llm_rubric_response, llm_rubric_knowledge_recall, llm_judge_template, response_match_score, final_response_match_v2 (ADK's rubric_based_final_response_quality_v1 is read from test_config.json)`,
				`app/bad.metrics.json: [3].criterion.toolTrajectory.compareName: "mine" names a comparison registered in tRPC-Agent-Go code, which proctor cannot run: remove it and use the matchStrategy options`,
				`app/bad.metrics.json: [3].criterion.toolTrajectory.defaultStrategy.name.matchStrategy: unknown strategy "fuzzy": want exact, contains, regex or skip`,
				`app/bad.evalset.json: evalCases[0].conversation[0].finalResponse: case "a": invalid regular expression for metric "final_response_avg_score" (text matchStrategy regex): error parsing regexp: missing closing ]: ` + "`[`",
				`app/bad.evalset.json: evalCases[1].evalId: duplicate case id "a" (also evalCases[0])`,
				"app/bad.evalset.json: evalCases[1].conversation[0].userContent: missing",
				`app/bad.evalset.json: evalCases[2]: case "c" is in trace mode but has no conversation to score`,
				"app/bad.evalset.json: evalCases[3].evalId: missing",
				"app/bad.evalset.json: evalCases[3].conversation[0].userContent: has no text",
				`app/bad.evalset.json: evalCases[3].conversation[0].userContent.content_parts[0]: only text parts can be sent over A2A by proctor, not "image"`,
				"app/bad.evalset.json: evalCases[4].conversationScenario.conversationPlan: missing: the user simulator needs a plan",
				`app/bad.evalset.json: evalCases[4].conversationScenario.driver: unknown driver "robot": want "actual" or "expected"`,
			},
		},
		{
			name: "adk set and test_config",
			files: map[string]string{
				"agent/s.evalset.json": `{"eval_set_id":"s","eval_cases":[
 {"eval_id":"x","conversation":[{"user_content":{"parts":[{"inline_data":{"mime_type":"image/png"}}]},"rubrics":[{"rubric_id":"r"}]}],
  "conversation_scenario":{"starting_prompt":"hi","conversation_plan":"p"}}]}`,
				"agent/test_config.json": `{"criteria":{"safety_v1":0.5,"bleu":1,"tool_trajectory_avg_score":{"threshold":1,"match_type":"SOMETIMES"},"final_response_match_v2":{"judge_model_options":{}}},"custom_metrics":{"m":{}}}`,
			},
			want: []string{
				"agent/s.evalset.json: eval_cases[0]: give conversation or conversation_scenario, not both (as ADK requires)",
				"agent/s.evalset.json: eval_cases[0].conversation[0].user_content.parts[0]: only text parts are supported (this one has inline_data)",
				"agent/s.evalset.json: eval_cases[0].conversation[0].rubrics: rubrics of one invocation are not supported: give them on the case or in the metric",
				"agent/test_config.json: custom_metrics: ADK custom metrics run Python code proctor cannot load; remove them",
				`agent/test_config.json: criteria.safety_v1: "safety_v1" is an ADK metric proctor cannot score; supported: tool_trajectory_avg_score, response_match_score, final_response_match_v2, rubric_based_final_response_quality_v1`,
				`agent/test_config.json: criteria.bleu: "bleu" is not an ADK metric; supported: tool_trajectory_avg_score, response_match_score, final_response_match_v2, rubric_based_final_response_quality_v1`,
				"agent/test_config.json: criteria.tool_trajectory_avg_score.match_type: unknown match type SOMETIMES: want EXACT, IN_ORDER or ANY_ORDER",
				"agent/test_config.json: criteria.final_response_match_v2.threshold: missing",
				"agent/s.evalset.json: eval_cases[0].conversation[0].user_content: has no text",
			},
		},
		{
			name: "yaml cases",
			files: map[string]string{
				"cases/a.yaml": "case: a\ntransport: websocket\ninput:\n  - content: hi\n    expected:\n      tool_call: []\n      final_response: {contains: x}\n  - role: system\n    content: ''\n    expected:\n      final_response: {regex: '(', case_insensitive: true}\nmax_steps: -1\n",
				"cases/b.yaml": "case: a\ninput:\n  content: hi\n  extra: 1\nexpected:\n  final_response: {equals: x, contains: y}\n",
				"cases/c.yaml": "case: c\ninput: {content: hi, expected: {final_response: {equals: x}}}\nexpected: {tool_calls: [{args_contain: ['']}]}\n",
			},
			want: []string{
				"cases/a.yaml: input[0].expected.tool_call: unknown field (known: final_response, tool_calls)",
				"cases/a.yaml: transport: websocket is not one of: jsonrpc, rest, grpc",
				"cases/a.yaml: input[1].role: must be user",
				"cases/a.yaml: input[1].content: missing",
				"cases/a.yaml: max_steps: must be at least 0",
				"cases/a.yaml: input[1].expected.final_response.regex: invalid regular expression: error parsing regexp: missing closing ): `(`",
				"cases/b.yaml: input.extra: unknown field (known: content, expected, role)",
				"cases/b.yaml: expected.final_response: give exactly one of equals, contains, regex (got 2)",
				"cases/c.yaml: expected.tool_calls[0].name: missing",
				"cases/c.yaml: expected.tool_calls[0].args_contain[0]: missing",
				"cases/c.yaml: expected: the last turn's expectations are given twice: here and in input.expected",
				`cases: evalCases[1].evalId: duplicate case id "a" (also evalCases[0])`,
			},
		},
		{
			name:  "not an eval set",
			files: map[string]string{"x/a.evalset.json": `{"hello":1}`, "x/b.test.json": `[{"metricName":"a"}]`, "x/c.evalset.json": `{"evalSetId": 3`},
			want: []string{
				"x/a.evalset.json: not an eval set: expected a tRPC-Agent-Go set {evalSetId, evalCases}, an ADK set {eval_set_id, eval_cases} or an ADK test list [{query, expected_tool_use, reference}]",
				"x/b.test.json: this is a metrics file, not an eval set: give it with --metrics, or keep it beside its eval set",
				"x/c.evalset.json: invalid JSON at line 1 (byte 15): unexpected end of JSON input",
			},
		},
		{
			name:  "too deep",
			files: map[string]string{"d/a.evalset.json": strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), "d/b.yaml": "case: " + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + "\n"},
			want: []string{
				"d/a.evalset.json: JSON nests deeper than 64 levels (at byte 64): flatten the data",
				"d/b.yaml: YAML nests deeper than 64 levels (line 1): flatten the data",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			_, err := Load(dir)
			if diff := cmp.Diff(tc.want, lines(t, err, dir)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadRefusesLargeFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.evalset.json")
	if err := os.WriteFile(path, make([]byte, MaxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := []string{"big.evalset.json: cannot read: file is larger than 32 MiB: split the set into several files"}
	if diff := cmp.Diff(want, lines(t, err, dir)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestWalkSkips: a directory walk does not enter hidden, vendored and
// dependency directories, nor read YAML that is not a case (a Kubernetes
// manifest), and says so; a file named explicitly is read whatever it is.
func TestWalkSkips(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"evals/cases/hi.yaml":           "case: hi\ninput: {content: hi}\n",
		"evals/cases/flow.yaml":         "{case: flow, input: {content: hi}}\n",
		"evals/deploy/k8s.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
		"evals/node_modules/pkg/a.yaml": "case: dep\ninput: {content: hi}\n",
		"evals/.git/x.yaml":             "case: git\ninput: {content: hi}\n",
		"evals/vendor/v.evalset.json":   `{"evalSetId": 3`,
		"evals/lib/__pycache__/c.yaml":  "case: pyc\ninput: {content: hi}\n",
		"evals/cases/notes.txt":         "not read at all",
		"evals/cases/metrics.yaml":      "not a case either, but a metrics file by name",
	})
	sets, skipped, err := LoadReporting(dir + "/evals")
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, s := range sets {
		for _, c := range s.Cases {
			cases = append(cases, c.ID)
		}
	}
	var got []string
	for _, s := range skipped {
		rel, _ := filepath.Rel(dir, s.Path)
		got = append(got, rel+": "+s.Why)
	}
	want := []string{
		".git: a hidden directory",
		"deploy/k8s.yaml: YAML without a top-level case: or input: key: not a case",
		"lib/__pycache__: Python's packages or caches",
		"node_modules: npm's dependencies",
		"vendor: vendored dependencies",
	}
	for i := range want {
		want[i] = "evals/" + want[i]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"flow", "hi"}, cases); diff != "" {
		t.Errorf("cases read (-want +got):\n%s", diff)
	}
	if _, err := Load(dir + "/evals/deploy/k8s.yaml"); err == nil || !strings.Contains(err.Error(), "k8s.yaml: case: missing") {
		t.Errorf("a manifest named explicitly: %v, want it read and refused as not a case", err)
	}
}
