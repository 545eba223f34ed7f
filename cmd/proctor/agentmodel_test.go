package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/result"
)

// TestAgentModel: --agent-model evaluates a model with no agent written:
// proctor serves its LLM agent on the model in-process, the model is told
// the domain's policy and tools, its answers reach the transcript, and
// the evaluation is filed under model:SPEC, whatever port the agent had.
func TestAgentModel(t *testing.T) {
	srv := llmtest.NewOpenAI(t, func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"name": "respond", "arguments": {"content": "Hello from the model."}}`}
	})
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	dir := t.TempDir()
	db, out := filepath.Join(dir, "p.db"), filepath.Join(dir, "r.json")
	mustCLI(t, exitOK, "run", "--domain", "mock", "--agent-model", "openai:gpt-4.1", "--task-ids", "mock-01",
		"--llm-base-url", srv.URL, "--db", db, "--format", "json", "--out", out, "--progress", "none")
	ev := readEval(t, out)
	if ev.Agent.Model != "openai:gpt-4.1" || ev.Agent.Address() != result.ModelAgentPrefix+"openai:gpt-4.1" || ev.Config.Agent != "model:openai:gpt-4.1" {
		t.Errorf("agent %+v, config agent %q", ev.Agent, ev.Config.Agent)
	}
	var said []string
	for _, m := range ev.Simulations[0].Messages {
		if m.Role == result.RoleAssistant {
			said = append(said, m.Content)
		}
	}
	if len(said) < 2 || said[1] != "Hello from the model." {
		t.Errorf("the agent said %q, want the model's answer after the greeting", said)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || !strings.Contains(reqs[0].Messages[0].Text, "find_user_by_email") {
		t.Fatalf("the model was not given the domain's tools (%d requests)", len(reqs))
	}
	listed := mustCLI(t, exitOK, "results", "--db", db, "--agent-url", "model:openai:gpt-4.1", "--format", "json").stdout
	if !strings.Contains(listed, ev.ID) {
		t.Errorf("results --agent-url model:openai:gpt-4.1 does not list the evaluation:\n%s", listed)
	}
	if r := cli(t, "run", "--agent-model", "openai:gpt-4.1", "--agent", "builtin", "--db", db); r.code != exitUsage || !strings.Contains(r.stderr, "give one") {
		t.Errorf("--agent-model with --agent: exit %d\n%s", r.code, r.stderr)
	}
}
