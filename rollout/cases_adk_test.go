package rollout_test

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/runner"
	adka2a "google.golang.org/adk/server/adka2a/v2"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/functiontool"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

// Texts of weatherModel's script.
const (
	weatherQuestion = "What's the weather in Paris?"
	weatherAnswer   = "It is sunny in Paris, 21 degrees."
	weatherThought  = "The tool says sunny and 21."
	recallQuestion  = "Do you remember what I asked first?"
)

// weatherModel is an ADK model.LLM with a script: asked about the weather,
// it calls get_weather; given the tool's response, it answers with a
// thought and the forecast; asked to remember, it repeats the first thing
// the user asked in the session (so a second turn proves the session was
// kept). It keeps every request it gets.
type weatherModel struct {
	mu       sync.Mutex
	requests []*model.LLMRequest
}

func (*weatherModel) Name() string { return "weather-script" }

func (m *weatherModel) seen() []*model.LLMRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*model.LLMRequest(nil), m.requests...)
}

func (m *weatherModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	m.mu.Lock()
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	return func(yield func(*model.LLMResponse, error) bool) {
		yield(&model.LLMResponse{Content: weatherStep(req.Contents), TurnComplete: true,
			UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 40, CandidatesTokenCount: 9}}, nil)
	}
}

// weatherStep is the script's next content.
func weatherStep(contents []*genai.Content) *genai.Content {
	last := contents[len(contents)-1]
	if last.Parts[0].FunctionResponse != nil {
		return &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: weatherThought, Thought: true}, {Text: weatherAnswer},
		}}
	}
	said := userText(last)
	switch {
	case strings.Contains(said, recallQuestion):
		return genai.NewContentFromText("You first asked: "+userText(firstUser(contents)), genai.RoleModel)
	case strings.Contains(said, "Rome"):
		return &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
			{FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "get_weather", Args: map[string]any{"city": "Paris"}}},
			{FunctionCall: &genai.FunctionCall{ID: "call-2", Name: "get_weather", Args: map[string]any{"city": "Rome"}}},
		}}
	case strings.Contains(said, "weather"):
		return &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{
			ID: "call-1", Name: "get_weather", Args: map[string]any{"city": "Paris"}}}}}
	}
	return genai.NewContentFromText("Hello.", genai.RoleModel)
}

// userText is a user content's last text part: the user's words, after
// any context part.
func userText(c *genai.Content) string {
	text := ""
	for _, p := range c.Parts {
		if p.Text != "" {
			text = p.Text
		}
	}
	return text
}

func firstUser(contents []*genai.Content) *genai.Content {
	for _, c := range contents {
		if c.Role == genai.RoleUser && userText(c) != "" {
			return c
		}
	}
	return contents[0]
}

type weatherArgs struct {
	City string `json:"city"`
}

type forecast struct {
	Forecast string `json:"forecast"`
	TempC    int    `json:"temp_c"`
}

// userHeader maps the X-User-ID header to the caller, as an ADK
// deployment's authentication would: adka2a takes the session's user from
// the call context.
type userHeader struct {
	a2asrv.PassthroughCallInterceptor
}

func (userHeader) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if v, ok := cc.ServiceParams().Get("x-user-id"); ok && len(v) > 0 {
		cc.User = a2asrv.NewAuthenticatedUser(v[0], nil)
	}
	return ctx, nil, nil
}

// startWeatherAgent serves an ADK LLM agent with the get_weather function
// tool and weatherModel, through adka2a, on transport at protocol 1.0.
func startWeatherAgent(t *testing.T, transport string, streaming bool) (string, *weatherModel, session.Service) {
	t.Helper()
	getWeather, err := functiontool.New(functiontool.Config{Name: "get_weather", Description: "The weather in a city."},
		func(_ agent.ToolContext, args weatherArgs) (forecast, error) {
			return forecast{Forecast: "sunny", TempC: 21}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	m := &weatherModel{}
	ag, err := llmagent.New(llmagent.Config{Name: "weather", Model: m, Instruction: "Answer weather questions.", Tools: []tool.Tool{getWeather}})
	if err != nil {
		t.Fatal(err)
	}
	sessions := session.InMemoryService()
	exec := adka2a.NewExecutor(adka2a.ExecutorConfig{RunnerConfig: runner.Config{AppName: "weather", Agent: ag, SessionService: sessions}})
	base := agenttest.StartExecutorPeer(t, agenttest.Peer{Transport: transport, Protocol: "1.0", Streaming: streaming}, exec,
		a2asrv.WithCallInterceptors(userHeader{}))
	return base, m, sessions
}

func dialAgent(t *testing.T, base string) rollout.Agent {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, err := a2aclient.Dial(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return a2aagent.New(c)
}

func userMsg(text string) *evalset.Message {
	return &evalset.Message{Role: evalset.RoleUser, Content: text}
}

func assistantMsg(text, thought string) *evalset.Message {
	return &evalset.Message{Role: evalset.RoleAssistant, Content: text, ReasoningContent: thought}
}

// weatherCase asks for the weather, then whether the agent remembers.
func weatherCase() *evalset.Case {
	return &evalset.Case{
		ID:              "weather",
		ContextMessages: []*evalset.Message{{Role: evalset.RoleSystem, Content: "The user lives in Lyon."}},
		SessionInput:    &evalset.SessionInput{UserID: "alice"},
		Conversation: []*evalset.Invocation{
			{ID: "inv-1", UserContent: userMsg(weatherQuestion)},
			{ID: "inv-2", UserContent: userMsg(recallQuestion)},
		},
	}
}

// wantWeather is what weatherCase records against weatherModel.
func wantWeather(c *evalset.Case) []*evalset.Invocation {
	return []*evalset.Invocation{
		{ID: "inv-1", ContextMessages: c.ContextMessages, UserContent: c.Conversation[0].UserContent,
			Tools: []*evalset.Tool{{ID: "call-1", Name: "get_weather",
				Arguments: map[string]any{"city": "Paris"}, Result: map[string]any{"forecast": "sunny", "temp_c": float64(21)}}},
			FinalResponse: assistantMsg(weatherAnswer, weatherThought)},
		{ID: "inv-2", ContextMessages: c.ContextMessages, UserContent: c.Conversation[1].UserContent,
			FinalResponse: assistantMsg("You first asked: "+weatherQuestion, "")},
	}
}

// TestPlayADK plays a two-turn case against an ADK Go agent (llmagent, a
// function tool, adka2a) on JSON-RPC, HTTP+JSON and gRPC, streamed and
// not: the tool call with its arguments and result, the thought, the final
// answers and the second turn's memory of the first are recorded exactly;
// the case's context reaches the model once, and its user id names the
// session.
func TestPlayADK(t *testing.T) {
	for _, transport := range []string{"jsonrpc", "rest", "grpc"} {
		for _, streaming := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streaming=%v", transport, streaming), func(t *testing.T) {
				base, m, sessions := startWeatherAgent(t, transport, streaming)
				c := weatherCase()
				rec, err := rollout.NewCasePlayer(rollout.CaseOptions{}).Play(t.Context(), dialAgent(t, base), c)
				if err != nil {
					t.Fatal(err)
				}
				if rec.Error != "" {
					t.Fatalf("recording error: %s", rec.Error)
				}
				if diff := cmp.Diff(wantWeather(c), rec.Actual, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("actual invocations (-want +got):\n%s", diff)
				}
				checkWeatherTurns(t, rec, transport)
				checkContextSent(t, m)
				// The session is alice's, keyed by the case's context id.
				got, err := sessions.Get(t.Context(), &session.GetRequest{AppName: "weather", UserID: "alice", SessionID: rec.ContextID})
				if err != nil || got.Session == nil {
					t.Errorf("no session of user alice for context %s: %v", rec.ContextID, err)
				}
			})
		}
	}
}

func checkWeatherTurns(t *testing.T, rec *rollout.CaseRecording, transport string) {
	t.Helper()
	status := "200"
	if transport == "grpc" {
		status = "OK"
	}
	if len(rec.Requests) != 2 || rec.ContextID == "" || rec.UserID != "alice" {
		t.Fatalf("%d requests, context %q, user %q; want 2, a context, alice", len(rec.Requests), rec.ContextID, rec.UserID)
	}
	// Latency and tokens are the request's (ADK reports usage on streamed
	// artifact updates; unstreamed, a2aclient estimates it).
	want := []result.Turn{
		{State: "completed", Status: status, Thoughts: []string{weatherThought}},
		{State: "completed", Status: status},
	}
	for i := range want {
		r := rec.Requests[i]
		want[i].LatencyMS, want[i].InputTokens, want[i].OutputTokens = r.LatencyMS, r.InputTokens, r.OutputTokens
	}
	if diff := cmp.Diff(want, rec.Turns); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
}

// checkContextSent asserts that the case's context came before the
// user's words in the first turn's message, and only there.
func checkContextSent(t *testing.T, m *weatherModel) {
	t.Helper()
	var users [][]string
	reqs := m.seen()
	for _, c := range reqs[len(reqs)-1].Contents {
		if c.Role != genai.RoleUser || c.Parts[0].Text == "" {
			continue
		}
		var texts []string
		for _, p := range c.Parts {
			texts = append(texts, p.Text)
		}
		users = append(users, texts)
	}
	want := [][]string{
		{rollout.ContextText([]*evalset.Message{{Role: evalset.RoleSystem, Content: "The user lives in Lyon."}}), weatherQuestion},
		{recallQuestion},
	}
	if diff := cmp.Diff(want, users); diff != "" {
		t.Errorf("user contents the model saw last (-want +got):\n%s", diff)
	}
}

// TestPlayMaxSteps ends a case whose agent makes more tool calls in one
// invocation than the case's max_steps: the invocation is recorded with
// its calls, the next one is not sent.
func TestPlayMaxSteps(t *testing.T) {
	base, _, _ := startWeatherAgent(t, "jsonrpc", false)
	c := weatherCase()
	c.Conversation[0].UserContent = userMsg("What's the weather in Paris and Rome?")
	c.MaxSteps = 1
	rec, err := rollout.NewCasePlayer(rollout.CaseOptions{}).Play(t.Context(), dialAgent(t, base), c)
	if err != nil {
		t.Fatal(err)
	}
	want := "invocation 1: the agent made 2 tool calls, more than the case's max_steps of 1"
	if rec.Error != want || len(rec.Actual) != 1 || len(rec.Actual[0].Tools) != 2 || len(rec.Turns) != 1 || rec.Turns[0].Error == "" {
		t.Errorf("recording error %q, %d invocations (%d tools), turns %+v; want %q after the first invocation's 2 calls",
			rec.Error, len(rec.Actual), len(rec.Actual[0].Tools), rec.Turns, want)
	}
}
