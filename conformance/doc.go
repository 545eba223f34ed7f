/*
Package conformance checks an A2A agent against the A2A specification
(protocol 1.0, and 0.3 where the agent still serves it): what `proctor
conformance` and the check_conformance skill of `proctor serve` run.

It reads the agent card, then checks every interface the card declares
(JSON-RPC, HTTP+JSON and gRPC, at 1.0 and 0.3) with its own probes on the
wire rather than through an SDK, because the point is what the agent
actually sent: the JSON-RPC envelope and error codes, the HTTP status and
Content-Type, the gRPC status, the order and form of streamed events. Every
requirement has a stable id, a level (MUST, SHOULD, MAY) and the
specification sections it comes from (Requirements lists them); every
result says which interfaces it ran on, passed, failed or was skipped, what
was expected and received, the exchanges that show a failure, and how to
fix it. The report's Level follows LevelRule: non-conformant when any MUST
check failed.

A run is safe against production agents: requests go one at a time, each is
bounded in time and size, the whole run is bounded in time and in number of
requests (WithMaxRequests), and tasks the run started that are still running
at the end are canceled. The texts it sends are configurable (WithMessages);
by default it only says hello.

Run checks an agent and returns its Report; Write prints one as a table,
JSON, Markdown or JUnit XML. Example shows a run.

RunECP checks an agent that speaks the Evaluation Context Protocol instead
(ecp+stdio:COMMAND or ecp+ws://HOST:PORT/PATH, see package ecp) against the
ECP 0.1.0 draft and JSON-RPC 2.0: ECPRequirements lists its checks. Its
report has the same model, levels and formats, with AgentProtocol "ecp".
It sends its messages as they are written, malformed ones included
(ecp.Client.Exchange), launches a fresh agent where a check needs one or an
earlier one died, and kills every agent process it launched before it
returns.
*/
package conformance
