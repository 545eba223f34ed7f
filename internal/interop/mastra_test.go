//go:build unix

package interop

import (
	"testing"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
)

// mastraProject is testdata/mastra: agents built with Mastra (@mastra/core
// with its Hono server adapter, @mastra/hono, and an explicit in-memory A2A
// task store), driven by the AI SDK's scripted mock model.
func mastraProject() nodeProject {
	return nodeProject{dir: "testdata/mastra", pkg: "@mastra/core", version: "1.71.0"}
}

// Mastra 1.71.0's deviations from the A2A specification (@mastra/server
// 1.67.0 serves its A2A routes, @mastra/hono 1.7.9 mounts them).
func mastraDeviations() []deviation {
	jsonrpcErrors := "JSON-RPC 2.0 §5 and §5.1, A2A 0.3 §8.1: a request that is not JSON, not a request, names an unknown " +
		"method or carries invalid params gets a JSON-RPC error response (-32700, -32600, -32601, -32602). Mastra's Hono " +
		"adapter validates the body against the A2A route's schema before the JSON-RPC handler runs and answers HTTP 400 " +
		"{\"error\":\"Invalid request body\",\"issues\":[...]}, with no jsonrpc, id or error code (@mastra/hono registerRoute)"
	return []deviation{
		// Its "skills": [] (an agent without tools) is valid: skills is
		// required but may be empty (A2A 1.0 §8.4.1), as both card checks
		// now agree.
		{conformance.ReqCardDefaults, "HTTP", "A2A 0.3 §5.5 AgentCard: preferredTransport defaults to JSONRPC, which proctor " +
			"assumes; Mastra's card (@mastra/server getAgentCardByIdHandler) states protocolVersion but not preferredTransport, " +
			"which clients that build their transport from it (a2a-go's 0.3 card parser) need", false},
		{conformance.ReqVersionPatch, "JSONRPC 0.3", "A2A 1.0 §3.6: patch numbers MUST NOT be considered in version " +
			"negotiation; Mastra accepts only the exact strings \"0.3\" and \"1.0\" (@mastra/server dist/a2a-*.js " +
			"resolveA2AProtocolVersion) and answers A2A-Version 0.3.1 with VersionNotSupportedError", false},
		{conformance.ReqMethodNotFound, "JSONRPC 0.3", jsonrpcErrors, false},
		{conformance.ReqInvalidRequest, "JSONRPC 0.3", jsonrpcErrors, false},
		{conformance.ReqParseError, "JSONRPC 0.3", jsonrpcErrors, false},
		{conformance.ReqInvalidParams, "JSONRPC 0.3", jsonrpcErrors, false},
		{conformance.ReqJSONRPCEnvelope, "JSONRPC 0.3", jsonrpcErrors, false},
	}
}

// TestMastra evaluates both Mastra agents from their own, unmodified cards
// (0.3 style, with only url: JSON-RPC 0.3 by A2A 0.3's defaults), on every
// interface the card declares, streaming off and on, and checks each with
// proctor's conformance checker.
func TestMastra(t *testing.T) {
	t.Parallel()
	testCardURLFramework(t, mastraProject(), frameworkFacts{
		cardNote: "card has no preferredTransport; assumed JSONRPC at url",
		// A completed task's metadata.execution.usage holds the model's
		// usage; streamed, the task ends in a status update without it.
		usage: map[a2aclient.StreamingMode]bool{a2aclient.StreamingOff: true},
		// Streamed, each answer follows a working status update saying
		// so; the task read unstreamed keeps no such message.
		interim: map[a2aclient.StreamingMode]string{a2aclient.StreamingOn: "Generating response..."},
		devs:    mastraDeviations(),
	})
}
