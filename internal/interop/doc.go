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
*/
package interop
