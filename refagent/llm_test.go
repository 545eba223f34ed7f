package refagent

import (
	"context"
	"fmt"
	"iter"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/adk/model"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

// recordingModel answers every call with a respond call and keeps the
// requests.
type recordingModel struct {
	mu   sync.Mutex
	reqs []*model.LLMRequest
}

func (m *recordingModel) Name() string { return "fake-baseline" }

func (m *recordingModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		m.mu.Lock()
		m.reqs = append(m.reqs, req)
		n := len(m.reqs)
		m.mu.Unlock()
		reply := `{"name": "respond", "arguments": {"content": "Could you tell me your email?"}}`
		if n > 1 {
			reply = `{"name": "respond", "arguments": {"content": "Thank you, goodbye."}}`
		}
		yield(&model.LLMResponse{Content: genai.NewContentFromText(reply, genai.RoleModel), TurnComplete: true}, nil)
	}
}

// dialBaseline serves the baseline agent with cfg on a loopback port until
// the test ends, and dials it.
func dialBaseline(t *testing.T, cfg BaselineConfig) *a2aclient.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeBaseline(ctx, ln, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeBaseline: %v", err)
		}
	})
	client, err := a2aclient.Dial(context.Background(), BaseURL(ln.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

func TestBaselineAgentFollowsTheAgentBeatsProfile(t *testing.T) {
	d := mockDomain(t)
	fm := &recordingModel{}
	client := dialBaseline(t, BaselineConfig{Model: fm, Domain: d.Name})
	if !strings.Contains(client.Card().Name, "fake-baseline") {
		t.Errorf("card name %q does not name the model", client.Card().Name)
	}
	task, _ := d.Task("mock-12")
	user, _ := rollout.NewScriptedUser(task)
	res, _ := evaluation.Simulate(context.Background(), rollout.NewSimulator(d, "agentbeats", rollout.Limits{}), scoring.NewScorer(d, false), task, 0, a2aagent.New(client), user)
	if res.TerminationReason != result.TermUserStop {
		t.Fatalf("termination %s (%s)", res.TerminationReason, res.Error)
	}
	var agentSaid []string
	for _, m := range res.Messages {
		if m.Role == result.RoleAssistant {
			agentSaid = append(agentSaid, m.Content)
		}
	}
	if len(agentSaid) < 3 || agentSaid[1] != "Could you tell me your email?" || agentSaid[2] != "Thank you, goodbye." {
		t.Fatalf("the respond calls did not reach the user as text: %q", agentSaid)
	}
	fm.mu.Lock()
	reqs := fm.reqs
	fm.mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	first := reqs[0]
	var sys strings.Builder
	for _, p := range first.Config.SystemInstruction.Parts {
		sys.WriteString(p.Text)
	}
	if !strings.Contains(sys.String(), `"name": "respond"`) || first.Config.ResponseMIMEType != "application/json" {
		t.Errorf("system instruction / config: %q %q", sys.String(), first.Config.ResponseMIMEType)
	}
	firstText := first.Contents[len(first.Contents)-1].Parts[0].Text
	if !strings.Contains(firstText, d.Policy[:40]) || !strings.Contains(firstText, "find_user") && !strings.Contains(firstText, "\"name\"") {
		t.Errorf("the first message lacks the policy or tools: %.200q", firstText)
	}
	// The second call carries the conversation so far: the session keeps it.
	if n := len(reqs[1].Contents); n < 3 {
		t.Errorf("second call has %d contents; the conversation's history is lost", n)
	}
}

// TestBaselineForgetsTheLeastRecentConversations: a baseline keeping
// bound conversations' sessions answers a conversation continued after
// bound later ones had a turn from its new message alone, its history
// forgotten, while a recent conversation continues with its history.
func TestBaselineForgetsTheLeastRecentConversations(t *testing.T) {
	// Conversations A, B, C say their first words; then C and A their
	// second.
	turns := []string{"A", "B", "C", "C", "A"}
	cases := []struct {
		name  string
		bound int
		want  []int // the contents of each turn's model call
	}{
		{name: "two kept: A forgotten", bound: 2, want: []int{1, 1, 1, 3, 1}},
		{name: "three kept: A continues", bound: 3, want: []int{1, 1, 1, 3, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fm := &recordingModel{}
			h, err := newBaselineHandler(BaselineConfig{Model: fm}, "http://127.0.0.1/", tc.bound)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			client, err := sdkclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{
				a2a.NewAgentInterface(srv.URL, a2a.TransportProtocolJSONRPC),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { client.Destroy() })
			for i, conv := range turns {
				msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(fmt.Sprintf("turn %d of %s", i, conv)))
				msg.ContextID = "conversation-" + conv
				if _, err := client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: msg}); err != nil {
					t.Fatalf("turn %d of %s: %v", i, conv, err)
				}
			}
			fm.mu.Lock()
			var got []int
			for _, req := range fm.reqs {
				got = append(got, len(req.Contents))
			}
			fm.mu.Unlock()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("contents of each model call (-want +got):\n%s", diff)
			}
		})
	}
}
