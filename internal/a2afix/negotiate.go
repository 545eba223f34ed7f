package a2afix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// methodVersions are the JSON-RPC methods of each protocol version: the
// two versions share none, so a method names the version its caller
// speaks.
var methodVersions = map[string]string{
	"SendMessage": "1.0", "SendStreamingMessage": "1.0", "GetTask": "1.0", "ListTasks": "1.0",
	"CancelTask": "1.0", "SubscribeToTask": "1.0", "GetExtendedAgentCard": "1.0",
	"CreateTaskPushNotificationConfig": "1.0", "GetTaskPushNotificationConfig": "1.0",
	"ListTaskPushNotificationConfigs": "1.0", "DeleteTaskPushNotificationConfig": "1.0",
	"message/send": "0.3", "message/stream": "0.3", "tasks/get": "0.3", "tasks/cancel": "0.3",
	"tasks/resubscribe": "0.3", "agent/getAuthenticatedExtendedCard": "0.3",
	"tasks/pushNotificationConfig/set": "0.3", "tasks/pushNotificationConfig/get": "0.3",
	"tasks/pushNotificationConfig/list": "0.3", "tasks/pushNotificationConfig/delete": "0.3",
}

// MethodVersion is the protocol version ("1.0" or "0.3") whose JSON-RPC
// binding defines method, or "" when neither does.
func MethodVersion(method string) string { return methodVersions[method] }

// JSONRPCEndpoint serves A2A JSON-RPC at one URL for one or more protocol
// versions, negotiating the version (A2A 1.0 §3.6.2) this way:
//
//   - A request that names a version (the A2A-Version header or query
//     parameter) is served by that version's handler when Declared holds
//     it, and refused with VersionNotSupportedError (-32009) otherwise.
//   - A request that names none is served by the version its method
//     belongs to (SendMessage is 1.0, message/send 0.3), whatever the
//     URL declares, when Handlers serves that version; a method of a
//     version it does not serve is refused -32009. A2A 1.0 §3.6.2 reads
//     a missing header as 0.3, but 1.0 clients that send none (the A2A
//     TCK among them) would otherwise be refused outright, and the method
//     already says which version the caller speaks. Served hears of it.
//   - Anything else (a method neither version has, a body that is not
//     JSON-RPC) goes to the first declared version's handler, which
//     answers it as JSON-RPC says (-32601, -32700, -32600).
//
// Each handler is an a2a-go JSON-RPC handler (a2asrv.NewJSONRPCHandler,
// a2av0.NewJSONRPCHandler) serving a [Handler]; JSONRPCEndpoint puts
// [JSONRPC] in front of each.
type JSONRPCEndpoint struct {
	// Declared are the versions the agent card declares at this URL,
	// first the one to answer with when a request says nothing.
	Declared []a2a.ProtocolVersion
	// Handlers serve each version, keyed by Major.Minor ("1.0", "0.3").
	Handlers map[a2a.ProtocolVersion]http.Handler
	// Served, if set, is told which version serves each request it does
	// not refuse, and whether the request's method chose it (the request
	// named no version), before it is served.
	Served func(r *http.Request, version a2a.ProtocolVersion, byMethod bool)
}

// ServeHTTP implements http.Handler.
func (e JSONRPCEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(e.Declared) == 0 {
		http.Error(w, "a2afix: JSONRPCEndpoint declares no version", http.StatusInternalServerError)
		return
	}
	own := e.Declared[0]
	asked := r.Header.Get(a2a.SvcParamVersion)
	if asked == "" {
		asked = r.URL.Query().Get(a2a.SvcParamVersion)
	}
	method, id := e.peek(r)
	methodVersion := a2a.ProtocolVersion(MethodVersion(method))
	if strings.TrimSpace(asked) != "" {
		e.serveAsked(w, r, asked, method, id)
		return
	}
	switch {
	case methodVersion == "":
		e.serve(w, r, own, false)
	case e.Handlers[methodVersion] == nil:
		writeJSONRPCError(w, id, -32009, fmt.Sprintf(
			"%s is an A2A %s method and the request names no A2A-Version; this interface serves %s: call it with A2A %s methods and the header A2A-Version: %s",
			method, methodVersion, own, own, own))
	default:
		e.serve(w, r, methodVersion, true)
	}
}

// serveAsked serves a request that names version asked, by that version
// when the URL declares it, or refuses it.
func (e JSONRPCEndpoint) serveAsked(w http.ResponseWriter, r *http.Request, asked, method string, id json.RawMessage) {
	if v, ok := e.declares(asked); ok {
		e.serve(w, r, v, false)
		return
	}
	// a2a-go writes the refusal in its form once it has read the method,
	// which only the method's own version knows.
	refusal := e.refusal(asked)
	methodVersion := a2a.ProtocolVersion(MethodVersion(method))
	switch {
	case methodVersion == "":
		e.refuse(w, r, refusal, e.Declared[0])
	case e.Handlers[methodVersion] == nil:
		writeJSONRPCError(w, id, -32009, refusal.Error())
	default:
		e.refuse(w, r, refusal, methodVersion)
	}
}

// declares reports which declared version asked names (ignoring a patch
// number, §3.6).
func (e JSONRPCEndpoint) declares(asked string) (a2a.ProtocolVersion, bool) {
	got, ok := majorMinor(asked)
	if !ok {
		return "", false
	}
	for _, v := range e.Declared {
		if want, _ := majorMinor(string(v)); want == got {
			return v, true
		}
	}
	return "", false
}

// refusal is the VersionNotSupportedError for a request asking for asked.
func (e JSONRPCEndpoint) refusal(asked string) error {
	if len(e.Declared) == 1 {
		return versionRefusal(e.Declared[0], asked)
	}
	names := make([]string, len(e.Declared))
	for i, v := range e.Declared {
		names[i] = string(v)
	}
	if len(asked) > 20 {
		asked = asked[:20] + "..."
	}
	return a2a.NewError(a2a.ErrVersionNotSupported, fmt.Sprintf(
		"A2A-Version %q is not served here, which serves %s: send one of those", asked, strings.Join(names, " and ")))
}

// serve hands r to version v's handler, behind [JSONRPC]; byMethod says
// whether r's method chose v.
func (e JSONRPCEndpoint) serve(w http.ResponseWriter, r *http.Request, v a2a.ProtocolVersion, byMethod bool) {
	if e.Served != nil {
		e.Served(r, v, byMethod)
	}
	JSONRPC(e.Handlers[v]).ServeHTTP(w, r)
}

// refuse hands r to version v's handler marked to be refused with err,
// which the handler answers in its form.
func (e JSONRPCEndpoint) refuse(w http.ResponseWriter, r *http.Request, err error, v a2a.ProtocolVersion) {
	JSONRPC(e.Handlers[v]).ServeHTTP(w, r.WithContext(withRefusal(r.Context(), err)))
}

// peek reads a POST request's JSON-RPC method and id without consuming its
// body; both are zero when the body is not a JSON-RPC request object.
func (e JSONRPCEndpoint) peek(r *http.Request) (method string, id json.RawMessage) {
	if r.Method != http.MethodPost || r.Body == nil {
		return "", nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxEnvelopeBytes+1))
	if err != nil || len(body) > maxEnvelopeBytes {
		// A body over the server's limit, or a broken connection:
		// a2a-go reports it as it reads the rest.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		return "", nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var envelope struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &envelope) != nil {
		return "", nil
	}
	if k := kind(envelope.ID); k != '"' && k != '0' {
		envelope.ID = json.RawMessage("null")
	}
	return envelope.Method, envelope.ID
}

// writeJSONRPCError answers a JSON-RPC request with an error.
func writeJSONRPCError(w http.ResponseWriter, id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": message}})
}
