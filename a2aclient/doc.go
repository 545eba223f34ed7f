/*
Package a2aclient is how proctor talks to the agents it evaluates.

It wraps a2a-go's client (imported here as sdkclient) with what an evaluator
needs on top of the protocol: agent-card resolution from a base URL or a card
URL, one A2A context per simulated conversation, normalization of the many
response shapes real agents produce into one list of parts, and metrics for
every request (latency, HTTP status or gRPC code, bytes, tokens).

Dial fetches the agent card and picks one of its interfaces: the first, in
the card's order (the agent's preference), that proctor speaks. It speaks
protocol 1.0 and 0.3, each over JSON-RPC, HTTP+JSON (REST) and gRPC;
WithTransport and WithProtocol narrow the choice, and a card that offers
nothing usable is an error naming what it does offer. A 0.2/0.3-style card
with a url but no preferredTransport (or no protocolVersion) is read as A2A
0.3 says: JSON-RPC at url, protocol 0.3.0; the deviation is reported in the
first Response.NonConformant of each conversation. Conversation.Send
sends with SendMessage, or SendStreamingMessage when the card declares
streaming (WithStreaming), retries transient failures (refused or reset
connections, HTTP 502/503/504, gRPC UNAVAILABLE) with jittered backoff
(WithRetries), and polls a task the agent has not finished with GetTask.
A request that provably never reached the agent (written to a kept-alive
connection the agent had just closed) is sent again at once and counted
in RequestMetrics.Resends, not as a failure.
WithDenyPrivateTargets refuses connections to non-public addresses, for
agent URLs that come from someone else.

Example shows a conversation with an agent.
*/
package a2aclient
