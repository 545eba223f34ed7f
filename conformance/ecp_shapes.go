package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/proctor-eval/proctor/ecp"
)

// initShape is what an agent/initialize result says, read without trusting
// it: a problem per requirement, empty when it holds.
type initShape struct {
	Name            string
	ProtocolVersion string
	// Problems of ReqECPInitialize, ReqECPInitVersion and
	// ReqECPInitCapabilities.
	Result, Version, Capabilities string
}

// readInitialize reads an agent/initialize result.
func readInitialize(raw json.RawMessage) initShape {
	var s initShape
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		s.Result = "a result that is not an object: " + truncateText(string(raw), 120)
		return s
	}
	if v, ok := obj["name"]; !ok {
		s.Result = `no "name" in the result`
	} else if json.Unmarshal(v, &s.Name) != nil || s.Name == "" {
		s.Result = fmt.Sprintf(`"name" %s is not a non-empty string`, truncateText(string(v), 60))
	}
	if v, ok := obj["protocolVersion"]; ok {
		if json.Unmarshal(v, &s.ProtocolVersion) != nil || s.ProtocolVersion != ecp.ProtocolVersion {
			s.Version = fmt.Sprintf(`"protocolVersion" %s, not "%s"`, truncateText(string(v), 40), ecp.ProtocolVersion)
		}
	}
	s.Capabilities = capabilitiesProblem(obj)
	return s
}

// capabilitiesProblem checks capabilities and the two support flags,
// which the draft lists in the result and its example puts inside
// capabilities: either place is read.
func capabilitiesProblem(obj map[string]json.RawMessage) string {
	v, ok := obj["capabilities"]
	if !ok {
		return `no "capabilities" in the result`
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(v, &caps) != nil || caps == nil {
		return fmt.Sprintf(`"capabilities" %s is not an object`, truncateText(string(v), 60))
	}
	places := []struct {
		prefix  string
		members map[string]json.RawMessage
	}{{"", obj}, {"capabilities.", caps}}
	for _, flag := range []string{"supports_snapshots", "supports_steering"} {
		for _, p := range places {
			if f, ok := p.members[flag]; ok && !isJSONBool(f) {
				return fmt.Sprintf(`"%s%s" %s is not a boolean`, p.prefix, flag, truncateText(string(f), 40))
			}
		}
	}
	return ""
}

func isJSONBool(raw json.RawMessage) bool {
	t := string(bytes.TrimSpace(raw))
	return t == "true" || t == "false"
}

// stepShape is what an agent/step result says, read without trusting it.
type stepShape struct {
	Status ecp.Status
	// Problems of ReqECPStepStatus, ReqECPStepFields, ReqECPStepToolCalls
	// and ReqECPStepUsage; empty when the requirement holds.
	StatusProblem, Fields, ToolCalls, Usage string
	// Calls counts the tool calls; PausedWithoutCalls is a paused result
	// without any.
	Calls              int
	PausedWithoutCalls bool
	// Answer is what a user and the domain see of the step (status,
	// public_output, tool names and arguments) as canonical JSON, for
	// comparing two answers; empty when the result is not an object.
	Answer string
}

// stepAnswer is the part of a step result two answers are compared on.
type stepAnswer struct {
	Status string     `json:"status"`
	Output *string    `json:"public_output"`
	Calls  []callSeen `json:"tool_calls"`
}

type callSeen struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// readStep reads an agent/step result.
func readStep(raw json.RawMessage) stepShape {
	var s stepShape
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		s.StatusProblem = "a result that is not an object: " + truncateText(string(raw), 120)
		return s
	}
	var status string
	if v, ok := obj["status"]; !ok {
		s.StatusProblem = `no "status" in the result`
	} else if json.Unmarshal(v, &status) != nil {
		s.StatusProblem = fmt.Sprintf(`"status" %s is not a string`, truncateText(string(v), 40))
	} else {
		s.Status = ecp.Status(status)
		switch s.Status {
		case ecp.StatusDone, ecp.StatusPaused, ecp.StatusRunning:
		default:
			s.StatusProblem = fmt.Sprintf(`"status" %q is not done, paused or running`, truncateText(status, 40))
		}
	}
	answer := stepAnswer{Status: status}
	answer.Output, s.Fields = stepFields(obj)
	var calls []callSeen
	calls, s.ToolCalls = readToolCalls(obj["tool_calls"])
	s.Calls = len(calls)
	if s.Fields == "" && s.ToolCalls == "" {
		answer.Calls = calls
		if b, err := json.Marshal(answer); err == nil {
			s.Answer = string(b)
		}
	}
	if s.StatusProblem == "" && s.Fields == "" && s.ToolCalls == "" {
		// What the checks pass, proctor's runtime must read (it matches
		// member names as encoding/json does, ignoring case).
		var res ecp.StepResult
		if err := json.Unmarshal(raw, &res); err != nil {
			s.Fields = "proctor's runtime cannot read the result: " + err.Error()
		} else if res.Status != s.Status {
			s.StatusProblem = fmt.Sprintf(`members that differ only in case make the status %q, not %q`, res.Status, s.Status)
		}
	}
	s.PausedWithoutCalls = s.Status == ecp.StatusPaused && s.Calls == 0 && s.ToolCalls == ""
	s.Usage = usageProblem(obj)
	return s
}

// stepFields checks public_output, private_thought and tool_calls' types
// and returns public_output.
func stepFields(obj map[string]json.RawMessage) (*string, string) {
	var output *string
	for _, name := range []string{"public_output", "private_thought"} {
		v, ok := obj[name]
		if !ok || isNull(v) {
			continue
		}
		var text string
		if json.Unmarshal(v, &text) != nil {
			return nil, fmt.Sprintf(`"%s" %s is not a string or null`, name, truncateText(string(v), 60))
		}
		if name == "public_output" {
			output = &text
		}
	}
	if v, ok := obj["tool_calls"]; ok && !isNull(v) {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return nil, fmt.Sprintf(`"tool_calls" %s is not an array or null`, truncateText(string(v), 60))
		}
	}
	return output, ""
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// readToolCalls reads tool_calls items as proctor's runtime reads them
// (ecp.ToolCall); an array that is not one is stepFields' to report.
func readToolCalls(raw json.RawMessage) ([]callSeen, string) {
	var items []json.RawMessage
	if len(raw) == 0 || isNull(raw) || json.Unmarshal(raw, &items) != nil {
		return nil, ""
	}
	calls := make([]callSeen, 0, len(items))
	for i, item := range items {
		var c ecp.ToolCall
		if err := json.Unmarshal(item, &c); err != nil {
			return nil, fmt.Sprintf("tool_calls[%d] %s: %v", i, truncateText(string(item), 80), err)
		}
		calls = append(calls, callSeen{Name: c.Name, Arguments: c.Arguments})
	}
	return calls, ""
}

// usageKeys are the token counts a usage object may hold (see ecp.Usage).
var usageKeys = []string{"input", "output", "input_tokens", "output_tokens", "prompt_tokens", "completion_tokens", "total_tokens"}

// usageProblem checks usage: an object with at least one token count, every
// count a non-negative integer.
func usageProblem(obj map[string]json.RawMessage) string {
	v, ok := obj["usage"]
	if !ok || isNull(v) {
		return `no "usage" in the result`
	}
	var u map[string]json.RawMessage
	if json.Unmarshal(v, &u) != nil || u == nil {
		return fmt.Sprintf(`"usage" %s is not an object`, truncateText(string(v), 60))
	}
	counts := 0
	for _, k := range usageKeys {
		n, ok := u[k]
		if !ok {
			continue
		}
		var f float64
		if json.Unmarshal(n, &f) != nil || f < 0 || f != math.Trunc(f) {
			return fmt.Sprintf(`"usage.%s" %s is not a non-negative integer`, k, truncateText(string(n), 40))
		}
		counts++
	}
	if counts == 0 {
		return fmt.Sprintf(`"usage" %s has no token count ("input" and "output")`, truncateText(string(v), 60))
	}
	return ""
}
