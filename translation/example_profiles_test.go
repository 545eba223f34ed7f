package translation_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/translation"
)

var exampleSetup = agent.Setup{
	Policy: "Help users with their orders.",
	Tools: []domains.ToolSpec{{
		Name:        "get_order",
		Description: "Look up an order.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`),
	}},
}

func Example_tau2A2A() {
	profile, err := translation.ProfileByName(agent.ProfileTau2A2A)
	if err != nil {
		panic(err)
	}
	first := profile.Render(exampleSetup, true, agent.Input{UserText: "Where is order O-1?"})[0].Text()
	fmt.Println(strings.Split(first, "\n")[4])
	fmt.Println(strings.Contains(first, "\n"+translation.AvailableToolsOpen+"\n"))

	// The agent calls two tools in one reply ...
	reply := translation.ParseReply([]*a2a.Part{a2a.NewTextPart(
		`{"tool_calls": [{"name": "get_order", "arguments": {"order_id": "O-1"}}, ` +
			`{"id": "x", "name": "get_order", "arguments": {"order_id": "O-2"}}]}`)})
	// ... and gets their results back in one message.
	var outcomes []agent.ToolOutcome
	for _, c := range reply.ToolCalls {
		outcomes = append(outcomes, agent.ToolOutcome{Call: c, Result: domains.ToolResult{Content: "shipped"}})
	}
	results := profile.Render(exampleSetup, false, agent.Input{ToolResults: outcomes})[0].Text()
	var v map[string][]map[string]any
	_ = json.Unmarshal([]byte(results), &v)
	for _, r := range v[translation.ToolResultsKey] {
		fmt.Println(r["tool_call_id"], r["name"], r["content"], r["error"])
	}

	// Output:
	// Where is order O-1?
	// true
	// call-1 get_order shipped false
	// x get_order shipped false
}

func Example_structured() {
	profile, err := translation.ProfileByName(agent.ProfileStructured)
	if err != nil {
		panic(err)
	}
	parts := profile.Render(exampleSetup, true, agent.Input{UserText: "Where is order O-1?"})
	fmt.Println(parts[0].Text())
	setup := parts[1].Data().(map[string]any)
	keys := make([]string, 0, len(setup))
	for k := range setup {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Println(keys)

	// The agent calls a tool with a data part.
	reply := translation.ParseReply([]*a2a.Part{a2a.NewDataPart(map[string]any{
		"tool_calls": []any{map[string]any{"name": "get_order", "arguments": map[string]any{"order_id": "O-1"}}},
	})})
	fmt.Println(reply.Format, reply.ToolCalls[0].ID, reply.ToolCalls[0].Name)

	// Its result comes back as a data part.
	parts = profile.Render(exampleSetup, false, agent.Input{ToolResults: []agent.ToolOutcome{{
		Call: reply.ToolCalls[0], Result: domains.ToolResult{Content: "no such order", Error: true},
	}}})
	raw, _ := json.Marshal(parts[0].Data())
	fmt.Println(string(raw))

	// Output:
	// Where is order O-1?
	// [policy reply_format tools]
	// data_part call-1 get_order
	// {"tool_results":[{"content":"no such order","error":true,"name":"get_order","tool_call_id":"call-1"}]}
}
