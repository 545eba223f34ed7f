package rollout_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3/option"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/banking"
	tau2mock "github.com/proctor-eval/proctor/domains/tau2/mock"
	"github.com/proctor-eval/proctor/domains/tau2/telecom"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/llm/openai"
	"github.com/proctor-eval/proctor/rollout"
)

// tau2Capture is one fixture of testdata/tau2user: the requests tau2's own
// UserSimulator sent for a scripted conversation (see its README.md for the
// script that made them).
type tau2Capture struct {
	Domain       string                     `json:"domain"`
	TaskID       string                     `json:"task_id"`
	UserScenario domains.UserScenario       `json:"user_scenario"`
	UserTools    []string                   `json:"user_tools"`
	AgentTurns   []string                   `json:"agent_turns"`
	Replies      []tau2Reply                `json:"replies"`
	ToolResults  []struct{ Content string } `json:"tool_results"`
	Requests     []json.RawMessage          `json:"requests"`
}

type tau2Reply struct {
	Text      *string `json:"text"`
	ToolCalls []struct {
		ID        string         `json:"id"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"tool_calls"`
}

// wireRequest is what the comparison reads of a chat completions request:
// messages (content null and absent alike), the tools offered (name,
// description, parameters as a JSON value, in order) and temperature.
type wireRequest struct {
	Messages []struct {
		Role       string  `json:"role"`
		Content    *string `json:"content"`
		ToolCallID string  `json:"tool_call_id,omitempty"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Parameters  any    `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Temperature *float64 `json:"temperature"`
}

// fixtureTools are the user tools of proctor's port of the domain,
// answering with the results tau2's environment gave, in order.
type fixtureTools struct {
	specs   []domains.ToolSpec
	results []string
}

func (f *fixtureTools) Specs() []domains.ToolSpec { return f.specs }

func (f *fixtureTools) Call(_ context.Context, _ domains.ToolCall) domains.ToolResult {
	r := f.results[0]
	f.results = f.results[1:]
	return domains.ToolResult{Content: r}
}

// TestTau2UserSendsTau2Requests: for the same conversation, the tau2 user
// prompt sends what tau2's own user simulator sends: the system prompt, every
// message with its role (flipped: the agent is "user"), the user's tool calls
// and raw tool results, the tools offered (proctor's port of the domain's
// user tools: tau2's names, descriptions and schemas, restricted to the
// task's user_tools, which proctor's port loads as tau2 does) and
// temperature 0.
func TestTau2UserSendsTau2Requests(t *testing.T) {
	files, err := filepath.Glob("testdata/tau2user/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			var c tau2Capture
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			var replies []llmtest.Reply
			for _, r := range c.Replies {
				reply := llmtest.Reply{}
				if r.Text != nil {
					reply.Text = *r.Text
				}
				for _, tc := range r.ToolCalls {
					reply.ToolCalls = append(reply.ToolCalls, llmtest.ToolCall{ID: tc.ID, Name: tc.Name, Args: tc.Arguments})
				}
				replies = append(replies, reply)
			}
			srv := llmtest.NewOpenAI(t, llmtest.Sequence(replies...))
			m := openai.New("gpt-4.1-2025-04-14", option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
			user, err := rollout.NewLLMUser(rollout.LLMUserConfig{Model: m, Prompt: rollout.UserPromptTau2},
				&domains.Task{ID: c.TaskID, UserScenario: c.UserScenario, UserTools: c.UserTools})
			if err != nil {
				t.Fatal(err)
			}
			var want []wireRequest
			for _, raw := range c.Requests {
				var w wireRequest
				if err := json.Unmarshal(raw, &w); err != nil {
					t.Fatal(err)
				}
				want = append(want, normalise(w))
			}
			if len(want[0].Tools) > 0 {
				d := portedDomain(t, c.Domain)
				task, ok := d.Task(c.TaskID)
				if !ok {
					t.Fatalf("proctor's %s has no task %s", c.Domain, c.TaskID)
				}
				if diff := cmp.Diff(c.UserTools, task.UserTools); diff != "" {
					t.Errorf("the task's user_tools differ from tau2's (-tau2 +proctor):\n%s", diff)
				}
				tools := &fixtureTools{specs: d.UserTools}
				for _, r := range c.ToolResults {
					tools.results = append(tools.results, r.Content)
				}
				user.UseTools(tools)
			}
			for _, turn := range c.AgentTurns {
				if _, err := user.Reply(t.Context(), turn); err != nil {
					t.Fatal(err)
				}
			}
			var got []wireRequest
			for _, r := range srv.Requests() {
				var w wireRequest
				if err := json.Unmarshal(r.Raw, &w); err != nil {
					t.Fatal(err)
				}
				got = append(got, normalise(w))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("requests differ from tau2's (-tau2 +proctor):\n%s", diff)
			}
		})
	}
}

// normalise keeps what both sides must agree on: an empty content is null,
// arguments are compared as JSON values.
func normalise(w wireRequest) wireRequest {
	for i := range w.Messages {
		m := &w.Messages[i]
		if m.Content != nil && *m.Content == "" {
			m.Content = nil
		}
		for j := range m.ToolCalls {
			var v any
			if json.Unmarshal([]byte(m.ToolCalls[j].Function.Arguments), &v) == nil {
				b, _ := json.Marshal(v)
				m.ToolCalls[j].Function.Arguments = string(b)
			}
		}
	}
	return w
}

// portedDomain is proctor's port of a tau2 domain with user tools, with
// all its tasks.
func portedDomain(t *testing.T, domain string) *domains.Domain {
	t.Helper()
	dir := tau2test.Dir(t, domain)
	newDomain := map[string]func(dir string) (*domains.Domain, error){
		"telecom":           func(dir string) (*domains.Domain, error) { return telecom.New(dir, "full") },
		"mock":              func(dir string) (*domains.Domain, error) { return tau2mock.New(dir, "") },
		"banking_knowledge": func(dir string) (*domains.Domain, error) { return banking.New(dir, "") },
	}[domain]
	if newDomain == nil {
		t.Fatalf("fixture of domain %q offers user tools; the test knows those of telecom, mock and banking_knowledge only", domain)
	}
	d, err := newDomain(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
