/*
Package agent is the one interface through which proctor speaks to the
agent under evaluation, whatever its protocol: an [Agent] opens
[Conversation]s, and a conversation takes one [Request] at a time (what the
agent is given) and returns an [Answer] (what it answered: text or tool
calls, private thought, interim text, tools it ran itself, request metrics
with usage and timing).

The simulator and the eval-case player (package rollout) speak only this
interface. The adapters sit beneath it, side by side: package a2aagent
for A2A agents (an a2aclient.Client) and package ecp for ECP agents (a
pool of processes or WebSocket peers). Neither the rollout nor the scorers
import a protocol package, and the adapters import neither of them.

The package also holds what a request and an answer carry, whatever the
protocol: the domain's [Setup] (whose profile renderings [Setup.Derived]
keeps once per evaluation), the [Input], the parsed [Reply] with its
[ReplyFormat], and the [ProfileName] of the translation profile a text
agent is told through (the profiles themselves render A2A parts, in
package translation, which imports this one).

The package is a leaf of plain data and interfaces: of proctor it imports
only domains (tools, tool calls and results), evalset (the shape of a tool
the agent ran) and measure (request metrics), and nothing of a protocol
(internal/layering checks it).
*/
package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/measure"
)

// DefaultMaxRunning bounds the consecutive "running" steps of one request
// when neither the conversation nor the request sets a bound (tau2-bench's
// default step limit).
const DefaultMaxRunning = 100

// Agent opens conversations with the agent under evaluation.
type Agent interface {
	NewConversation() Conversation
}

// HeaderAgent is an Agent whose conversations can carry headers of their
// own on every request (an eval case's user id, X-User-ID).
type HeaderAgent interface {
	Agent
	NewConversationWithHeaders(h http.Header) Conversation
}

// Conversation is one dialogue with the agent under evaluation: one
// simulation, or one eval case.
type Conversation interface {
	// ContextID names the conversation (the A2A context id, or a fresh id
	// for a protocol without one).
	ContextID() string
	// Step gives the agent one input and returns its answer. The answer
	// is not nil even with an error when requests were made: their
	// metrics, and whatever the agent said before it failed, are in it.
	Step(ctx context.Context, req Request) (*Answer, error)
	// Close ends the conversation (an ECP agent goes back to its pool).
	// The caller calls it once, when the simulation or case ends.
	Close() error
}

// Inspector is a Conversation whose agent can be asked for its own state
// after a case (ECP's agent/inspect).
type Inspector interface {
	// Inspect returns the value at path, with the call's metrics (zero
	// when no call was made).
	Inspect(ctx context.Context, path string) (json.RawMessage, measure.Request, error)
}

// Request is what the agent is given in one step.
type Request struct {
	// Setup is the domain's policy and tools; First says the request is
	// the conversation's first, which carries them.
	Setup Setup
	First bool
	// Input is the user's words or the results of the agent's tool calls.
	Input Input
	// Profile, when set, names how an agent that reads text is told Setup
	// and Input, and how its text is read back as a reply (simulations
	// over A2A: the A2A adapter renders through the translation profile of
	// that name). "" sends Input as it is (eval cases). Agents with shapes
	// of their own for tools (ECP) ignore it.
	Profile ProfileName
	// Pieces, when set, are Input.UserText as the pieces it was put
	// together from (an eval case's context blocks, then the user's
	// content parts): an agent whose messages have parts (A2A) is sent
	// one part each, others Input.UserText.
	Pieces []string
	// UserID names the simulation's or case's user; Time is the simulated
	// clock, so that replays see the same times.
	UserID string
	Time   time.Time
	// MaxRunning, when positive, bounds the consecutive "running" steps of
	// this request in place of the conversation's own bound (an eval
	// case's max_steps).
	MaxRunning int
}

// Answer is what the agent answered to one Request.
type Answer struct {
	// Reply is the text for the user, or the tool calls for proctor to run
	// (every call with a Name, non-nil Arguments and an ID unique within
	// the reply).
	Reply Reply
	// PrivateThought is the agent's reasoning given with its answer:
	// stored, never shown to the user simulator or a judge.
	PrivateThought string
	// Thoughts are every thought the agent showed in the step, in order
	// (PrivateThought among them).
	Thoughts []string
	// Interim is what the agent said in the step before its answer
	// (status messages, text before a tool call), in order.
	Interim []Said
	// Ran are the tools the agent ran itself, with their results, as it
	// reported them (A2A agents' function_call / function_response parts).
	Ran []*evalset.Tool
	// State is the state the step ended in, lower case ("completed",
	// "input_required", "done"); "" when the agent said none.
	State string
	// LatencyMS is how long the agent took to answer.
	LatencyMS float64
	// Requests are the metrics of the requests the step took: status,
	// bytes, tokens (usage) and latency of each.
	Requests []measure.Request
	// NonConformant lists protocol deviations worked around.
	NonConformant []string
}

// Said is one thing the agent said before its answer, with the thought it
// came with.
type Said struct {
	Text    string
	Thought string
}

// LocalError is a step that failed for want of proctor's own resources
// (too many open files, ...), not through any fault of the agent's: an
// adapter wraps such failures in it, and the simulator ends the
// simulation as an infrastructure error instead of an agent error.
type LocalError struct{ Err error }

func (e *LocalError) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *LocalError) Unwrap() error { return e.Err }
