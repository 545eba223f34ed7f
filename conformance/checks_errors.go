package conformance

import (
	"context"
	"net/http"

	"google.golang.org/protobuf/types/known/emptypb"
)

// JSON-RPC bodies of the error probes. The invalid-request and parse-error
// bodies are JSON-RPC 2.0's own examples (§7).
const (
	probeInvalidRequest = `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`
	probeParseError     = `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`
	probeUnknownMethod  = "proctor/noSuchMethod"
)

// checkErrors provokes the protocol errors of the interface's binding.
func (r *run) checkErrors(ctx context.Context, c caller, in Interface) {
	switch c := c.(type) {
	case *jsonrpcCaller:
		r.jsonrpcErrors(ctx, c, in)
	case *restCaller:
		r.restErrors(ctx, c, in)
	case *grpcCaller:
		r.grpcErrors(ctx, c, in)
	}
}

// expectError records id as passed when rep is the wanted error.
func (r *run) expectError(id string, in Interface, want wantError, rep reply, what string) {
	tr := []string{in.Name}
	if want.matches(rep, in.ProtocolBinding) {
		r.pass(id, tr, what+" gets "+want.describe(in.ProtocolBinding))
		return
	}
	r.fail(id, tr, want.describe(in.ProtocolBinding), rep.describe(), rep.ex)
}

func (r *run) jsonrpcErrors(ctx context.Context, c *jsonrpcCaller, in Interface) {
	id := c.nextID()
	rep := c.raw(ctx, rpcBody(id, probeUnknownMethod, map[string]any{}), id, false)
	r.expectError(ReqMethodNotFound, in, errMethodNotFound(), rep, "an unknown method")

	rep = c.raw(ctx, []byte(probeInvalidRequest), "", true)
	r.expectError(ReqInvalidRequest, in, errInvalidRequest(), rep, `a request whose "method" is a number`)

	rep = c.raw(ctx, []byte(probeParseError), "", true)
	r.expectError(ReqParseError, in, errParse(), rep, "a body that is not JSON")

	id = c.nextID()
	rep = c.raw(ctx, rpcBody(id, methodsFor(in.ProtocolVersion).send, map[string]any{"message": "not a message"}), id, false)
	r.expectError(ReqInvalidParams, in, errInvalidParams(), rep, "a message that is a string")
}

func (r *run) restErrors(ctx context.Context, c *restCaller, in Interface) {
	rep := c.raw(ctx, http.MethodPost, "/message:send", []byte(`{"message": {`))
	r.expectError(ReqParseError, in, errParse(), rep, "a body that is not JSON")

	rep = c.raw(ctx, http.MethodPost, "/message:send", []byte(`{"message": "not a message"}`))
	r.expectError(ReqInvalidParams, in, errInvalidParams(), rep, "a message that is a string")
}

func (r *run) grpcErrors(ctx context.Context, c *grpcCaller, in Interface) {
	rep := c.invoke(ctx, "ProctorNoSuchMethod", &emptypb.Empty{}, &emptypb.Empty{})
	r.expectError(ReqMethodNotFound, in, errMethodNotFound(), rep, "an unknown method")

	rep = c.emptySend(ctx)
	r.expectError(ReqInvalidParams, in, errInvalidParams(), rep, "SendMessage without a message")
}
