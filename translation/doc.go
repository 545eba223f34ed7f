// Package translation turns a conversation into A2A messages for the agent
// under evaluation and turns the agent's replies back into text and tool
// calls. What it renders and parses are package agent's protocol-neutral
// types (agent.Setup, agent.Input, agent.Reply); this package holds only
// what speaks A2A parts, and the A2A adapter (package a2aagent) resolves a
// request's agent.ProfileName to a [Profile] here.
//
// What the agent is told is decided by a [Profile], chosen by name with
// [ProfileByName]; [ProfileNames] lists them. There are three:
//
//   - "agentbeats" ([agent.ProfileAgentBeats], the default) puts the domain
//     policy, the tools in OpenAI function format and a [RespondTool]
//     pseudo-tool into the first message, and asks the agent to answer with
//     one JSON object {"name": "<tool>|respond", "arguments": {...}} per
//     reply. Later messages carry the user's words (after
//     [AgentBeatsUserPrefix]) or the results of the agent's tool calls
//     (after [AgentBeatsToolResultPrefix]).
//   - "tau2-a2a" ([agent.ProfileTau2A2A]) follows the tau2-bench A2A integration.
//     Every message is one text part. The first holds the policy (between
//     [PolicyOpen] and [PolicyClose]), the user's words, the tools as a JSON
//     array of {"name", "description", "parameters"} between
//     [AvailableToolsOpen] and [AvailableToolsClose], and the reply
//     instructions: plain text for the user, or {"tool_call": {...}} /
//     {"tool_calls": [...]} ([ToolCallKey], [ToolCallsKey]) to call tools,
//     which run in order. Later messages are the user's words alone (the
//     tool list is not repeated) or the JSON object {"tool_results": [...]}
//     described at [ToolResultsKey].
//   - "structured" ([agent.ProfileStructured]) sends what is data as A2A data
//     parts. The first message is a text part with the user's words and a
//     data part {"policy", "tools", "reply_format"} ([SetupPolicyKey],
//     [SetupToolsKey], [SetupReplyFormatKey]) with the tools in OpenAI
//     function format. Later messages are the user's words as a text part,
//     or the tool results as a data part {"tool_results": [...]}. The agent
//     replies with text, or with a data part {"tool_calls": [...]}.
//
// In the tau2-a2a and structured profiles a tool result is
// {"tool_call_id", "name", "content", "error"}, one per call of the agent's
// previous reply, in call order; tool_call_id is the id the agent gave the
// call, or "call-<position>". Neither profile has a respond pseudo-tool.
//
// Replies are parsed by [ParseReply], whatever the profile: it accepts bare
// JSON, fenced code blocks, <json> tags, JSON embedded in prose and A2A data
// parts, in the shapes name+arguments, name+kwargs, name+args, tool_call, tool_calls
// (including OpenAI-style items) and arrays of calls. Anything it does not
// recognise is plain text for the user. It is bounded in time and memory on
// hostile input and never panics.
//
// The package example follows a conversation in the default profile: the
// first message, a tool call parsed from the reply, its result sent back,
// and the agent's answer to the user. Example_tau2A2A and Example_structured
// show the other profiles.
package translation
