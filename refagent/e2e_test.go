package refagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/translation"
)

// The end-to-end tests play the mock domain's tasks against the agent over
// real A2A JSON-RPC with proctor's own orchestrator (package bench), in
// every message profile, and check both the score and that every reply is
// framed exactly as the profile asks.

// startAgent serves the reference agent on a loopback port for the test's
// lifetime and returns its base URL.
func startAgent(t *testing.T, d *domains.Domain) string {
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
	return BaseURL(ln.Addr())
}

func mockDomain(t testing.TB) *domains.Domain {
	t.Helper()
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func profileByName(t *testing.T, name agent.ProfileName) translation.Profile {
	t.Helper()
	p, err := translation.ProfileByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkedAgent is a rollout.Agent that fails the test when a reply is not
// framed as its profile asks. translation.ParseReply, which proctor uses,
// accepts every profile's shapes, so a good score alone would not show it.
type checkedAgent struct {
	client  *a2aclient.Client
	t       *testing.T
	profile agent.ProfileName
}

func (a checkedAgent) NewConversation() rollout.Conversation {
	return a2aagent.Adapt(checkedConversation{a.client.NewConversation(), a.t, a.profile})
}

// checkedConversation is an A2A conversation whose replies are checked.
type checkedConversation struct {
	*a2aclient.Conversation
	t       *testing.T
	profile agent.ProfileName
}

func (c checkedConversation) Send(ctx context.Context, parts []*a2a.Part) (*a2aclient.Response, error) {
	resp, err := c.Conversation.Send(ctx, parts)
	if err == nil {
		if err := conforms(c.profile, resp.Parts); err != nil {
			c.t.Errorf("reply %s: %v", partsText(resp.Parts), err)
		}
	}
	return resp, err
}

// call is a tool call as the profiles' reply objects write it.
type call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

func (c *call) check() error {
	if c == nil || c.Name == "" || c.Arguments == nil {
		return errors.New("a call needs a name and arguments")
	}
	return nil
}

// strictJSON decodes raw, which must be one JSON value of exactly v's shape.
func strictJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// conforms checks that a reply is one part framed as the profile asks.
func conforms(profile agent.ProfileName, parts []*a2a.Part) error {
	if len(parts) != 1 {
		return fmt.Errorf("%d parts, want 1", len(parts))
	}
	switch profile {
	case agent.ProfileAgentBeats:
		return conformsAgentBeats(parts[0])
	case agent.ProfileTau2A2A:
		return conformsTau2A2A(parts)
	case agent.ProfileStructured:
		return conformsStructured(parts)
	}
	return fmt.Errorf("unknown profile %q", profile)
}

// isText says whether p is a text part.
func isText(p *a2a.Part) bool { _, ok := p.Content.(a2a.Text); return ok }

// plainText checks that the one part of parts is text for the user that no
// parser mistakes for a call.
func plainText(parts []*a2a.Part) error {
	if r := translation.ParseReply(parts); r.Format != "text" || r.Text != parts[0].Text() {
		return fmt.Errorf("text for the user is read as %s", r.Format)
	}
	return nil
}

// conformsAgentBeats: a text part holding one {name, arguments} object.
func conformsAgentBeats(p *a2a.Part) error {
	if !isText(p) {
		return errors.New("not a text part")
	}
	var c call
	if err := strictJSON([]byte(p.Text()), &c); err != nil {
		return fmt.Errorf("not one {name, arguments} object: %w", err)
	}
	return c.check()
}

// conformsTau2A2A: a text part, plain text or one {tool_call} object.
func conformsTau2A2A(parts []*a2a.Part) error {
	p := parts[0]
	if !isText(p) {
		return errors.New("not a text part")
	}
	if plainText(parts) == nil {
		return nil
	}
	var obj struct {
		ToolCall *call `json:"tool_call"`
	}
	if err := strictJSON([]byte(p.Text()), &obj); err != nil {
		return fmt.Errorf("neither plain text nor one {tool_call} object: %w", err)
	}
	return obj.ToolCall.check()
}

// conformsStructured: plain text, or a data part with one call in
// {tool_calls}.
func conformsStructured(parts []*a2a.Part) error {
	p := parts[0]
	if isText(p) {
		return plainText(parts)
	}
	if _, ok := p.Content.(a2a.Data); !ok {
		return errors.New("neither a text nor a data part")
	}
	raw, err := json.Marshal(p.Data())
	if err != nil {
		return err
	}
	var obj struct {
		ToolCalls []*call `json:"tool_calls"`
	}
	if err := strictJSON(raw, &obj); err != nil {
		return fmt.Errorf("data part is not one {tool_calls} object: %w", err)
	}
	if len(obj.ToolCalls) != 1 {
		return fmt.Errorf("%d calls, want 1", len(obj.ToolCalls))
	}
	return obj.ToolCalls[0].check()
}

// TestEndToEnd plays every mock task against the agent over JSON-RPC, in
// every profile, streaming and not: the agent must earn reward 1 on each,
// the scripted user ending the conversation.
func TestEndToEnd(t *testing.T) {
	d := mockDomain(t)
	url := startAgent(t, d)
	for _, streaming := range []a2aclient.StreamingMode{a2aclient.StreamingOn, a2aclient.StreamingOff} {
		client, err := a2aclient.Dial(t.Context(), url, a2aclient.WithStreaming(streaming))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = client.Close() })
		for _, n := range translation.ProfileNames() {
			name := agent.ProfileName(n)
			sim := rollout.NewSimulator(d, name, rollout.Limits{})
			t.Run(n+"/streaming="+string(streaming), func(t *testing.T) {
				t.Parallel()
				for _, task := range d.Tasks {
					t.Run(task.ID, func(t *testing.T) {
						t.Parallel()
						user, err := rollout.NewScriptedUser(&task)
						if err != nil {
							t.Fatal(err)
						}
						agent := checkedAgent{client, t, name}
						res, aborted := evaluation.Simulate(t.Context(), sim, scoring.NewScorer(d, false), &task, 0, agent, user)
						if aborted {
							t.Fatal("simulation aborted")
						}
						if res.Reward != 1 || res.TerminationReason != result.TermUserStop || res.Error != "" || len(res.NonConformant) > 0 {
							t.Errorf("reward %v, termination %s, error %q, non-conformant %v; reward info %+v",
								res.Reward, res.TerminationReason, res.Error, res.NonConformant, res.RewardInfo)
							for _, m := range res.Messages {
								t.Logf("%s: %s %v", m.Role, m.Content, m.ToolCalls)
							}
						}
					})
				}
			})
		}
	}
}

// apologizer is an agent that helps nobody.
type apologizer struct{}

func (apologizer) NewConversation() rollout.Conversation { return a2aagent.Adapt(apologizer{}) }
func (apologizer) ContextID() string                     { return "apologizer" }
func (apologizer) Send(context.Context, []*a2a.Part) (*a2aclient.Response, error) {
	return &a2aclient.Response{Parts: []*a2a.Part{a2a.NewTextPart("Sorry, I cannot help with that.")}}, nil
}

// TestEndToEndIsNotVacuous checks that the end-to-end test's scoring can
// fail: an agent that does nothing earns reward 0 on every task.
func TestEndToEndIsNotVacuous(t *testing.T) {
	d := mockDomain(t)
	sim := rollout.NewSimulator(d, agent.ProfileTau2A2A, rollout.Limits{})
	for _, task := range d.Tasks {
		user, err := rollout.NewScriptedUser(&task)
		if err != nil {
			t.Fatal(err)
		}
		if res, _ := evaluation.Simulate(t.Context(), sim, scoring.NewScorer(d, false), &task, 0, apologizer{}, user); res.Reward != 0 || res.TerminationReason != result.TermUserStop {
			t.Errorf("%s: a do-nothing agent earns %v (%s)", task.ID, res.Reward, res.TerminationReason)
		}
	}
}

// TestStreaming checks, with a2a-go's own client, that a streaming request
// gets one event, a completed task whose status message is framed in the
// request's profile.
func TestStreaming(t *testing.T) {
	d := mockDomain(t)
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), startAgent(t, d))
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	client, err := sdkclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(func() { _ = client.Destroy() })
	want := map[agent.ProfileName]string{
		agent.ProfileAgentBeats: `{"name":"find_user_by_email","arguments":{"email":"jane.park@example.com"}}`,
		agent.ProfileTau2A2A:    `{"tool_call":{"name":"find_user_by_email","arguments":{"email":"jane.park@example.com"}}}`,
		agent.ProfileStructured: `{"tool_calls":[{"arguments":{"email":"jane.park@example.com"},"name":"find_user_by_email"}]}`,
	}
	setup := agent.Setup{Policy: d.Policy, Tools: d.Tools}
	for _, n := range translation.ProfileNames() {
		name := agent.ProfileName(n)
		parts := profileByName(t, name).Render(setup, true, agent.Input{UserText: "Hi, I'm jane.park@example.com."})
		msg := a2a.NewMessage(a2a.MessageRoleUser, parts...)
		msg.ContextID = a2a.NewContextID()
		var got []a2a.Event
		for ev, err := range client.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: msg}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ev)
		}
		if len(got) != 1 {
			t.Fatalf("%s: %d events, want 1", name, len(got))
		}
		task, ok := got[0].(*a2a.Task)
		if !ok || task.Status.State != a2a.TaskStateCompleted || task.Status.Message == nil || task.ContextID != msg.ContextID {
			t.Fatalf("%s: got %#v, want a completed task in context %s", name, got[0], msg.ContextID)
		}
		m := task.Status.Message
		if m.Role != a2a.MessageRoleAgent || m.ContextID != msg.ContextID || partsText(m.Parts) != want[name] {
			t.Errorf("%s: status message %#v", name, m)
		}
		if err := conforms(name, m.Parts); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestEndToEndFastA2A plays mock tasks against the reference agent behind a
// fasta2a-shaped peer (pydantic-ai's Agent.to_a2a(): a 0.2.5 card, tasks
// polled with tasks/get, HTTP 500 to a message without
// acceptedOutputModes): proctor evaluates it as 0.3 and the agent earns
// reward 1, with the card's protocol version flagged as non-conformant.
func TestEndToEndFastA2A(t *testing.T) {
	d := mockDomain(t)
	ref, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	peer := agenttest.StartFastA2A(t, agenttest.FastA2AOptions{}, func(_ context.Context, contextID, text string) string {
		return ref.Reply(contextID, text)
	})
	client, err := a2aclient.Dial(t.Context(), peer.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	sim := rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{})
	for _, task := range d.Tasks[:3] {
		t.Run(task.ID, func(t *testing.T) {
			user, err := rollout.NewScriptedUser(&task)
			if err != nil {
				t.Fatal(err)
			}
			res, aborted := evaluation.Simulate(t.Context(), sim, scoring.NewScorer(d, false), &task, 0, a2aagent.New(client), user)
			if aborted {
				t.Fatal("simulation aborted")
			}
			if res.Reward != 1 || res.TerminationReason != result.TermUserStop || res.Error != "" {
				t.Errorf("reward %v, termination %s, error %q; reward info %+v", res.Reward, res.TerminationReason, res.Error, res.RewardInfo)
			}
			if !slices.ContainsFunc(res.NonConformant, func(s string) bool { return strings.Contains(s, "card declares protocol 0.2.5; evaluated as 0.3") }) {
				t.Errorf("non-conformant %q does not flag the card's protocol version", res.NonConformant)
			}
		})
	}
	if n := peer.Refused(); n != 0 {
		t.Errorf("the peer answered HTTP 500 to %d requests", n)
	}
}
