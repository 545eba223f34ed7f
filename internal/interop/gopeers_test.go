//go:build unix

package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/runner"
	adka2a "google.golang.org/adk/server/adka2a/v2"
	"google.golang.org/adk/session"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/translation"
)

// scriptReply is the JavaScript peer's script (decide in server.mjs) in Go,
// so that a2a-go and ADK peers play exactly the same agent.
func scriptReply(_ context.Context, _, text string) string {
	if name, content, ok := lastToolResult(text); ok {
		if strings.HasPrefix(content, "Error") {
			return respondJSON("Sorry, that did not work: " + content)
		}
		var value struct {
			UserID string `json:"user_id"`
			Tasks  []struct {
				Title, Status, Priority string
			} `json:"tasks"`
		}
		decoded := json.Unmarshal([]byte(content), &value) == nil
		switch {
		case name == "find_user_by_email" && decoded && value.UserID != "":
			return callJSON("list_tasks", map[string]any{"user_id": value.UserID})
		case name == "list_tasks" && decoded && value.Tasks != nil:
			open, high := 0, []string{}
			for _, t := range value.Tasks {
				if t.Status != "done" {
					open++
					if t.Priority == "high" {
						high = append(high, fmt.Sprintf("%q", t.Title))
					}
				}
			}
			which := "None of them is high priority."
			if len(high) > 0 {
				which = "The high-priority one is " + strings.Join(high, " and ") + "."
			}
			return respondJSON(fmt.Sprintf("You have %d tasks that are not done yet. %s", open, which))
		}
		return respondJSON("Thanks, I have noted that.")
	}
	if strings.Contains(text, translation.PolicyOpen) {
		if email := emailRE.FindString(userSaid(text)); email != "" {
			return callJSON("find_user_by_email", map[string]any{"email": email})
		}
		return respondJSON("Could you tell me the email address of your Taskly account?")
	}
	return respondJSON("You're welcome.")
}

var (
	emailRE      = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	toolResultRE = regexp.MustCompile(`(?m)^Tool call result \(([^)\n]+)\):\n`)
)

func lastToolResult(text string) (name, content string, ok bool) {
	idx := toolResultRE.FindAllStringSubmatchIndex(text, -1)
	if len(idx) == 0 {
		return "", "", false
	}
	last := idx[len(idx)-1]
	content = text[last[1]:]
	if end := strings.Index(content, "\n\n"+translation.AgentBeatsUserPrefix); end >= 0 {
		content = content[:end]
	}
	return text[last[2]:last[3]], strings.TrimSpace(content), true
}

func userSaid(text string) string {
	i := strings.LastIndex(text, translation.AgentBeatsUserPrefix)
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(text[i+len(translation.AgentBeatsUserPrefix):])
}

func callJSON(name string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
	return string(b)
}

func respondJSON(content string) string {
	return callJSON(translation.RespondTool, map[string]any{"content": content})
}

// startGoPeer serves the script with a2a-go on a transport and version.
func startGoPeer(t *testing.T, transport, protocol string) string {
	return agenttest.StartPeer(t, agenttest.Peer{Transport: transport, Protocol: protocol, Streaming: true}, scriptReply)
}

// scriptModel is an ADK model.LLM that needs no provider: it answers the
// latest user turn with the script. It reports usage as a provider would,
// so the ADK peer also tests reading reported tokens.
type scriptModel struct{}

func (scriptModel) Name() string { return "proctor-script" }

func (scriptModel) GenerateContent(ctx context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		var last string
		for _, c := range req.Contents {
			if c != nil && c.Role == genai.RoleUser {
				var b strings.Builder
				for _, p := range c.Parts {
					if p != nil {
						b.WriteString(p.Text)
					}
				}
				last = b.String()
			}
		}
		reply := scriptReply(ctx, "", last)
		yield(&model.LLMResponse{
			Content:      genai.NewContentFromText(reply, genai.RoleModel),
			TurnComplete: true,
			UsageMetadata: &genai.GenerateContentResponseUsageMetadata{
				PromptTokenCount:     int32(len(last)),
				CandidatesTokenCount: int32(len(reply)),
			},
		}, nil)
	}
}

// startADKPeer serves an ADK LLM agent, with the script as its model,
// through ADK's A2A executor (server/adka2a/v2) on a2a-go's JSON-RPC server.
func startADKPeer(t *testing.T) string {
	t.Helper()
	ag, err := llmagent.New(llmagent.Config{
		Name:        "taskly_helper",
		Model:       scriptModel{},
		Description: "Helps Taskly users with their tasks.",
		Instruction: "Follow the policy you are given.",
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	card := &a2a.AgentCard{
		Name:                ag.Name(),
		Description:         ag.Description(),
		Version:             "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text/plain"},
		DefaultOutputModes:  []string{"text/plain"},
		Skills:              adka2a.BuildAgentSkills(ag),
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
	}
	executor := adka2a.NewExecutor(adka2a.ExecutorConfig{RunnerConfig: runner.Config{
		AppName: ag.Name(), Agent: ag, SessionService: session.InMemoryService(),
	}})
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(executor)))
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return base
}
