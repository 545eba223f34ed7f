// Package translation turns a conversation into A2A messages for the agent
// under evaluation and turns the agent's replies back into text and tool
// calls.
//
// What the agent is told is decided by a [Profile], chosen by name with
// [ProfileByName]. The default profile, "agentbeats", puts the domain policy,
// the tools in OpenAI function format and a [RespondTool] pseudo-tool into
// the first message, and asks the agent to answer with one JSON object
// {"name": "<tool>|respond", "arguments": {...}} per reply. Later messages
// carry the user's words (after [AgentBeatsUserPrefix]) or the results of
// the agent's tool calls (after [AgentBeatsToolResultPrefix]).
//
// Replies are parsed by [ParseReply], whatever the profile: it accepts bare
// JSON, fenced code blocks, <json> tags, JSON embedded in prose and A2A data
// parts, in the shapes name+arguments, name+kwargs, tool_call, tool_calls
// (including OpenAI-style items) and arrays of calls. Anything it does not
// recognise is plain text for the user. It is bounded in time and memory on
// hostile input and never panics.
//
// Usage:
//
//	profile, err := translation.ProfileByName("agentbeats")
//	if err != nil {
//		return err
//	}
//	setup := translation.Setup{Policy: domain.Policy, Tools: domain.Tools}
//	parts := profile.Render(setup, true, translation.Input{UserText: "Hi, I need to change my flight."})
//	msg := a2a.NewMessage(a2a.MessageRoleUser, parts...)
//	// ... send msg, collect the reply's parts ...
//	reply := translation.ParseReply(replyParts)
//	if len(reply.ToolCalls) > 0 {
//		var outcomes []translation.ToolOutcome
//		for _, call := range reply.ToolCalls {
//			outcomes = append(outcomes, translation.ToolOutcome{Call: call, Result: env.Call(call)})
//		}
//		parts = profile.Render(setup, false, translation.Input{ToolResults: outcomes})
//	} else {
//		fmt.Println("agent says:", reply.Text)
//	}
package translation
