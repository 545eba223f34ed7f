package refagent

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
)

// This file holds a minimal, test-only stand-in for proctor's orchestrator:
// it plays a task's scripted user over real A2A JSON-RPC, runs the agent's
// tool calls against the task's environment and scores the conversation.

const greeting = "Hi! How can I help you today?"

// transcript is what a driven conversation produced.
type transcript struct {
	agentTexts []string           // everything the agent said, greeting first
	calls      []domains.ToolCall // the agent's tool calls, in order
	env        domains.Env
	stopped    bool // the scripted user said ###STOP###
}

// startAgent serves the reference agent on a loopback port for the test's
// lifetime and returns a client made from its resolved card.
func startAgent(t *testing.T, d *domains.Domain) *a2aclient.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, d) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), "http://"+ln.Addr().String())
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	client, err := a2aclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(func() { _ = client.Destroy() })
	return client
}

// firstMessage frames the opening message of the agentbeats profile.
func firstMessage(t *testing.T, d *domains.Domain, utterance string) string {
	t.Helper()
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type tool struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	var tools []tool
	for _, s := range d.Tools {
		tools = append(tools, tool{"function", function{s.Name, s.Description, s.Parameters}})
	}
	tools = append(tools, tool{"function", function{"respond", "Send a message to the user.",
		json.RawMessage(`{"type":"object","properties":{"content":{"type":"string","description":"The message."}},"required":["content"]}`)}})
	b, err := json.MarshalIndent(tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return "<policy>\n" + d.Policy + "\n</policy>\n\nHere are the tools you can use, in OpenAI function format:\n" + string(b) +
		"\n\nReply with exactly one JSON object: {\"name\": \"<tool>\", \"arguments\": {...}} to call a tool, " +
		"or {\"name\": \"respond\", \"arguments\": {\"content\": \"...\"}} to talk to the user.\n\nUser message: " + utterance
}

// converse drives one task's conversation with the agent.
func converse(t *testing.T, client *a2aclient.Client, d *domains.Domain, task *domains.Task) transcript {
	t.Helper()
	env, err := d.NewEnv(task)
	if err != nil {
		t.Fatal(err)
	}
	tr := transcript{agentTexts: []string{greeting}, env: env}
	script := task.UserScenario.Script
	text, next := firstMessage(t, d, script[0]), 1
	contextID := a2a.NewContextID()
	for range 60 {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
		msg.ContextID = contextID
		res, err := client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: msg})
		if err != nil {
			t.Fatalf("send: %v", err)
		}
		out, ok := res.(*a2a.Message)
		if !ok {
			t.Fatalf("agent replied with %T, want a message", res)
		}
		if out.ContextID != contextID {
			t.Fatalf("reply context %q, want %q", out.ContextID, contextID)
		}
		var r struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(messageText(out)), &r); err != nil {
			t.Fatalf("reply %q is not one JSON object: %v", messageText(out), err)
		}
		if r.Name != "respond" {
			call := domains.ToolCall{Name: r.Name, Arguments: r.Arguments, Requestor: "assistant"}
			tr.calls = append(tr.calls, call)
			res := env.Call(call)
			text = "Tool call result (" + r.Name + "):\n" + res.Content
			continue
		}
		content, _ := r.Arguments["content"].(string)
		tr.agentTexts = append(tr.agentTexts, content)
		if next == len(script) {
			tr.stopped = true // the user says ###STOP###
			return tr
		}
		text, next = "User message: "+script[next], next+1
	}
	t.Fatal("conversation did not end within 60 agent steps")
	return tr
}

// score fails the test unless the conversation earns reward 1.
func score(t *testing.T, d *domains.Domain, task *domains.Task, tr transcript) {
	t.Helper()
	if !tr.stopped {
		t.Fatal("conversation did not end with the user's stop")
	}
	problems, err := check(d, task, tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	for _, c := range tr.calls { // shown with -v or on failure
		t.Logf("call %s %v", c.Name, c.Arguments)
	}
	for _, s := range tr.agentTexts {
		t.Logf("agent: %s", s)
	}
}

// check scores a finished conversation the way proctor does, basis by basis
// (reward is the product over the task's bases), and lists what failed.
func check(d *domains.Domain, task *domains.Task, tr transcript) ([]string, error) {
	var problems []string
	ec := task.EvaluationCriteria
	for _, basis := range task.Bases() {
		switch basis {
		case domains.BasisDB:
			gold, err := d.GoldHash(task)
			if err != nil {
				return nil, err
			}
			got, err := tr.env.Hash()
			if err != nil {
				return nil, err
			}
			if got != gold {
				problems = append(problems, "DB: final state differs from the gold state")
			}
		case domains.BasisAction:
			for _, want := range ec.Actions {
				if !matched(want, tr.calls) {
					problems = append(problems, fmt.Sprintf("ACTION: no call matches %s %s(%v)", want.ActionID, want.Name, want.Arguments))
				}
			}
		case domains.BasisCommunicate:
			for _, info := range ec.CommunicateInfo {
				if !communicated(info, tr.agentTexts) {
					problems = append(problems, fmt.Sprintf("COMMUNICATE: %q was never said", info))
				}
			}
		default:
			return nil, fmt.Errorf("basis %s is not scored here", basis)
		}
	}
	return problems, nil
}

// matched reports whether some call has the expected name and equal values
// for the compared arguments (all expected arguments when CompareArgs is nil).
func matched(want domains.Action, calls []domains.ToolCall) bool {
	keys := want.CompareArgs
	if keys == nil {
		for k := range want.Arguments {
			keys = append(keys, k)
		}
	}
	for _, c := range calls {
		if c.Name != want.Name {
			continue
		}
		ok := true
		for _, k := range keys {
			if !sameJSON(want.Arguments[k], c.Arguments[k]) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// sameJSON compares two values as JSON values, so 3 and 3.0 are equal.
func sameJSON(a, b any) bool {
	norm := func(v any) any {
		raw, err := json.Marshal(v)
		if err != nil {
			return v
		}
		var out any
		_ = json.Unmarshal(raw, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// communicated reports whether info appears, case-insensitively, in some
// agent message with its commas removed.
func communicated(info string, texts []string) bool {
	for _, s := range texts {
		if strings.Contains(strings.ToLower(strings.ReplaceAll(s, ",", "")), strings.ToLower(info)) {
			return true
		}
	}
	return false
}

// TestEndToEnd plays every mock task against the agent over JSON-RPC; the
// agent must earn reward 1 on each.
func TestEndToEnd(t *testing.T) {
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	client := startAgent(t, d)
	t.Run("tasks", func(t *testing.T) {
		for _, task := range d.Tasks {
			t.Run(task.ID, func(t *testing.T) {
				t.Parallel()
				score(t, d, &task, converse(t, client, d, &task))
			})
		}
	})
}

// TestScorerCatchesDoNothing checks the test scorer itself: a transcript with
// no calls and only a refusal fails every task.
func TestScorerCatchesDoNothing(t *testing.T) {
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range d.Tasks {
		env, err := d.NewEnv(&task)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcript{agentTexts: []string{greeting, "Sorry, I cannot help with that."}, env: env, stopped: true}
		problems, err := check(d, &task, tr)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) == 0 {
			t.Errorf("%s: a do-nothing transcript passes", task.ID)
		}
	}
}

// TestStreaming checks that a streaming request gets the same single reply.
func TestStreaming(t *testing.T) {
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	client := startAgent(t, d)
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(firstMessage(t, d, "Hi, I'm jane.park@example.com.")))
	var got []a2a.Event
	for ev, err := range client.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: msg}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if len(got) != 1 {
		t.Fatalf("%d events, want 1", len(got))
	}
	m, ok := got[0].(*a2a.Message)
	if !ok || messageText(m) != `{"name":"find_user_by_email","arguments":{"email":"jane.park@example.com"}}` {
		t.Fatalf("got %#v", got[0])
	}
}
