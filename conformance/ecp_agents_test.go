package conformance_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/refagent"
)

// agentArg, as the first argument of this test binary, makes it an ECP
// agent on stdin/stdout: the second argument is a fault (see ecpFault) or
// "refagent".
const agentArg = "proctor-ecp-test-agent"

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == agentArg {
		os.Exit(serveTestAgent(os.Args[2]))
	}
	os.Exit(m.Run())
}

// stdioTarget is the ecp+stdio: target that runs this test binary as an
// agent with fault (or the reference agent, for "refagent").
func stdioTarget(fault string) string {
	return ecp.SchemeStdio + strconv.Quote(os.Args[0]) + " " + agentArg + " " + strconv.Quote(fault)
}

// serveTestAgent serves one agent on stdin/stdout until stdin ends.
func serveTestAgent(fault string) int {
	if fault == "refagent" {
		if err := ecp.Serve(context.Background(), os.Stdin, os.Stdout, refagentHandler(), 0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	a := &faultyAgent{fault: ecpFault(fault)}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<20)
	for in.Scan() {
		replies, exit := a.answer(in.Bytes())
		for _, r := range replies {
			os.Stdout.Write(append(r, '\n'))
		}
		if exit {
			fmt.Fprintln(os.Stderr, "faulty agent: exiting on purpose")
			return 2
		}
	}
	return 0
}

func refagentHandler() ecp.Handler {
	d, err := mock.New()
	if err != nil {
		panic(err)
	}
	a, err := refagent.New(d)
	if err != nil {
		panic(err)
	}
	return a.ECP()
}

// wsTarget serves fresh agents with fault over WebSocket on loopback, one
// per connection, and returns the ecp+ws:// target.
func wsTarget(t *testing.T, fault ecpFault) string {
	t.Helper()
	hung := make(chan struct{})
	var h http.Handler
	if fault == "refagent" {
		h = ecp.WebSocketHandler(refagentHandler, 0)
	} else {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer conn.CloseNow()
			a := &faultyAgent{fault: fault, hung: hung}
			for {
				_, msg, err := conn.Read(r.Context())
				if err != nil {
					return
				}
				replies, exit := a.answer(msg)
				for _, reply := range replies {
					if conn.Write(r.Context(), websocket.MessageText, reply) != nil {
						return
					}
				}
				if exit {
					return
				}
			}
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { close(hung); srv.Close() })
	return "ecp+" + strings.Replace(srv.URL, "http://", "ws://", 1) + "/"
}

// ecpFault is how a test agent breaks the protocol; each breaks one
// requirement (or the few a crash takes with it).
type ecpFault string

// The faults.
const (
	faultNone           ecpFault = "none"
	faultNoName         ecpFault = "no-name"          // initialize without name
	faultVersion        ecpFault = "version"          // protocolVersion 0.2.0
	faultNoCapabilities ecpFault = "no-capabilities"  // initialize without capabilities
	faultStringFlag     ecpFault = "string-flag"      // supports_snapshots "no"
	faultResetFalse     ecpFault = "reset-false"      // reset answers false
	faultResetKeeps     ecpFault = "reset-keeps"      // reset keeps the step count
	faultBadStatus      ecpFault = "bad-status"       // status "finished"
	faultOutputNumber   ecpFault = "output-number"    // public_output 42
	faultNoUsage        ecpFault = "no-usage"         // steps without usage
	faultBadToolCall    ecpFault = "bad-tool-call"    // a tool call without a name
	faultPausedNoCalls  ecpFault = "paused-no-calls"  // paused without tool_calls
	faultMethodCode     ecpFault = "method-code"      // unknown method: -32603
	faultLenientParams  ecpFault = "lenient-params"   // a number input is taken
	faultLenientVersion ecpFault = "lenient-version"  // jsonrpc 1.0 is served
	faultSilentParse    ecpFault = "silent-parse"     // no answer to a non-JSON line
	faultCrashUnknown   ecpFault = "crash-unknown"    // exits on an unknown method
	faultCrashParse     ecpFault = "crash-parse"      // exits on a non-JSON line
	faultWrongID        ecpFault = "wrong-id"         // step responses carry another id
	faultNoJSONRPC      ecpFault = "no-jsonrpc"       // responses without "jsonrpc"
	faultHangStep       ecpFault = "hang-step"        // never answers agent/step
	faultCrashInit      ecpFault = "crash-init"       // exits on agent/initialize
	faultGarbage        ecpFault = "garbage"          // a log line before step replies
	faultEarlyStepCrash ecpFault = "early-step-crash" // exits on a step before initialize
	faultToolCalls      ecpFault = "tool-calls"       // a correct agent that calls a tool
)

// faultyAgent is a small hand-written ECP agent: correct but for its
// fault. A step answers with the input and the number of steps since the
// last reset, so that a reset that clears nothing shows.
type faultyAgent struct {
	fault ecpFault
	// hung is where a hanging agent waits: forever over stdio (the
	// runtime kills it), until the test ends over WebSocket.
	hung        <-chan struct{}
	initialized bool
	steps       int
}

// answer returns the messages to send for one incoming message, and
// whether the agent then exits.
func (a *faultyAgent) answer(msg []byte) (replies [][]byte, exit bool) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(msg, &req); err != nil || req == nil {
		switch a.fault {
		case faultSilentParse:
			return nil, false
		case faultCrashParse:
			return nil, true
		}
		return [][]byte{a.errorReply(nil, -32700, "parse error")}, false
	}
	id := req["id"]
	var version, method string
	_ = json.Unmarshal(req["method"], &method)
	if json.Unmarshal(req["jsonrpc"], &version) != nil || version != "2.0" || method == "" {
		if a.fault != faultLenientVersion || method == "" {
			return [][]byte{a.errorReply(id, -32600, "invalid request")}, false
		}
	}
	result, rpcErr, exit := a.call(method, req["params"])
	if exit {
		return nil, true
	}
	if rpcErr != 0 {
		return [][]byte{a.errorReply(id, rpcErr, "refused")}, false
	}
	if a.fault == faultWrongID && method == ecp.MethodStep {
		id = json.RawMessage("1000")
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": id, "result": result}
	if a.fault == faultNoJSONRPC {
		delete(reply, "jsonrpc")
	}
	b, _ := json.Marshal(reply)
	if a.fault == faultGarbage && method == ecp.MethodStep {
		return [][]byte{[]byte("log: stepping"), b}, false
	}
	return [][]byte{b}, false
}

func (a *faultyAgent) errorReply(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return b
}

// call runs one method: a result, or an error code, or exit.
func (a *faultyAgent) call(method string, params json.RawMessage) (any, int, bool) {
	switch method {
	case ecp.MethodInitialize:
		return a.initialize()
	case ecp.MethodReset:
		if a.fault != faultResetKeeps {
			a.steps = 0
		}
		return a.fault != faultResetFalse, 0, false
	case ecp.MethodStep:
		return a.step(params)
	}
	switch a.fault {
	case faultCrashUnknown:
		return nil, 0, true
	case faultMethodCode:
		return nil, -32603, false
	}
	return nil, -32601, false
}

func (a *faultyAgent) initialize() (any, int, bool) {
	if a.fault == faultCrashInit {
		return nil, 0, true
	}
	a.initialized = true
	res := map[string]any{"name": "faulty agent", "protocolVersion": "0.1.0", "capabilities": map[string]any{"supports_snapshots": false}}
	switch a.fault {
	case faultNoName:
		delete(res, "name")
	case faultVersion:
		res["protocolVersion"] = "0.2.0"
	case faultNoCapabilities:
		delete(res, "capabilities")
	case faultStringFlag:
		res["capabilities"] = map[string]any{"supports_snapshots": "no"}
	}
	return res, 0, false
}

func (a *faultyAgent) step(params json.RawMessage) (any, int, bool) {
	if !a.initialized && a.fault == faultEarlyStepCrash {
		return nil, 0, true
	}
	if a.fault == faultHangStep {
		<-a.hung
		return nil, 0, true
	}
	var p struct {
		Input   any             `json:"input"`
		Context json.RawMessage `json:"context"`
	}
	_ = json.Unmarshal(params, &p)
	input, isString := p.Input.(string)
	if !isString || (len(p.Context) > 0 && p.Context[0] != '{') {
		if a.fault != faultLenientParams {
			return nil, -32602, false
		}
		input = fmt.Sprint(p.Input)
	}
	a.steps++
	res := map[string]any{"status": "done", "public_output": fmt.Sprintf("you said %q (step %d)", input, a.steps),
		"private_thought": "thinking", "usage": map[string]any{"input": 3, "output": 5}}
	a.breakStep(res)
	return res, 0, false
}

// breakStep applies the step result faults.
func (a *faultyAgent) breakStep(res map[string]any) {
	switch a.fault {
	case faultBadStatus:
		res["status"] = "finished"
	case faultOutputNumber:
		res["public_output"] = 42
	case faultNoUsage:
		delete(res, "usage")
	case faultBadToolCall:
		res["status"], res["tool_calls"] = "paused", []any{map[string]any{"id": "c1", "arguments": map[string]any{}}}
	case faultPausedNoCalls:
		res["status"] = "paused"
	case faultToolCalls:
		res["status"] = "paused"
		res["tool_calls"] = []any{
			map[string]any{"id": "c1", "name": "lookup", "arguments": map[string]any{"q": "x"}},
			map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": "lookup", "arguments": `{"q": "y"}`}},
		}
	}
}
