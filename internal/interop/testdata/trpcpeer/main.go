// Command trpcpeer serves an agent built with tRPC-Agent-Go (its LLM agent
// behind server/a2a, v1.11.2) for proctor's interoperability tests. The
// agent's model is a scripted model.Model, so no provider is needed; all the
// rest (the runner, sessions, the tool-call flow, the A2A server and its
// event conversion) is the framework's own.
//
//	go run . --mode refuse|toolcall|evaltool|calc [--port 0] [--host 127.0.0.1]
//	go run . eval --data DIR --app APP --set ID[,ID...] --out DIR [--runs N]
//
// The eval subcommand runs tRPC-Agent-Go's own evaluator (evaluation
// v1.10.0) on the calculator agent of --mode calc; see eval.go.
//
// The agent card is the one server/a2a builds itself: 0.3-style, with only
// url (no preferredTransport, no protocolVersion), JSON-RPC at "/". Once the
// server listens, exactly one line goes to stdout:
//
//	READY http://127.0.0.1:43211
//
// The process exits on SIGTERM, SIGINT and when its stdin closes, so that it
// never outlives the test that started it. The framework's logs go to
// stderr.
//
// The scripts play task mock-01 of proctor's mock domain:
//
//   - refuse: every turn is the same refusal text.
//   - toolcall: the first turn of a conversation is a call of the agent's
//     tool find_user_by_email with the email the user gave. The tool is
//     registered with the agent but executed by the caller (a run option
//     tells the framework to execute no tool), so the run ends with the
//     call, which server/a2a sends as a data part. The turn that brings the
//     tool's result is answered with a text naming the user found; any later
//     turn with "You're welcome.". Which turn is the first is read from the
//     conversation the framework gives the model: its session history, kept
//     by context id and the anonymous-user cookie server/a2a sets.
//
// Mode calc serves another agent, the calculator of calcagent.go, whose
// tools (calculator, current_time) the framework executes itself; its
// script is keyed by the user's exact words. The eval subcommand runs the
// same agent.
//
// With streaming asked for, text is streamed as the OpenAI adapters do: a
// few partial deltas, then the whole message again under the same response
// id (server/a2a turns each into an artifact update of the same artifact).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	a2alog "trpc.group/trpc-go/trpc-a2a-go/log"
	"trpc.group/trpc-go/trpc-agent-go/agent"
	"trpc.group/trpc-go/trpc-agent-go/agent/llmagent"
	trpclog "trpc.group/trpc-go/trpc-agent-go/log"
	"trpc.group/trpc-go/trpc-agent-go/model"
	a2aserver "trpc.group/trpc-go/trpc-agent-go/server/a2a"
	"trpc.group/trpc-go/trpc-agent-go/tool"
	"trpc.group/trpc-go/trpc-agent-go/tool/function"
)

// Mode is the script the agent's model follows.
type Mode string

// Modes.
const (
	ModeRefuse   Mode = "refuse"
	ModeToolCall Mode = "toolcall"
)

// Texts the scripts answer with. internal/interop/trpc_test.go expects
// exactly these.
const (
	RefusalText = "I'm sorry, but I can't help with that."
	WelcomeText = "You're welcome."
	// FoundFormat names the user a find_user_by_email result identifies.
	FoundFormat = "I found your account, %s (user id %s). What else can I do for you?"
)

// toolResultPrefix starts the text proctor's agentbeats profile sends a
// tool's result in.
const toolResultPrefix = "Tool call result (find_user_by_email):"

var emailRE = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "trpcpeer: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) > 1 && os.Args[1] == "eval" {
		return runEval(os.Args[2:])
	}
	fs := flag.NewFlagSet("trpcpeer", flag.ContinueOnError)
	mode := fs.String("mode", string(ModeRefuse), "script: refuse, toolcall, evaltool or calc")
	port := fs.Int("port", 0, "port to listen on (0 picks a free one)")
	host := fs.String("host", "127.0.0.1", "address to listen on")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if m := Mode(*mode); m != ModeRefuse && m != ModeToolCall && m != ModeEvalTool && m != ModeCalc {
		fmt.Fprintf(os.Stderr, "trpcpeer: unknown --mode %q: want refuse, toolcall, evaltool or calc\n", *mode)
		os.Exit(2)
	}
	logToStderr()

	ln, err := net.Listen("tcp", net.JoinHostPort(*host, fmt.Sprint(*port)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	handler, err := newHandler(Mode(*mode), base)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Printf("READY %s\n", base)

	select {
	case <-stopRequested():
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	}
	_ = srv.Close()
	return nil
}

// newHandler builds the agent and the A2A server around it. The card is
// the one server/a2a makes from the agent (NewAgentCard), with base as its
// url.
func newHandler(mode Mode, base string) (http.Handler, error) {
	if mode == ModeEvalTool {
		return newEvalToolHandler(base)
	}
	if mode == ModeCalc {
		return newCalcHandler(base)
	}
	tools := mockTools()
	ag := llmagent.New("taskly_helper",
		llmagent.WithModel(scriptModel{mode: mode}),
		llmagent.WithDescription("Helps Taskly users with their tasks (tRPC-Agent-Go, scripted model)."),
		llmagent.WithInstruction("Follow the policy you are given."),
		llmagent.WithTools(tools),
		llmagent.WithGenerationConfig(model.GenerationConfig{Stream: true}),
	)
	srv, err := a2aserver.New(
		a2aserver.WithAgent(ag, true),
		a2aserver.WithHost(base),
		// The tools belong to the environment proctor simulates: the
		// framework ends the run at a call and the caller executes it.
		a2aserver.WithRunOptions(agent.WithToolExecutionFilter(func(context.Context, tool.Tool) bool { return false })),
	)
	if err != nil {
		return nil, fmt.Errorf("build the A2A server: %w", err)
	}
	return srv.Handler(), nil
}

// findUserInput is find_user_by_email's argument object.
type findUserInput struct {
	Email string `json:"email"`
}

// listTasksInput is list_tasks' argument object.
type listTasksInput struct {
	UserID string `json:"user_id"`
}

// errCallerExecutes is what the tools would answer were the framework to
// execute them itself, which the run option forbids.
var errCallerExecutes = errors.New("this tool is executed by the caller")

// mockTools are two tools of proctor's mock domain, declared for the model.
func mockTools() []tool.Tool {
	return []tool.Tool{
		function.NewFunctionTool(func(context.Context, findUserInput) (map[string]any, error) {
			return nil, errCallerExecutes
		}, function.WithName("find_user_by_email"), function.WithDescription("Find a Taskly user by email; returns the user id.")),
		function.NewFunctionTool(func(context.Context, listTasksInput) (map[string]any, error) {
			return nil, errCallerExecutes
		}, function.WithName("list_tasks"), function.WithDescription("List a user's tasks.")),
	}
}

// scriptModel is a model.Model that follows its mode's script.
type scriptModel struct{ mode Mode }

// Info names the model.
func (scriptModel) Info() model.Info { return model.Info{Name: "proctor-script"} }

// GenerateContent answers the request with the script's next step.
func (m scriptModel) GenerateContent(_ context.Context, req *model.Request) (<-chan *model.Response, error) {
	if req == nil {
		return nil, errors.New("nil request")
	}
	id := responseID()
	out := make(chan *model.Response, 8)
	defer close(out)
	if call, ok := m.toolCall(req.Messages); ok {
		out <- &model.Response{
			ID: id, Object: model.ObjectTypeChatCompletion, Created: time.Now().Unix(), Model: "proctor-script", Done: true,
			Choices: []model.Choice{{Message: model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{call}}, FinishReason: ptr("tool_calls")}},
		}
		return out, nil
	}
	text := m.text(req.Messages)
	if req.GenerationConfig.Stream {
		for _, chunk := range chunks(text) {
			out <- &model.Response{
				ID: id, Object: model.ObjectTypeChatCompletionChunk, Created: time.Now().Unix(), Model: "proctor-script", IsPartial: true,
				Choices: []model.Choice{{Delta: model.Message{Role: model.RoleAssistant, Content: chunk}}},
			}
		}
	}
	out <- &model.Response{
		ID: id, Object: model.ObjectTypeChatCompletion, Created: time.Now().Unix(), Model: "proctor-script", Done: true,
		Choices: []model.Choice{{Message: model.Message{Role: model.RoleAssistant, Content: text}, FinishReason: ptr("stop")}},
		Usage:   &model.Usage{PromptTokens: len(lastUserText(req.Messages)), CompletionTokens: len(text), TotalTokens: len(lastUserText(req.Messages)) + len(text)},
	}
	return out, nil
}

// toolCall returns the call the toolcall script makes on the first turn of a
// conversation: the only user message the model has been given.
func (m scriptModel) toolCall(msgs []model.Message) (model.ToolCall, bool) {
	if m.mode != ModeToolCall || userMessages(msgs) != 1 {
		return model.ToolCall{}, false
	}
	// The user's words come last, after the policy (which has example
	// addresses of its own).
	emails := emailRE.FindAllString(lastUserText(msgs), -1)
	if len(emails) == 0 {
		return model.ToolCall{}, false
	}
	email := emails[len(emails)-1]
	args, _ := json.Marshal(findUserInput{Email: email})
	return model.ToolCall{Type: "function", ID: "call_find_user_1", Function: model.FunctionDefinitionParam{Name: "find_user_by_email", Arguments: args}}, true
}

// text is the script's text reply.
func (m scriptModel) text(msgs []model.Message) string {
	if m.mode == ModeRefuse {
		return RefusalText
	}
	last := lastUserText(msgs)
	if _, result, ok := strings.Cut(last, toolResultPrefix); ok {
		var user struct {
			Name   string `json:"name"`
			UserID string `json:"user_id"`
		}
		if json.Unmarshal([]byte(firstBlock(result)), &user) == nil && user.UserID != "" {
			return fmt.Sprintf(FoundFormat, user.Name, user.UserID)
		}
		return "Sorry, I could not find your account."
	}
	if userMessages(msgs) == 1 {
		return "Could you tell me the email address of your Taskly account?"
	}
	return WelcomeText
}

func userMessages(msgs []model.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == model.RoleUser {
			n++
		}
	}
	return n
}

func lastUserText(msgs []model.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == model.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// firstBlock is a tool result up to the blank line that ends it.
func firstBlock(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// chunks splits text into three deltas at word boundaries, as a provider
// streams it.
func chunks(text string) []string {
	words := strings.SplitAfter(text, " ")
	if len(words) < 3 {
		return []string{text}
	}
	a, b := len(words)/3, 2*len(words)/3
	return []string{strings.Join(words[:a], ""), strings.Join(words[a:b], ""), strings.Join(words[b:], "")}
}

func responseID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "chatcmpl-" + hex.EncodeToString(b[:])
}

func ptr[T any](v T) *T { return &v }

// logToStderr moves the framework's logs (zap, to stdout by default) to
// stderr at warning level: stdout carries the READY line alone.
func logToStderr() {
	l := zap.New(zapcore.NewCore(
		zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()),
		zapcore.AddSync(os.Stderr),
		zapcore.WarnLevel,
	)).Sugar()
	trpclog.Default, trpclog.ContextDefault, a2alog.Default = l, l, l
}

// stopRequested is closed on SIGTERM, SIGINT or when stdin closes.
func stopRequested() <-chan struct{} {
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	eof := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(eof)
	}()
	go func() {
		select {
		case <-sig:
		case <-eof:
		}
		close(stop)
	}()
	return stop
}
