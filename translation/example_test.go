package translation_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/translation"
)

func Example() {
	profile, err := translation.ProfileByName("agentbeats")
	if err != nil {
		panic(err)
	}
	setup := agent.Setup{
		Policy: "Help users with their orders.",
		Tools: []domains.ToolSpec{{
			Name:        "get_order",
			Description: "Look up an order.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`),
		}},
	}
	parts := profile.Render(setup, true, agent.Input{UserText: "Where is order O-1?"})
	lines := strings.Split(parts[0].Text(), "\n")
	fmt.Println(lines[0])
	fmt.Println(lines[len(lines)-1])

	// The agent answers with a tool call...
	reply := translation.ParseReply([]*a2a.Part{a2a.NewTextPart(
		"```json\n{\"name\": \"get_order\", \"arguments\": {\"order_id\": \"O-1\"}}\n```")})
	fmt.Println(reply.Format, reply.ToolCalls[0].ID, reply.ToolCalls[0].Name, reply.ToolCalls[0].Arguments)

	// ... proctor runs it and sends the result back ...
	parts = profile.Render(setup, false, agent.Input{ToolResults: []agent.ToolOutcome{{
		Call:   reply.ToolCalls[0],
		Result: domains.ToolResult{Content: `{"status":"shipped"}`},
	}}})
	fmt.Println(parts[0].Text())

	// ... and the agent talks to the user.
	reply = translation.ParseReply([]*a2a.Part{a2a.NewTextPart(
		`{"name": "respond", "arguments": {"content": "Order O-1 has shipped."}}`)})
	fmt.Printf("%s %q %d\n", reply.Format, reply.Text, len(reply.ToolCalls))

	// Output:
	// <policy>
	// User message: Where is order O-1?
	// fenced_json call-1 get_order map[order_id:O-1]
	// Tool call result (get_order):
	// {"status":"shipped"}
	// json "Order O-1 has shipped." 0
}
