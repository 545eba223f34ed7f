package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/ecp"
)

// Bodies of the ECP error probes. The parse-error body is JSON-RPC 2.0's
// own example (§7): complete on its line, so that a streaming decoder
// fails on it rather than waiting for more.
const (
	ecpUnknownMethod      = "proctor/noSuchMethod"
	ecpProbeParseError    = `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`
	ecpProbeWrongVersion  = `{"jsonrpc": "1.0", "id": %s, "method": "agent/reset"}`
	ecpInvalidStepParams  = `{"input": 42, "context": "now"}`
	ecpSurvivalProbeLabel = ecp.MethodReset + " (does the agent still answer?)"
)

// check runs every ECP check. It fails only when the private-target guard
// refuses the agent.
func (r *ecpRun) check(ctx context.Context) error {
	c, err := r.start(ctx)
	if errors.Is(err, ErrDeniedTarget) {
		return err
	}
	if err != nil {
		r.failMsg(ReqECPInitialize, r.tr(), "the agent could not be started: "+err.Error())
		r.skipRest("the agent could not be started")
		return nil
	}
	if !r.ecpInitialize(ctx, c) {
		r.skipRest("agent/initialize did not answer with a result")
		return nil
	}
	r.ecpSteps(ctx, c)
	r.ecpErrors(ctx, c)
	r.ecpBeforeInitialize(ctx)
	r.ecpEnvelope()
	r.skipRest("not reached: no fresh agent could be had for it")
	return nil
}

func (r *ecpRun) tr() []string { return []string{r.transport} }

// skipRest skips every ECP requirement that has no result yet.
func (r *ecpRun) skipRest(why string) {
	for _, req := range ECPRequirements() {
		if !r.hasResult(req.ID) {
			r.skip(req.ID, r.tr(), why)
		}
	}
}

// judge records id as passed when problem is empty, else as failed.
func (r *ecpRun) judge(id, problem, passed string, exs ...Exchange) {
	if problem == "" {
		r.pass(id, r.tr(), passed)
		return
	}
	r.failMsg(id, r.tr(), problem, exs...)
}

// ecpInitialize checks agent/initialize; it reports whether a result came.
func (r *ecpRun) ecpInitialize(ctx context.Context, c *ecp.Client) bool {
	rep := r.initialize(ctx, c)
	raw, ok := rep.result()
	if !ok {
		r.fail(ReqECPInitialize, r.tr(), "a result naming the agent", rep.describe(), rep.ex)
		return false
	}
	s := readInitialize(raw)
	r.rep.AgentName = s.Name
	r.judge(ReqECPInitialize, s.Result, "the agent is named "+strconv.Quote(s.Name), rep.ex)
	version := `protocolVersion "` + ecp.ProtocolVersion + `"`
	if s.ProtocolVersion == "" {
		version = "no protocolVersion in the result (the draft asks for none): " + ecp.ProtocolVersion + " is assumed"
	}
	r.judge(ReqECPInitVersion, s.Version, version, rep.ex)
	r.judge(ReqECPInitCapabilities, s.Capabilities, "capabilities is an object", rep.ex)
	return true
}

// ecpSteps resets and steps the agent: a first input, a second one that
// changes its state, a reset, the first input again.
func (r *ecpRun) ecpSteps(ctx context.Context, c *ecp.Client) {
	m := r.o.messages
	reset1 := r.call(ctx, c, ecp.MethodReset, nil)
	first := r.step(ctx, c, m.Basic, 0)
	second := r.step(ctx, c, m.FollowUp, 1)
	reset2 := r.call(ctx, c, ecp.MethodReset, nil)
	again := r.step(ctx, c, m.Basic, 0)
	r.judgeResets(reset1, reset2)
	shapes := r.judgeSteps(first, second, again)
	r.judgeResetClears(first, again, shapes[0], shapes[2])
}

// isTrue reports whether a reply is the result true.
func isTrue(p ecpReply) bool {
	raw, ok := p.result()
	return ok && string(bytes.TrimSpace(raw)) == "true"
}

func (r *ecpRun) judgeResets(resets ...ecpReply) {
	sent := 0
	for _, p := range resets {
		if p.notSent {
			continue
		}
		sent++
		if !isTrue(p) {
			r.fail(ReqECPReset, r.tr(), "the result true", p.describe(), p.ex)
			return
		}
	}
	if sent == 0 {
		r.skip(ReqECPReset, r.tr(), "the agent died before agent/reset")
		return
	}
	r.pass(ReqECPReset, r.tr(), fmt.Sprintf("agent/reset answered true (%d of %d)", sent, sent))
}

// stepFinding is the first problem found for a step requirement.
type stepFinding struct {
	problem string
	ex      Exchange
}

// judgeSteps checks the step results' shapes and returns them (the zero
// shape for a step that got no result).
func (r *ecpRun) judgeSteps(steps ...ecpReply) []stepShape {
	shapes := make([]stepShape, len(steps))
	found := map[string]stepFinding{}
	note := func(id, problem string, ex Exchange) {
		if _, seen := found[id]; !seen && problem != "" {
			found[id] = stepFinding{problem, ex}
		}
	}
	results, calls, paused := 0, 0, 0
	for i, p := range steps {
		if p.notSent {
			continue
		}
		raw, ok := p.result()
		if !ok {
			note(ReqECPStepStatus, "agent/step got "+p.describe(), p.ex)
			continue
		}
		s := readStep(raw)
		shapes[i] = s
		results++
		calls += s.Calls
		if s.Status == ecp.StatusPaused {
			paused++
		}
		note(ReqECPStepStatus, s.StatusProblem, p.ex)
		note(ReqECPStepFields, s.Fields, p.ex)
		note(ReqECPStepToolCalls, s.ToolCalls, p.ex)
		note(ReqECPStepUsage, s.Usage, p.ex)
		if s.PausedWithoutCalls {
			note(ReqECPStepPaused, "status paused without tool_calls", p.ex)
		}
	}
	verdict := func(id, passed, skipped string) {
		switch f, ok := found[id]; {
		case ok:
			r.failMsg(id, r.tr(), f.problem, f.ex)
		case skipped != "":
			r.skip(id, r.tr(), skipped)
		default:
			r.pass(id, r.tr(), passed)
		}
	}
	none := ""
	if results == 0 {
		none = "no step answered with a result"
	}
	verdict(ReqECPStepStatus, fmt.Sprintf("%d steps answered with a known status", results), none)
	verdict(ReqECPStepFields, "public_output, private_thought and tool_calls have their types", none)
	verdict(ReqECPStepUsage, "every step result carries usage", none)
	verdict(ReqECPStepToolCalls, fmt.Sprintf("%d tool calls read", calls), firstNonEmpty(none, ifZero(calls,
		"no step called a tool: give a --message that makes the agent call one to check tool_calls")))
	verdict(ReqECPStepPaused, "every paused step carried tool_calls", firstNonEmpty(none, ifZero(paused, "no step paused")))
	return shapes
}

func ifZero(n int, s string) string {
	if n == 0 {
		return s
	}
	return ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// judgeResetClears compares the answers to the same input after the first
// and the second reset.
func (r *ecpRun) judgeResetClears(first, again ecpReply, s1, s3 stepShape) {
	if s1.Answer == "" || s3.Answer == "" {
		r.skip(ReqECPResetClears, r.tr(), "it needs a readable answer to the same step after each of two resets")
		return
	}
	if s1.Answer == s3.Answer {
		r.pass(ReqECPResetClears, r.tr(), "after a reset the same input got the same answer: "+truncateText(s1.Answer, 200))
		return
	}
	r.fail(ReqECPResetClears, r.tr(), "the answer after the first reset, "+truncateText(s1.Answer, 300),
		truncateText(s3.Answer, 300), first.ex, again.ex)
}

// ecpProbe is one bad request and the error it should get.
type ecpProbe struct {
	id, what, label string
	body            []byte
	reqID           json.RawMessage // nil when it cannot be read
	code            int
}

func (r *ecpRun) probes() []ecpProbe {
	next := func() json.RawMessage {
		r.nextID++
		return json.RawMessage(strconv.Itoa(r.nextID))
	}
	method, step, version := next(), next(), next()
	return []ecpProbe{
		{ReqECPMethodNotFound, "an unknown method", ecpUnknownMethod,
			fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":{}}`, method, ecpUnknownMethod), method, -32601},
		{ReqECPInvalidParams, "a step whose input is a number", ecp.MethodStep,
			fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, step, ecp.MethodStep, ecpInvalidStepParams), step, -32602},
		{ReqECPInvalidRequest, `a request with "jsonrpc": "1.0"`, ecp.MethodReset + " (jsonrpc 1.0)",
			fmt.Appendf(nil, ecpProbeWrongVersion, version), version, -32600},
		{ReqECPParseError, "a message that is not JSON", "not JSON", []byte(ecpProbeParseError), nil, -32700},
	}
}

// ecpErrors sends each bad request, checks the error it gets, and then
// whether the agent still answers. An agent that died is replaced by a
// fresh one for the next probe.
func (r *ecpRun) ecpErrors(ctx context.Context, c *ecp.Client) {
	var died, unknown []string
	var diedEx []Exchange
	for _, p := range r.probes() {
		if c.Broken() != nil {
			var err error
			if c, err = r.fresh(ctx); err != nil {
				r.failMsg(p.id, r.tr(), "a fresh agent for this check could not be had: "+err.Error())
				return
			}
		}
		bad := r.send(ctx, c, p.label, p.body, p.reqID)
		want := fmt.Sprintf("JSON-RPC error %d", p.code)
		if code, ok := bad.errorCode(); ok && code == p.code {
			r.pass(p.id, r.tr(), p.what+" got "+want)
		} else {
			r.fail(p.id, r.tr(), want+" for "+p.what, bad.describe(), bad.ex)
		}
		var ce *ecp.CallError
		switch {
		case errors.As(bad.fail, &ce) && ce.Kind == ecp.FailTimeout:
			unknown = append(unknown, p.what+" (no answer in time: the agent was stopped)")
		case c.Broken() != nil:
			died = append(died, p.what+": "+bad.describe())
			diedEx = append(diedEx, bad.ex)
		default:
			if alive := r.call(ctx, c, ecp.MethodReset, nil); alive.env == nil {
				alive.ex.Request = ecpSurvivalProbeLabel + strings.TrimPrefix(alive.ex.Request, ecp.MethodReset)
				died = append(died, p.what+", then agent/reset got "+alive.describe())
				diedEx = append(diedEx, bad.ex, alive.ex)
			}
		}
	}
	r.judgeSurvival(died, unknown, diedEx)
}

func (r *ecpRun) judgeSurvival(died, unknown []string, exs []Exchange) {
	if len(died) > 0 {
		r.failMsg(ReqECPSurvives, r.tr(), "the agent stopped answering after "+strings.Join(died, "; "), exs[:min(len(exs), 4)]...)
		return
	}
	msg := "agent/reset got a response after each bad request"
	if len(unknown) > 0 {
		msg += "; not judged after " + strings.Join(unknown, ", ")
	}
	r.pass(ReqECPSurvives, r.tr(), msg)
}

// ecpBeforeInitialize steps a fresh agent before initializing it.
func (r *ecpRun) ecpBeforeInitialize(ctx context.Context) {
	c, err := r.start(ctx)
	if err != nil {
		r.failMsg(ReqECPStepBeforeInit, r.tr(), "a fresh agent could not be started: "+err.Error())
		return
	}
	defer c.Close()
	early := r.step(ctx, c, r.o.messages.Basic, 0)
	if early.env == nil {
		r.fail(ReqECPStepBeforeInit, r.tr(), "a JSON-RPC response (a result or an error)", early.describe(), early.ex)
		return
	}
	init := r.initialize(ctx, c)
	if _, ok := init.result(); !ok {
		r.fail(ReqECPStepBeforeInit, r.tr(), "agent/initialize to succeed after the early step", init.describe(), early.ex, init.ex)
		return
	}
	r.pass(ReqECPStepBeforeInit, r.tr(), "a step before agent/initialize got "+truncateText(early.describe(), 120)+"; agent/initialize then succeeded")
}

// ecpEnvelope judges every response the run read.
func (r *ecpRun) ecpEnvelope() {
	if len(r.envelopeIssues) == 0 {
		r.pass(ReqECPEnvelope, r.tr(), fmt.Sprintf("every one of %d responses was a JSON-RPC 2.0 response to its request", r.responses))
		return
	}
	var msgs []string
	var exs []Exchange
	for _, is := range r.envelopeIssues {
		if !contains(msgs, is.problem) {
			msgs = append(msgs, is.problem)
			exs = append(exs, is.ex)
		}
	}
	r.failMsg(ReqECPEnvelope, r.tr(), "JSON-RPC responses deviate: "+strings.Join(msgs, "; "), exs[:min(len(exs), 3)]...)
}
