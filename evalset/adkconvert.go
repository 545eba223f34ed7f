package evalset

import (
	"encoding/json"
	"strings"
)

// parseADK reads an ADK eval set into the model.
func parseADK(path string, data []byte, p problems) *Set {
	var in adkSet
	if err := json.Unmarshal(data, &in); err != nil {
		addJSONError(p, err, data)
		return nil
	}
	set := &Set{
		ID: in.EvalSetID, Name: in.Name, Description: in.Description,
		Created: epoch(in.CreationTimestamp), Format: FormatADK, Path: path,
	}
	if set.ID == "" {
		set.ID = fileStem(path)
	}
	set.AppName = set.ID
	for i, c := range in.EvalCases {
		if c == nil {
			p.add(index("eval_cases", i), "missing")
			continue
		}
		set.Cases = append(set.Cases, c.toCase(index("eval_cases", i), p))
	}
	return set
}

func (c *adkCase) toCase(path string, p problems) *Case {
	out := &Case{ID: c.EvalID, Created: epoch(c.CreationTimestamp), Rubrics: adkCaseRubrics(c.Rubrics)}
	if c.Conversation != nil && c.ConversationScenario != nil {
		p.add(path, "give conversation or conversation_scenario, not both (as ADK requires)")
	}
	for k, inv := range c.Conversation {
		ipath := index(field(path, "conversation"), k)
		if inv == nil {
			p.add(ipath, "missing")
			continue
		}
		out.Conversation = append(out.Conversation, inv.toInvocation(ipath, p))
	}
	if sc := c.ConversationScenario; sc != nil {
		out.Scenario = &Scenario{StartingPrompt: sc.StartingPrompt, Plan: sc.ConversationPlan}
	}
	if si := c.SessionInput; si != nil {
		out.SessionInput = &SessionInput{AppName: si.AppName, UserID: si.UserID, State: si.State}
	}
	return out
}

func adkCaseRubrics(in []*adkRubric) []*CaseRubric {
	var out []*CaseRubric
	for _, r := range in {
		if r != nil {
			out = append(out, &CaseRubric{ID: r.ID, Content: r.content(), Description: r.Description, Type: r.Type})
		}
	}
	return out
}

func (inv *adkInvocation) toInvocation(path string, p problems) *Invocation {
	out := &Invocation{ID: inv.InvocationID, Created: epoch(inv.CreationTimestamp)}
	out.UserContent = inv.UserContent.toMessage(RoleUser, field(path, "user_content"), p)
	out.FinalResponse = inv.FinalResponse.toMessage(RoleAssistant, field(path, "final_response"), p)
	if len(inv.Rubrics) > 0 {
		p.add(field(path, "rubrics"), "rubrics of one invocation are not supported: give them on the case or in the metric")
	}
	calls, responses, texts := inv.IntermediateData.flatten(field(path, "intermediate_data"), p)
	out.Tools = pairTools(calls, responses)
	out.IntermediateResponses = texts
	return out
}

// toMessage converts a genai content: its text parts joined by newlines
// (as ADK reads them), thought parts as reasoning.
func (c *adkContent) toMessage(defaultRole Role, path string, p problems) *Message {
	if c == nil {
		return nil
	}
	m := &Message{Role: defaultRole}
	switch c.Role {
	case "user":
		m.Role = RoleUser
	case "model":
		m.Role = RoleAssistant
	}
	var texts, thoughts []string
	for j, part := range c.Parts {
		switch {
		case part == nil:
		case len(part.Other) > 0:
			p.add(index(field(path, "parts"), j), "only text parts are supported (this one has %s)", strings.Join(part.Other, ", "))
		case part.Text != nil && part.Thought:
			thoughts = append(thoughts, *part.Text)
		case part.Text != nil:
			texts = append(texts, *part.Text)
		}
	}
	m.Content = strings.Join(texts, "\n")
	m.ReasoningContent = strings.Join(thoughts, "\n")
	return m
}

// flatten reads either intermediate data form into calls, responses and
// intermediate messages.
func (d *adkIntermediate) flatten(path string, p problems) ([]*adkFunctionCall, []*adkFunctionResponse, []*Message) {
	if d == nil {
		return nil, nil, nil
	}
	calls, responses := d.ToolUses, d.ToolResponses
	var texts []*Message
	for k, raw := range d.IntermediateResponses {
		if m := adkAuthoredParts(raw, index(field(path, "intermediate_responses"), k), p); m != nil {
			texts = append(texts, m)
		}
	}
	for k, ev := range d.InvocationEvents {
		if ev == nil || ev.Content == nil {
			continue
		}
		for _, part := range ev.Content.Parts {
			if part != nil && part.FunctionCall != nil {
				calls = append(calls, part.FunctionCall)
			}
			if part != nil && part.FunctionResponse != nil {
				responses = append(responses, part.FunctionResponse)
			}
		}
		epath := index(field(path, "invocation_events"), k)
		if m := ev.Content.toMessage(RoleAssistant, field(epath, "content"), p); m.Content != "" {
			texts = append(texts, m)
		}
	}
	return calls, responses, texts
}

// adkAuthoredParts reads one (author, parts) pair of intermediate responses.
func adkAuthoredParts(raw json.RawMessage, path string, p problems) *Message {
	var pair []json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		p.add(path, "want a pair [author, parts]")
		return nil
	}
	var parts []*adkPart
	if err := json.Unmarshal(pair[1], &parts); err != nil {
		p.add(index(path, 1), "want a list of parts: %v", err)
		return nil
	}
	return (&adkContent{Parts: parts}).toMessage(RoleAssistant, index(path, 1), p)
}

// pairTools turns calls into tools, each with the result of the response
// of its call ID, else of the first response left with its name.
func pairTools(calls []*adkFunctionCall, responses []*adkFunctionResponse) []*Tool {
	used := make([]bool, len(responses))
	var tools []*Tool
	for _, c := range calls {
		if c == nil {
			continue
		}
		t := &Tool{ID: c.ID, Name: c.Name}
		if c.Args != nil {
			t.Arguments = c.Args
		}
		if r := matchResponse(c, responses, used); r != nil && r.Response != nil {
			t.Result = r.Response
		}
		tools = append(tools, t)
	}
	return tools
}

func matchResponse(c *adkFunctionCall, responses []*adkFunctionResponse, used []bool) *adkFunctionResponse {
	pick := func(ok func(r *adkFunctionResponse) bool) *adkFunctionResponse {
		for i, r := range responses {
			if r != nil && !used[i] && ok(r) {
				used[i] = true
				return r
			}
		}
		return nil
	}
	if c.ID != "" {
		if r := pick(func(r *adkFunctionResponse) bool { return r.ID == c.ID }); r != nil {
			return r
		}
	}
	return pick(func(r *adkFunctionResponse) bool { return r.Name == c.Name && (r.ID == "" || c.ID == "") })
}

// parseADKOld reads ADK's older test file, a list of queries, as ADK
// migrates it: one case whose invocations are the queries in order.
func parseADKOld(path string, data []byte, p problems) *Set {
	var items []*adkOldItem
	if err := json.Unmarshal(data, &items); err != nil {
		addJSONError(p, err, data)
		return nil
	}
	stem := fileStem(path)
	c := &Case{ID: stem}
	for _, it := range items {
		if it == nil {
			it = &adkOldItem{}
		}
		inv := &Invocation{UserContent: &Message{Role: RoleUser, Content: it.Query}}
		if it.Reference != "" {
			inv.FinalResponse = &Message{Role: RoleAssistant, Content: it.Reference}
		}
		for _, tu := range it.ExpectedToolUse {
			inv.Tools = append(inv.Tools, &Tool{Name: tu.ToolName, Arguments: tu.ToolInput})
		}
		c.Conversation = append(c.Conversation, inv)
	}
	return &Set{ID: stem, AppName: stem, Format: FormatADK, Path: path, Cases: []*Case{c}}
}
