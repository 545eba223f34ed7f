package ecp

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/proctor-eval/proctor/result"
)

// ProtocolVersion is the ECP version proctor speaks.
const ProtocolVersion = "0.1.0"

// The ECP methods.
const (
	MethodInitialize = "agent/initialize"
	MethodReset      = "agent/reset"
	MethodStep       = "agent/step"
	MethodInspect    = "agent/inspect"
)

// ErrorCode is a JSON-RPC error code.
type ErrorCode int

// JSON-RPC 2.0's codes and ECP's own.
const (
	CodeParseError        ErrorCode = -32700
	CodeInvalidRequest    ErrorCode = -32600
	CodeMethodNotFound    ErrorCode = -32601
	CodeInvalidParams     ErrorCode = -32602
	CodeInternalError     ErrorCode = -32603
	CodeContextOverflow   ErrorCode = -32001
	CodeSafetyViolation   ErrorCode = -32002
	CodeCapabilityMissing ErrorCode = -32003
)

// Sentinels an *RPCError with an ECP code matches with errors.Is.
var (
	ErrContextOverflow   = errors.New("ecp: ContextOverflow")
	ErrSafetyViolation   = errors.New("ecp: SafetyViolation")
	ErrCapabilityMissing = errors.New("ecp: CapabilityMissing")
)

// RPCError is a JSON-RPC error object, as an agent answered it.
type RPCError struct {
	Code    ErrorCode       `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements error.
func (e *RPCError) Error() string {
	name := ""
	switch e.Code {
	case CodeContextOverflow:
		name = " ContextOverflow"
	case CodeSafetyViolation:
		name = " SafetyViolation"
	case CodeCapabilityMissing:
		name = " CapabilityMissing"
	}
	return fmt.Sprintf("JSON-RPC error %d%s: %s", e.Code, name, e.Message)
}

// Is matches the ECP sentinels by code.
func (e *RPCError) Is(target error) bool {
	switch target {
	case ErrContextOverflow:
		return e.Code == CodeContextOverflow
	case ErrSafetyViolation:
		return e.Code == CodeSafetyViolation
	case ErrCapabilityMissing:
		return e.Code == CodeCapabilityMissing
	}
	return false
}

// TerminationReason is the recorded outcome of a simulation the error
// ends: its own for the ECP codes, agent_error for the others.
func (e *RPCError) TerminationReason() result.TerminationReason {
	switch e.Code {
	case CodeContextOverflow:
		return result.TermContextOverflow
	case CodeSafetyViolation:
		return result.TermSafetyViolation
	case CodeCapabilityMissing:
		return result.TermCapabilityMissing
	}
	return result.TermAgentError
}

// request is a JSON-RPC request (ID nil for a notification).
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  any             `json:"params,omitempty"`
}

// envelope is any incoming JSON-RPC message.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCError       `json:"error"`
}

// response is an outgoing JSON-RPC response.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// InitializeParams are agent/initialize's parameters.
type InitializeParams struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Config          map[string]any `json:"config"`
	Capabilities    map[string]any `json:"capabilities"`
}

// InitializeResult is agent/initialize's result.
type InitializeResult struct {
	Name              string         `json:"name"`
	ProtocolVersion   string         `json:"protocolVersion,omitempty"`
	Capabilities      map[string]any `json:"capabilities,omitempty"`
	SupportsSnapshots bool           `json:"supports_snapshots,omitempty"`
	SupportsSteering  bool           `json:"supports_steering,omitempty"`
}

// InputKind says what a step's input is.
type InputKind string

// The input kinds.
const (
	KindUser        InputKind = "user"
	KindToolResults InputKind = "tool_results"
)

// StepContext is agent/step's context: the simulated clock, the user and
// what the input is; the first step after a reset also carries the policy,
// the tools and the message history.
type StepContext struct {
	Time    string          `json:"time"`
	UserID  string          `json:"user_id"`
	Kind    InputKind       `json:"kind"`
	Policy  string          `json:"policy,omitempty"`
	Tools   json.RawMessage `json:"tools,omitempty"`
	History json.RawMessage `json:"history,omitempty"`
}

// StepParams are agent/step's parameters.
type StepParams struct {
	Input   string      `json:"input"`
	Context StepContext `json:"context"`
}

// Status is a step's status.
type Status string

// The step statuses.
const (
	StatusDone    Status = "done"
	StatusPaused  Status = "paused"
	StatusRunning Status = "running"
)

// Usage is a step's token counts; it reads the spec's {"input", "output"}
// and the common {"input_tokens", "output_tokens"} and {"prompt_tokens",
// "completion_tokens"}.
type Usage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	// Reported is false when the step had no usage.
	Reported bool `json:"-"`
}

// UnmarshalJSON reads any of the usage shapes.
func (u *Usage) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		*u = Usage{}
		return nil // a malformed usage is no usage, not a failed step
	}
	read := func(keys ...string) int64 {
		for _, k := range keys {
			var n int64
			if v, ok := raw[k]; ok && json.Unmarshal(v, &n) == nil && n >= 0 {
				u.Reported = true
				return n
			}
		}
		return 0
	}
	u.Input = read("input", "input_tokens", "prompt_tokens")
	u.Output = read("output", "output_tokens", "completion_tokens")
	return nil
}

// StepResult is agent/step's result.
type StepResult struct {
	Status         Status     `json:"status"`
	PublicOutput   *string    `json:"public_output"`
	PrivateThought *string    `json:"private_thought"`
	ToolCalls      []ToolCall `json:"tool_calls"`
	Usage          *Usage     `json:"usage,omitempty"`
}

// ToolResult is one entry of a tool-results input.
type ToolResult struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Content string `json:"content"`
	Error   bool   `json:"error"`
}

// ToolResults is the object a tool-results input holds, as JSON text.
type ToolResults struct {
	ToolResults []ToolResult `json:"tool_results"`
}
