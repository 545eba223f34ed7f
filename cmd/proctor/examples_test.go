package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/examples/a2a/weather"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/result"
)

// exampleDir is the example A2A agent's folder, from this package's.
const exampleDir = "../../examples/a2a"

// envRecordExample set to 1 makes TestExampleA2AAgentEvalSets record the
// example's judge cassette again (after a change to the eval sets or to the
// judge's prompt) from the scripted judge below:
//
//	PROCTOR_RECORD_EXAMPLE=1 go test ./cmd/proctor -run TestExampleA2AAgentEvalSets
const envRecordExample = "PROCTOR_RECORD_EXAMPLE"

// startWeather serves the example agent on loopback.
func startWeather(t *testing.T) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	srv.Config.Handler = weather.Handler(srv.URL)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestExampleA2AAgentEvalSets runs examples/a2a/README.md's command: the
// example eval sets against the example agent, the judge's verdicts
// replayed from the cassette shipped beside them, offline. Every case
// passes, and the tool calls are those the agent made.
func TestExampleA2AAgentEvalSets(t *testing.T) {
	agent := startWeather(t)
	cassette := filepath.Join(exampleDir, "judge.cassette.json")
	args := []string{"evalset", "run", "--agent", agent, "--db", tempDB(t), "--format", "json", "--progress", "none",
		filepath.Join(exampleDir, "evals"), "--llm-cassette", cassette}
	if os.Getenv(envRecordExample) == "1" {
		judge := llmtest.NewOpenAI(t, scriptedJudge)
		args = append(args, "--llm-mode", "record", "--llm-base-url", judge.URL)
		t.Setenv("OPENAI_API_KEY", "recording-with-a-scripted-judge")
	} else {
		args = append(args, "--llm-mode", "replay", "--llm-base-url", "http://127.0.0.1:1")
	}
	r := mustCLI(t, exitOK, args...)
	var run result.EvalSetRun
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatalf("--format json: %v\n%s", err, clip(r.stdout))
	}
	got := map[string]result.EvalStatus{}
	calls := map[string][]string{}
	for _, c := range run.Summary.Cases {
		got[c.EvalID] = c.Status
	}
	for _, c := range run.Cases {
		for _, turn := range c.Actual {
			for _, tool := range turn.Tools {
				args, _ := json.Marshal(tool.Arguments)
				calls[c.EvalID] = append(calls[c.EvalID], tool.Name+string(args))
			}
		}
	}
	want := map[string]result.EvalStatus{"paris": result.EvalPassed, "follow-up": result.EvalPassed, "convert": result.EvalPassed,
		"out-of-scope": result.EvalPassed, "weather-lisbon": result.EvalPassed, "convert-yen": result.EvalPassed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("case verdicts (-want +got):\n%s\nstderr:\n%s", diff, r.stderr)
	}
	wantCalls := map[string][]string{
		"paris":          {`get_weather{"city":"Paris"}`},
		"follow-up":      {`get_weather{"city":"Oslo"}`, `get_weather{"city":"Tokyo"}`},
		"convert":        {`convert_currency{"amount":100,"from":"EUR","to":"USD"}`},
		"weather-lisbon": {`get_weather{"city":"Lisbon"}`},
		"convert-yen":    {`convert_currency{"amount":5000,"from":"JPY","to":"EUR"}`},
	}
	if diff := cmp.Diff(wantCalls, calls); diff != "" {
		t.Errorf("tool calls read from the wire (-want +got):\n%s", diff)
	}
}

var (
	referenceAnswer = regexp.MustCompile(`(?s)<reference_answer>\n(.*?)\n</reference_answer>`)
	agentAnswer     = regexp.MustCompile(`(?s)<agent_answer>\n(.*?)\n</agent_answer>`)
	number          = regexp.MustCompile(`-?[0-9]+(?:\.[0-9]+)?`)
)

// scriptedJudge stands in for a judge model when the example's cassette is
// recorded: an answer is valid when it gives every number of the reference
// answer and is not an apology.
func scriptedJudge(r llmtest.Request) llmtest.Reply {
	var prompt string
	for _, m := range r.Messages {
		prompt += m.Text + "\n"
	}
	ref, ans := referenceAnswer.FindStringSubmatch(prompt), agentAnswer.FindStringSubmatch(prompt)
	if ref == nil || ans == nil {
		return llmtest.Reply{Status: 400, ErrorMessage: "not a final-response judge prompt"}
	}
	for _, n := range number.FindAllString(ref[1], -1) {
		if !strings.Contains(ans[1], n) {
			return llmtest.Reply{Text: "reasoning: The answer does not give " + n + ", which the reference does.\nis_the_agent_response_valid: invalid"}
		}
	}
	if strings.HasPrefix(ans[1], "Sorry") {
		return llmtest.Reply{Text: "reasoning: The agent apologises instead of answering.\nis_the_agent_response_valid: invalid"}
	}
	return llmtest.Reply{Text: "reasoning: The answer gives the reference's facts and numbers.\nis_the_agent_response_valid: valid", InputTokens: 180, OutputTokens: 20}
}
