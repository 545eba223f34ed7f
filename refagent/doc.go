// Package refagent is proctor's reference agent: a real A2A server, built on
// a2a-go's a2asrv, that solves the built-in mock domain's tasks with plain
// rules and no LLM. It shows what a well-behaved participant looks like and
// gives proctor something to evaluate end to end (`proctor agent`, and
// `proctor run --agent builtin`, which serves it in process on a loopback
// port).
//
// It speaks the three message profiles of package translation, and tells
// them apart by the first message of each conversation (an A2A context),
// which carries the domain policy and the tools; later messages are read,
// and replies framed, in that profile. Each reply is one agent Message with
// one part, and makes at most one tool call:
//
//   - agentbeats: the first message is text with the policy inside
//     <policy>...</policy>, the tools as OpenAI function JSON (with the
//     respond pseudo-tool) and, on a line starting with "User message: ",
//     what the user said. Later messages carry "User message: <text>" or
//     "Tool call result (<tool>):\n<content>" blocks. The reply is a text
//     part holding one JSON object: {"name": "<tool>", "arguments": {...}}
//     to call a tool, or {"name": "respond", "arguments": {"content": "..."}}
//     to talk to the user.
//   - tau2-a2a: the first message is text with the policy inside
//     <policy>...</policy>, the user's words, and the tools between lines
//     <available_tools> and </available_tools>. Later messages are the
//     user's words, or the JSON object {"tool_results": [...]}. The reply
//     is a text part: plain text for the user, or
//     {"tool_call": {"name": "<tool>", "arguments": {...}}}.
//   - structured: the first message is a text part with the user's words
//     and a data part {"policy", "tools", "reply_format"}. Later messages
//     are the user's words as text, or a data part {"tool_results": [...]}
//     (the same object as text is accepted too). The reply is a text part
//     for the user, or a data part {"tool_calls": [{"name", "arguments"}]}.
//
// A context whose first message the agent has not seen (or has forgotten)
// is taken to be in the agentbeats profile.
//
// The rules follow the domain's policy: they authenticate the user by email
// before anything else, act only on the user's own tasks, ask for a priority
// rather than guess one, ask for confirmation before deleting, relay the plan
// limit when a create or reopen is refused, and transfer out-of-scope requests
// (billing, refunds, plan changes, account deletion) to a human agent before
// telling the user. They read emails, task ids, quoted task titles,
// priorities and statuses with regular expressions; the decision logic is a
// pure state machine per conversation, kept in memory (bounded by
// [MaxContexts]). Every reply is a completed A2A task, which GetTask and
// ListTasks find until [MaxTasks] later ones have pushed it out. The LLM
// baseline ([NewBaselineHandler]) keeps its conversations' ADK sessions
// the same way, the last adksession.MaxSessions (10,000) to have a turn.
//
// [Serve] runs the agent on a listener (see its example); to mount it in
// your own server or advertise a public URL, use [New] and [Agent.Handler].
// [Agent.Reply] is the agent without the transport.
package refagent
