/*
Package a2aagent is the A2A adapter beneath the agent interface (package
agent): an a2aclient.Client as the agent under evaluation. Its
sibling for ECP agents is package ecp.

A step that names a profile (a simulation) is rendered by the translation
profile of that name into A2A parts, sent, and the reply's text parsed back into text or
tool calls (translation.ParseReply), with what the agent said before its
answer as interim text. A step without one (an eval case) sends its pieces
as text parts and reads the whole turn on the wire (Response.Events):
function_call and function_response data parts (metadata "type" or
"adk_type", the convention of tRPC-Agent-Go and ADK) become the tools the
agent ran, matched by call id; text parts marked as thoughts ("thought" /
"adk_thought") go to the answer's thoughts, never to its text.
*/
package a2aagent

import (
	"context"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/translation"
)

// Sender is one A2A conversation: an *a2aclient.Conversation, or a
// wrapper around one (a test that checks what the agent sends back).
type Sender interface {
	Send(ctx context.Context, parts []*a2a.Part) (*a2aclient.Response, error)
	ContextID() string
}

type clientAgent struct{ c *a2aclient.Client }

// New returns c as the agent under evaluation: each conversation is a
// fresh A2A context (and cookie jar) of c's.
func New(c *a2aclient.Client) agent.HeaderAgent { return clientAgent{c} }

func (a clientAgent) NewConversation() agent.Conversation { return Adapt(a.c.NewConversation()) }

// NewConversationWithHeaders opens a conversation whose requests carry h
// (an eval case's user id).
func (a clientAgent) NewConversationWithHeaders(h http.Header) agent.Conversation {
	return Adapt(a.c.NewConversation(a2aclient.WithConversationHeaders(h)))
}

// Adapt returns s as an agent.Conversation.
func Adapt(s Sender) agent.Conversation { return conversation{s} }

type conversation struct{ s Sender }

func (c conversation) ContextID() string { return c.s.ContextID() }

// Close does nothing: an A2A conversation holds nothing to give back.
func (c conversation) Close() error { return nil }

// Step sends req as one A2A message and reads the reply: through the
// translation profile req.Profile names when it names one, as plain text
// parts otherwise.
func (c conversation) Step(ctx context.Context, req agent.Request) (*agent.Answer, error) {
	if req.Profile != "" {
		return c.rendered(ctx, req)
	}
	return c.plain(ctx, req)
}

// rendered sends the input as the named translation profile renders it and
// parses the reply.
func (c conversation) rendered(ctx context.Context, req agent.Request) (*agent.Answer, error) {
	profile, err := translation.ProfileByName(req.Profile)
	if err != nil {
		return &agent.Answer{}, err
	}
	resp, err := c.s.Send(ctx, profile.Render(req.Setup, req.First, req.Input))
	out := answerOf(resp)
	if err != nil {
		return out, wrapLocal(err)
	}
	out.Reply = translation.ParseReply(resp.Parts)
	for _, text := range resp.Interim() {
		out.Interim = append(out.Interim, agent.Said{Text: text})
	}
	return out, nil
}

// plain sends the input's pieces as text parts and reads the whole turn.
func (c conversation) plain(ctx context.Context, req agent.Request) (*agent.Answer, error) {
	pieces := req.Pieces
	if len(pieces) == 0 && req.Input.UserText != "" {
		pieces = []string{req.Input.UserText}
	}
	parts := make([]*a2a.Part, len(pieces))
	for i, p := range pieces {
		parts[i] = a2a.NewTextPart(p)
	}
	resp, err := c.s.Send(ctx, parts)
	out := answerOf(resp)
	reading := readTurn(resp)
	out.Ran, out.Thoughts = reading.tools, reading.thoughts
	if reading.final != nil {
		out.Reply.Text, out.PrivateThought = reading.final.Content, reading.final.ReasoningContent
	}
	for _, m := range reading.intermediates {
		out.Interim = append(out.Interim, agent.Said{Text: m.Content, Thought: m.ReasoningContent})
	}
	return out, wrapLocal(err)
}

// answerOf is an answer with resp's metrics, deviations and task state;
// empty when there is no reply.
func answerOf(resp *a2aclient.Response) *agent.Answer {
	out := &agent.Answer{}
	if resp == nil {
		return out
	}
	out.Requests = []measure.Request{resp.Metrics}
	out.LatencyMS = resp.Metrics.LatencyMS
	if resp.NonConformant != "" {
		out.NonConformant = []string{resp.NonConformant}
	}
	if resp.State != "" && resp.State != a2a.TaskStateUnspecified {
		out.State = strings.ToLower(strings.TrimPrefix(string(resp.State), "TASK_STATE_"))
	}
	return out
}

// wrapLocal marks a failure for want of proctor's own resources.
func wrapLocal(err error) error {
	if err != nil && a2aclient.IsLocalExhaustion(err) {
		return &agent.LocalError{Err: err}
	}
	return err
}
