/*
Package ecp is proctor's runtime side of the Evaluation Context Protocol
(ECP 0.1.0): the agent under evaluation is a JSON-RPC 2.0 server that proctor
launches (stdio) or dials (WebSocket), initializes once, resets before every
simulation and steps one unit of work at a time.

Targets are written as agent references:

	ecp+stdio:COMMAND ARGS...     launch COMMAND (split shell-style, no shell)
	ecp+ws://HOST:PORT/PATH       dial a WebSocket
	ecp+wss://HOST:PORT/PATH      dial a WebSocket over TLS

Over stdio the agent runs in its own process group (killed as a whole on
any failure and on Close, with Pdeathsig on Linux so that it dies with
proctor); its stderr is kept in a bounded buffer and copied to a log when one
is given. Messages are newline-delimited JSON; an agent whose first output
is a Content-Length header (LSP style) is read, and then written to, in that
framing (Options.Framing forces it from the first message).

[Client] speaks the four methods (agent/initialize, agent/reset, agent/step,
agent/inspect); [Pool] keeps one client per concurrent simulation, reset
between uses and replaced when broken; [Agent] adapts a pool to the agent
interface (package agent), beside package a2aagent for A2A agents; [Serve]
and [WebSocketHandler] serve a [Handler] (an agent) over ECP.

Shapes the draft leaves open, as proctor reads and writes them:

  - agent/step context: {"time": RFC 3339 simulated clock, "user_id",
    "kind": "user" | "tool_results"}; the first step after a reset also
    carries "policy" (the domain policy), "tools" (OpenAI function format)
    and, for a task that starts from a message history, "history".
  - tool_calls items: {"id", "name", "arguments"} (arguments an object or a
    JSON string) or OpenAI-style {"id", "type": "function", "function":
    {"name", "arguments"}}.
  - tool results: the next step's input is the JSON string
    {"tool_results": [{"id", "name", "content", "error"}]} with context.kind
    "tool_results".
  - usage: {"input", "output"}, {"input_tokens", "output_tokens"} or
    {"prompt_tokens", "completion_tokens"}.
*/
package ecp
