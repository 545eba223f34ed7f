package llm_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/functiontool"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
)

type orderArgs struct {
	OrderID string `json:"order_id"`
}

type orderStatus struct {
	Status string `json:"status"`
}

// TestADKAgent runs each provider's model as an ADK llmagent's model,
// through ADK's runner, with a real function tool: ADK's own flow must
// see the call, run the tool, send its response back, and end with the
// model's text, streamed and not.
func TestADKAgent(t *testing.T) {
	for _, p := range fakeProviders() {
		for _, mode := range []agent.StreamingMode{agent.StreamingModeNone, agent.StreamingModeSSE} {
			t.Run(fmt.Sprintf("%s/%s", p.name, mode), func(t *testing.T) {
				srv := p.start(t, func(r llmtest.Request) llmtest.Reply {
					last := r.Messages[len(r.Messages)-1]
					if last.Role == "tool" {
						return llmtest.Reply{Text: "Order A1 is " + last.ToolResult + ".", InputTokens: 40, OutputTokens: 8}
					}
					// No ID: ADK must cope with providers that send none.
					return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "get_order", Args: map[string]any{"order_id": "A1"}}}, InputTokens: 30, OutputTokens: 5}
				})
				var ran atomic.Int32
				getOrder, err := functiontool.New(functiontool.Config{Name: "get_order", Description: "Look up an order."},
					func(_ agent.ToolContext, args orderArgs) (orderStatus, error) {
						ran.Add(1)
						if args.OrderID != "A1" {
							return orderStatus{}, fmt.Errorf("unknown order %q", args.OrderID)
						}
						return orderStatus{Status: "shipped"}, nil
					})
				if err != nil {
					t.Fatal(err)
				}
				ag, err := llmagent.New(llmagent.Config{
					Name: "support", Model: newModel(t, p, srv, llm.Config{}),
					Instruction: "Answer questions about orders.", Tools: []tool.Tool{getOrder},
				})
				if err != nil {
					t.Fatal(err)
				}
				r, err := runner.New(runner.Config{AppName: "test", Agent: ag, SessionService: session.InMemoryService(), AutoCreateSession: true})
				if err != nil {
					t.Fatal(err)
				}
				var final string
				var tokens int32
				for ev, err := range r.Run(testCtx(t), "user", "s1", genai.NewContentFromText("Where is A1?", genai.RoleUser), agent.RunConfig{StreamingMode: mode}) {
					if err != nil {
						t.Fatal(err)
					}
					if ev.Partial || ev.Content == nil {
						continue
					}
					if ev.UsageMetadata != nil {
						tokens += ev.UsageMetadata.TotalTokenCount
					}
					for _, part := range ev.Content.Parts {
						if part.Text != "" {
							final = part.Text
						}
					}
				}
				if ran.Load() != 1 {
					t.Errorf("the tool ran %d times, want 1", ran.Load())
				}
				if final != `Order A1 is {"status":"shipped"}.` {
					t.Errorf("final text %q", final)
				}
				if tokens != 35+48 {
					t.Errorf("events carried %d tokens, want %d", tokens, 35+48)
				}
				reqs := srv.Requests()
				if len(reqs) != 2 {
					t.Fatalf("%d model requests, want 2", len(reqs))
				}
				if !strings.Contains(reqs[0].System, "Answer questions about orders.") || len(reqs[0].Tools) != 1 {
					t.Errorf("first request: system %q tools %v", reqs[0].System, reqs[0].Tools)
				}
				msgs := reqs[1].Messages
				call, result := msgs[len(msgs)-2], msgs[len(msgs)-1]
				// ADK strips the IDs it made up before calling the model: Gemini
				// pairs calls and responses by name, OpenAI needs the IDs the
				// adapter generates.
				if len(call.ToolCalls) != 1 || result.Role != "tool" || result.ToolName != "get_order" ||
					call.ToolCalls[0].ID != result.ToolCallID || (p.name == "openai" && call.ToolCalls[0].ID == "") {
					t.Errorf("second request ends %+v, %+v", call, result)
				}
			})
		}
	}
}
