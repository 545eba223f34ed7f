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
carries the text instead of a Message) and --streaming true|false (what its
card declares). It prints one line, READY and the base URL of its agent card,
and exits on SIGTERM or when its stdin closes.

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
