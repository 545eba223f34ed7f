package rollout

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
)

// Inspector is a Conversation that can read the agent's internal state:
// ECP's agent/inspect, which a case's inspect assertions need (see
// agent.Inspector).
type Inspector = agent.Inspector

// errTooManySteps ends an invocation whose agent made more tool calls than
// the case allows.
var errTooManySteps = errors.New("too many tool calls")

// stepTurn is one invocation being played.
type stepTurn struct {
	inv  *evalset.Invocation
	turn result.Turn
}

// invokeTraced plays one invocation: the user content (after the context
// messages' text) is given to the agent; tools the agent ran itself are
// recorded as the invocation's tools; tool calls it asks proctor to run
// are recorded so too and answered with the case's expected results (see
// caseMocks) until the agent is done. Its answer is the final response,
// what it said before as intermediate responses, its private thoughts go
// to ReasoningContent and Turn.Thoughts only. It reports whether the case
// goes on.
func (r *caseRun) invokeTraced(ctx context.Context, id string, caseContext, ownContext []*evalset.Message, user *evalset.Message) bool {
	attached := ownContext
	if len(attached) == 0 {
		attached = r.c.ContextMessages
	}
	st := &stepTurn{inv: &evalset.Invocation{ID: id, ContextMessages: attached, UserContent: user}}
	ictx, cancel := context.WithTimeout(ctx, r.p.opts.InvocationTimeout)
	defer cancel()
	input := agent.Input{UserText: ContextText(caseContext) + ContextText(ownContext) + strings.Join(userParts(user), "\n")}
	err := r.stepUntilDone(ictx, st, input, invocationPieces(caseContext, ownContext, user))
	r.rec.Actual = append(r.rec.Actual, st.inv)
	n := len(r.rec.Actual)
	switch {
	case errors.Is(err, errTooManySteps):
		st.turn.Error = fmt.Sprintf("%d tool calls, more than max_steps %d", len(st.inv.Tools), r.c.MaxSteps)
		r.rec.Error = fmt.Sprintf("invocation %d: the agent made %d tool calls, more than the case's max_steps of %d", n, len(st.inv.Tools), r.c.MaxSteps)
	case err != nil:
		if errors.Is(ictx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no reply within the invocation timeout of %s: %w", r.p.opts.InvocationTimeout, err)
		}
		st.turn.Error = err.Error()
		r.rec.Error = fmt.Sprintf("invocation %d: agent: %v", n, err)
	}
	r.rec.Turns = append(r.rec.Turns, st.turn)
	return st.turn.Error == ""
}

// invocationPieces are an invocation's input as the pieces it is made of
// (see agent.Request.Pieces): the case's context block (first invocation
// only), the invocation's own, then the user content's texts.
func invocationPieces(caseContext, ownContext []*evalset.Message, user *evalset.Message) []string {
	pieces := make([]string, 0, 3)
	for _, text := range []string{ContextText(caseContext), ContextText(ownContext)} {
		if text != "" {
			pieces = append(pieces, text)
		}
	}
	return append(pieces, userParts(user)...)
}

// stepUntilDone gives the agent the invocation's input, then the results
// of the tool calls it asks for, until it answers without calls.
func (r *caseRun) stepUntilDone(ctx context.Context, st *stepTurn, input agent.Input, pieces []string) error {
	req := agent.Request{Input: input, Pieces: pieces, UserID: r.rec.UserID, MaxRunning: r.c.MaxSteps}
	for round := 1; ; round++ {
		req.Time = SimulatedClock(r.steps)
		out, err := r.conv.Step(ctx, req)
		r.steps++
		if out != nil {
			r.record(st, out)
		}
		if err != nil {
			return err
		}
		if r.c.MaxSteps > 0 && len(st.inv.Tools) > r.c.MaxSteps {
			return errTooManySteps
		}
		if len(out.Reply.ToolCalls) == 0 {
			return nil
		}
		outcomes := r.answerCalls(st.inv, out.Reply.ToolCalls)
		switch {
		case r.c.MaxSteps > 0 && len(st.inv.Tools) > r.c.MaxSteps:
			return errTooManySteps
		case round >= DefaultMaxSteps:
			return fmt.Errorf("the agent asked for tools %d times in one invocation without finishing", round)
		}
		req = agent.Request{Input: agent.Input{ToolResults: outcomes}, UserID: r.rec.UserID, MaxRunning: r.c.MaxSteps}
	}
}

// record adds one answer to the case's recording and the invocation: its
// requests, latency and tokens, thoughts, the tools the agent ran, what it
// said before its answer, and its answer (the final response when it asks
// for no tools).
func (r *caseRun) record(st *stepTurn, out *agent.Answer) {
	r.rec.Requests = append(r.rec.Requests, out.Requests...)
	r.rec.NonConformant = append(r.rec.NonConformant, out.NonConformant...)
	st.turn.LatencyMS += out.LatencyMS
	for _, m := range out.Requests {
		st.turn.InputTokens += m.InputTokens
		st.turn.OutputTokens += m.OutputTokens
		st.turn.Status = requestStatus(m)
	}
	st.turn.Thoughts = append(st.turn.Thoughts, out.Thoughts...)
	st.inv.Tools = append(st.inv.Tools, out.Ran...)
	for _, said := range out.Interim {
		st.inv.IntermediateResponses = append(st.inv.IntermediateResponses, &evalset.Message{Role: evalset.RoleAssistant, Content: said.Text, ReasoningContent: said.Thought})
	}
	said := &evalset.Message{Role: evalset.RoleAssistant, Content: out.Reply.Text, ReasoningContent: out.PrivateThought}
	if len(out.Reply.ToolCalls) > 0 {
		if strings.TrimSpace(said.Content) != "" { // a thought alone is in Turn.Thoughts
			st.inv.IntermediateResponses = append(st.inv.IntermediateResponses, said)
		}
		return
	}
	st.turn.State = out.State
	if said.Content != "" || said.ReasoningContent != "" {
		st.inv.FinalResponse = said
	}
}

// requestStatus is a request's transport status: the gRPC code name, else
// the HTTP status code, else "".
func requestStatus(m measure.Request) string {
	switch {
	case m.GRPCCode != "":
		return m.GRPCCode
	case m.HTTPStatus != 0:
		return strconv.Itoa(m.HTTPStatus)
	}
	return ""
}

// answerCalls records the agent's tool calls as the invocation's tools,
// each with the result proctor answers it with.
func (r *caseRun) answerCalls(inv *evalset.Invocation, calls []domains.ToolCall) []agent.ToolOutcome {
	if r.mocks == nil {
		r.mocks = newCaseMocks(r.c)
	}
	outcomes := make([]agent.ToolOutcome, len(calls))
	for i, call := range calls {
		args := evalset.PlainJSON(call.Arguments)
		tool := &evalset.Tool{ID: call.ID, Name: call.Name, Arguments: args}
		res, ok := r.mocks.result(inv.ID, call.Name, args)
		var out domains.ToolResult
		if ok {
			tool.Result, out.Content = res, evalset.ValueText(res)
		} else {
			out = domains.ToolResult{Error: true, Content: fmt.Sprintf(
				"proctor: no mock result is defined for %s with these arguments in case %s: give the expected tool call a result", call.Name, r.c.ID)}
			tool.Result = out.Content
		}
		inv.Tools = append(inv.Tools, tool)
		outcomes[i] = agent.ToolOutcome{Call: call, Result: out}
	}
	return outcomes
}

// inspect reads the agent's state for the case's inspect assertions, after
// its last invocation, into the recording: one Inspection per assertion.
func (r *caseRun) inspect(ctx context.Context) {
	if len(r.c.Inspect) == 0 || r.conv == nil || r.rec.Error != "" {
		return
	}
	in, ok := r.conv.(Inspector)
	for _, a := range r.c.Inspect {
		if a == nil {
			continue
		}
		got := result.Inspection{Path: a.Path}
		if !ok {
			got.Error = "the agent cannot be inspected: agent/inspect needs an ECP agent"
			r.rec.Inspections = append(r.rec.Inspections, got)
			continue
		}
		ictx, cancel := context.WithTimeout(ctx, r.p.opts.InvocationTimeout)
		v, m, err := in.Inspect(ictx, a.Path)
		cancel()
		if m.Method != "" {
			r.rec.Requests = append(r.rec.Requests, m)
		}
		if err != nil {
			got.Error = err.Error()
		} else {
			got.Value = v
		}
		r.rec.Inspections = append(r.rec.Inspections, got)
	}
}
