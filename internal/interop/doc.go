/*
Package interop tests proctor against real A2A peers built with other SDKs.

The package has no API: it is the home of interoperability tests that start
agents written with another SDK in a child process, resolve their agent
cards and run full proctor simulations against them, on every transport and
protocol version those SDKs serve.

The JavaScript peer lives in testdata/jspeer: a small scripted agent for the
mock domain's task mock-01, served with the official @a2a-js/sdk (pinned to
1.3.0 with an exact package-lock.json) over JSON-RPC, HTTP+JSON (REST) or
gRPC, at protocol 1.0 or 0.3 (through the SDK's v0.3 compat layer). Every
configuration plays the same script, so every configuration must give proctor
the same transcript and the same reward.

Running the tests needs Node.js 20 or later and the peer's dependencies:

	npm ci --prefix internal/interop/testdata/jspeer
	go test ./internal/interop/

Without node or without testdata/jspeer/node_modules the tests skip, unless
the CI environment variable is set: then they fail, so that CI cannot pass
without running them.

A peer can also be run by hand:

	cd internal/interop/testdata/jspeer
	node server.mjs --transport jsonrpc --protocol 1.0
	# READY http://127.0.0.1:43211
	proctor run --domain mock --task-ids mock-01 --agent http://127.0.0.1:43211

It takes --transport jsonrpc|rest|grpc, --protocol 1.0|0.3|both, --port,
--host, --reply message|task (reply with a completed Task whose artifact
carries the text instead of a Message), --streaming true|false (what its
card declares) and --keep-alive-ms N (how long its HTTP server keeps an idle
connection open; node's default is 5 s). It prints one line, READY and the base URL of its agent card,
and exits on SIGTERM or when its stdin closes.

The tRPC-Agent-Go peer lives in testdata/trpcpeer, a Go module of its own
(so that the framework stays out of proctor's go.mod): an LLM agent of
tRPC-Agent-Go v1.11.2 behind its server/a2a, whose model is a scripted
model.Model. Its card is the one server/a2a builds, with url alone, so
proctor evaluates it over JSON-RPC at protocol 0.3 as A2A 0.3 says. It
refuses every turn (--mode refuse), or calls the agent's tool
find_user_by_email on the first turn, which the framework sends as a data
part and leaves to the caller, then answers in text (--mode toolcall). The
test builds it with the go command (the Go build cache makes that quick
after the first time) and skips when its modules cannot be downloaded,
unless CI is set:

	cd internal/interop/testdata/trpcpeer && go mod download
	go test -run TRPC ./internal/interop/

	cd internal/interop/testdata/trpcpeer
	go run . --mode toolcall
	# READY http://127.0.0.1:43211

Agents built with frameworks nobody on the team wrote live beside it, one
npm project each with an exact package-lock.json: testdata/mastra (Mastra,
@mastra/core 1.71.0 with its Hono server adapter and an explicit task store)
and testdata/voltagent (VoltAgent, @voltagent/core 2.10.0 with
@voltagent/a2a-server 2.0.3 through @voltagent/server-hono 2.0.14). Their
model is the AI SDK's scripted mock (ai/test). Each server.mjs takes
--mode refuse|toolcall, --port and --host, prints READY and the URL of its
agent card, and exits on SIGTERM or when its stdin closes; TestMastra and
TestVoltAgent start both agents once, in parallel, evaluate them from their
own cards streamed and not, assert every transcript exactly, and run the
conformance checker against them (aisdkpeers_test.go holds the script).

	npm ci --prefix internal/interop/testdata/mastra
	cd internal/interop/testdata/mastra && node server.mjs --mode toolcall
	# READY http://127.0.0.1:43211/api/.well-known/toolcall/agent-card.json
	proctor run --domain mock --task-ids mock-01 --agent http://127.0.0.1:43211/api/.well-known/toolcall/agent-card.json

Agents built with popular frameworks are evaluated too, each from its own
unmodified agent card, with a scripted model and exact versions pinned by
its own npm project's package-lock.json:

  - testdata/adkts: ADK for TypeScript (@google/adk 2.0.0), served with its
    toA2a (A2A 0.3, JSON-RPC and HTTP+JSON). The model is a BaseLlm of the
    script's own, streaming as ADK's Gemini model does.
  - testdata/geminicli: Gemini CLI's A2A server
    (@google/gemini-cli-a2a-server 0.25.2), its shipped executable run in
    process and confined to loopback (A2A 0.3, JSON-RPC at the card's url,
    no preferredTransport). Its model is a fake Gemini API
    (internal/llmtest) named by --model-url.

Each plays two agents on task mock-01: one that refuses every turn, and one
that calls find_user_by_email on its first turn and then answers with a
fixed text (scripted_test.go holds their words). TestADKTS and TestGeminiCLI
start both agents once, in parallel, and run every binding the card
declares, streamed and not, asserting the exact transcript; they also run
the conformance suite against the refusing agent and assert its level and
failing requirements, with whose fault each is. By hand:

	npm ci --prefix internal/interop/testdata/adkts
	cd internal/interop/testdata/adkts && node server.mjs --mode toolcall
	# READY http://127.0.0.1:43211

	npm ci --prefix internal/interop/testdata/geminicli
	cd internal/interop/testdata/geminicli && node server.mjs --model-url http://127.0.0.1:PORT
	# READY http://127.0.0.1:43212 (needs a Gemini API at PORT)

The other direction is tested too: proctor serve (package agent), started in
process, is the server, and clients we did not write talk to it on every
interface its card lists (JSON-RPC and REST at 1.0 and 0.3, gRPC at 1.0),
streamed and polled: the JavaScript SDK's client (testdata/jspeer/client.mjs)
and a2a-go's own client. They run the three skills, the AgentBeats flow (an
assessment request as text, for a reference agent served on its own port)
and bearer-token authentication. client.mjs can be run by hand too:

	proctor serve --port 9009 &
	cd internal/interop/testdata/jspeer
	node client.mjs --card-url http://127.0.0.1:9009 --transport rest --protocol 0.3 --mode poll \
		--request '{"skill": "run_evaluation", "params": {"agent_url": "builtin", "num_tasks": 2}}'

It takes --transport jsonrpc|rest|grpc, --protocol 1.0|0.3, --mode
stream|poll, --request JSON (sent as a data part) or --text TEXT (a text
part), --auth-token, --timeout and --interval, follows the task to a terminal
state and prints one JSON line: the states seen, the final task or message,
the artifact names, the data part of the Result artifact and the status text.

The conformance suite (package conformance) checks these SDKs' servers too:
a2a-go's (agenttest's lifecycle agent and the scripted peers) and
@a2a-js/sdk's (testdata/jspeer/conformance.mjs, a lifecycle agent that
completes, works slowly until canceled, or asks for input, served on
JSON-RPC, HTTP+JSON and gRPC at once, at 1.0, 0.3 or both; and server.mjs).
Each SDK's deviations from the specification are listed in
conformance_test.go with the section they break and the code at fault, and
asserted exactly: when an SDK fixes one, or grows another, the test fails.

	node conformance.mjs --protocol both
	# READY http://127.0.0.1:43211
	proctor conformance http://127.0.0.1:43211 --message hello \
		--slow-message "please work slowly on this" --multi-turn-message "please ask me something"
*/
package interop
