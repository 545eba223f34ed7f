package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/translation"
)

// Inspector is a Conversation that can read the agent's internal state:
// ECP's agent/inspect, which a case's inspect assertions need.
type Inspector interface {
	Inspect(ctx context.Context, path string) (json.RawMessage, a2aclient.RequestMetrics, error)
}

// errTooManySteps ends an invocation whose agent made more tool calls than
// the case allows.
var errTooManySteps = errors.New("too many tool calls")

// stepTurn is one invocation being played on a StepConversation.
type stepTurn struct {
	inv  *evalset.Invocation
	turn result.Turn
}

// stepInvoke plays one invocation on a StepConversation (an ECP agent): the
// user content (after the context messages' text) is stepped; a reply with
// tool calls records them as the invocation's tools and is answered with
// the case's expected results (see caseMocks) until the agent is done; its
// public output is the final response, its private thoughts go to
// ReasoningContent and Turn.Thoughts only. It reports whether the case
// goes on.
func (r *caseRun) stepInvoke(ctx context.Context, sc StepConversation, id string, caseContext, ownContext []*evalset.Message, user *evalset.Message) bool {
	attached := ownContext
	if len(attached) == 0 {
		attached = r.c.ContextMessages
	}
	st := &stepTurn{inv: &evalset.Invocation{ID: id, ContextMessages: attached, UserContent: user}}
	ictx, cancel := context.WithTimeout(ctx, r.p.opts.InvocationTimeout)
	defer cancel()
	start := time.Now()
	err := r.stepUntilDone(ictx, sc, st, ContextText(caseContext)+ContextText(ownContext)+userText(user))
	st.turn.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
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

// stepUntilDone steps input, then the tool results the agent asks for,
// until the agent answers without tool calls.
func (r *caseRun) stepUntilDone(ctx context.Context, sc StepConversation, st *stepTurn, input string) error {
	req := StepRequest{Input: translation.Input{UserText: input}, UserID: r.rec.UserID, MaxRunning: r.c.MaxSteps}
	for round := 1; ; round++ {
		req.Time = SimulatedClock(r.steps)
		out, err := sc.Step(ctx, req)
		r.steps++
		if out != nil {
			r.rec.Requests = append(r.rec.Requests, out.Requests...)
			r.rec.NonConformant = append(r.rec.NonConformant, out.NonConformant...)
			for _, m := range out.Requests {
				st.turn.InputTokens += m.InputTokens
				st.turn.OutputTokens += m.OutputTokens
			}
		}
		if err != nil {
			return err
		}
		if out.PrivateThought != "" {
			st.turn.Thoughts = append(st.turn.Thoughts, out.PrivateThought)
		}
		said := &evalset.Message{Role: evalset.RoleAssistant, Content: out.Reply.Text, ReasoningContent: out.PrivateThought}
		if len(out.Reply.ToolCalls) == 0 {
			st.turn.State = "done"
			if said.Content != "" || said.ReasoningContent != "" {
				st.inv.FinalResponse = said
			}
			return nil
		}
		if strings.TrimSpace(said.Content) != "" { // a thought alone is in Turn.Thoughts, as over A2A
			st.inv.IntermediateResponses = append(st.inv.IntermediateResponses, said)
		}
		outcomes := r.answerCalls(st.inv, out.Reply.ToolCalls)
		switch {
		case r.c.MaxSteps > 0 && len(st.inv.Tools) > r.c.MaxSteps:
			return errTooManySteps
		case round >= DefaultMaxSteps:
			return fmt.Errorf("the agent asked for tools %d times in one invocation without finishing", round)
		}
		req = StepRequest{Input: translation.Input{ToolResults: outcomes}, UserID: r.rec.UserID, MaxRunning: r.c.MaxSteps}
	}
}

// answerCalls records the agent's tool calls as the invocation's tools,
// each with the result proctor answers it with.
func (r *caseRun) answerCalls(inv *evalset.Invocation, calls []domains.ToolCall) []translation.ToolOutcome {
	if r.mocks == nil {
		r.mocks = newCaseMocks(r.c)
	}
	outcomes := make([]translation.ToolOutcome, len(calls))
	for i, call := range calls {
		args := plainJSON(call.Arguments)
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
		outcomes[i] = translation.ToolOutcome{Call: call, Result: out}
	}
	return outcomes
}

// userText is a user content as one step input: its content and text
// parts, one per line.
func userText(m *evalset.Message) string {
	var said []string
	for _, p := range userParts(m) {
		said = append(said, p.Text())
	}
	return strings.Join(said, "\n")
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
