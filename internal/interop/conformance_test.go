//go:build unix

package interop

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// deviation is a requirement a real SDK fails on one interface, with the
// reason: the conformance tests assert these exactly, so that a change in
// the SDK (a fix, or a new deviation) makes them fail.
type deviation struct {
	id, iface string
	// why names the specification section and the SDK code at fault.
	why string
	// taskStreams: only a stream that ends with a status update shows it.
	taskStreams bool
}

// a2a-go v2.4.0's deviations from the A2A specification.
func a2agoDeviations() []deviation {
	invalidRequest := "JSON-RPC 2.0 §5.1 and §7: {\"method\": 1} is an invalid request (-32600); a2a-go decodes the envelope " +
		"into a struct and reports the type error as invalid params (-32602) (a2asrv/jsonrpc.go handleUnmarshalError)"
	subscribeDone := "A2A 1.0 §3.1.6 and a2a.proto SubscribeToTask: subscribing to a terminal task is UnsupportedOperationError; " +
		"a2a-go wraps every Resubscribe error as TaskNotFoundError (a2asrv/handler.go SubscribeToTask)"
	listAuth := "A2A 1.0 §3.1.4 and §3.3.2: ListTasks lists the client's tasks, refusing only missing credentials the card asks for; " +
		"a2a-go's default task store lists no task of an unauthenticated caller (a2asrv/taskstore/inmemory.go List, " +
		"ErrUnauthenticated, with a2asrv.NewTaskStoreAuthenticator), -31401 / HTTP 401 / UNAUTHENTICATED, though the card " +
		"declares no security. (Behind it, its ListTasks answers invalid parameters -32700 or -32600 and accepts a bad status " +
		"and a negative historyLength: a2asrv/jsonrpc.go handleUnmarshalError, a2asrv/rest.go handleListTasks, " +
		"taskstore/inmemory.go decodePageToken; internal/a2afix corrects both)"
	noNegotiation := "A2A 1.0 §3.6.2: a version the interface does not serve is VersionNotSupportedError; a2a-go reads " +
		"A2A-Version into the call's service parameters and never checks it (a2asrv/jsonrpc.go, rest.go, a2agrpc/v1/handler.go)"
	devs := []deviation{
		{conformance.ReqInvalidRequest, "JSONRPC 1.0", invalidRequest, false},
		{conformance.ReqInvalidRequest, "JSONRPC 0.3", invalidRequest, false},
		{conformance.ReqSubscribeDone, "JSONRPC 1.0", subscribeDone, false},
		{conformance.ReqSubscribeDone, "HTTP+JSON 1.0", subscribeDone, false},
		{conformance.ReqSubscribeDone, "GRPC 1.0", subscribeDone, false},
		{conformance.ReqStreamFinal, "GRPC 0.3", "A2A 0.3 §7.2 and the 0.3 a2a.proto TaskStatusUpdateEvent.final: the last status update " +
			"of a stream says final; a2a-go's 0.3 gRPC conversion leaves it unset (a2apb/v0/pbconv/to_proto.go), while its 0.3 " +
			"JSON-RPC and HTTP+JSON bindings set it", true},
	}
	// A 1.0 request without A2A-Version, which a2a-go serves as 1.0, is
	// served as conformance asks; 0.3 defines no negotiation to deviate
	// from.
	for _, iface := range []string{"JSONRPC 1.0", "HTTP+JSON 1.0", "GRPC 1.0"} {
		devs = append(devs,
			deviation{conformance.ReqListTasks, iface, listAuth, false},
			deviation{conformance.ReqVersionUnsupported, iface, noNegotiation, false})
	}
	return devs
}

// a2aFixed are the deviations internal/a2afix leaves: only on gRPC 0.3,
// which proctor does not serve, and which a2afix's interceptors are not
// put in front of.
func a2aFixed() []deviation {
	var out []deviation
	for _, d := range a2agoDeviations() {
		if d.iface == "GRPC 0.3" {
			out = append(out, d)
		}
	}
	return out
}

// messageOnly drops the deviations only task streams show.
func messageOnly(devs []deviation) []deviation {
	var out []deviation
	for _, d := range devs {
		if !d.taskStreams {
			out = append(out, d)
		}
	}
	return out
}

// @a2a-js/sdk 1.3.0's deviations.
func jsDeviations() []deviation {
	patch := "A2A 1.0 §3.6: patch numbers MUST NOT be considered in version negotiation; the SDK compares A2A-Version " +
		"with the card's protocolVersion strings exactly (dist/server/*/index.js validateVersion, supported.has(requested)), " +
		"so 1.0.1 (0.3.1) is refused with VersionNotSupportedError"
	devs := []deviation{
		{conformance.ReqInvalidRequest, "JSONRPC 1.0", "JSON-RPC 2.0 §5.1 and §7: a JSON object that is not a request is -32600; " +
			"the SDK's 1.0 JsonRpcTransportHandler throws RequestMalformedError(\"Invalid JSON-RPC Request.\"), which it maps to " +
			"INVALID_PARAMS, -32602 (dist/server/index.js, A2A_ERROR_SPECS); its 0.3 compat handler answers -32600", false},
		{conformance.ReqListInvalidParams, "JSONRPC 1.0", "A2A 1.0 §3.3.2 (servers MUST validate all input parameters): the " +
			"SDK's DefaultRequestHandler.listTasks (dist/server/index.js) never checks historyLength, and accepts " +
			"statusTimestampAfter \"-1\" because Date.parse reads it as the year -1: both get a page, not -32602", false},
		{conformance.ReqListInvalidParams, "HTTP+JSON 1.0", "A2A 1.0 §3.3.2: statusTimestampAfter=-1 passes the SDK's " +
			"Date.parse check in DefaultRequestHandler.listTasks (dist/server/index.js) and gets a page, not HTTP 400", false},
		{conformance.ReqListInvalidParams, "GRPC 1.0", "A2A 1.0 §3.3.2: a negative history_length is not checked by the SDK's " +
			"DefaultRequestHandler.listTasks (dist/server/index.js) and gets a page, not INVALID_ARGUMENT", false},
	}
	for _, iface := range []string{"JSONRPC 1.0", "HTTP+JSON 1.0", "GRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3", "GRPC 0.3"} {
		devs = append(devs, deviation{conformance.ReqVersionPatch, iface, patch, false})
	}
	return devs
}

// failures lists a report's failures as "id @ interface".
func failures(rep *conformance.Report) []string {
	var out []string
	for _, f := range rep.Failed() {
		for _, tr := range f.Transports {
			out = append(out, f.ID+" @ "+tr)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// expected lists the deviations whose checks a report made (a check that
// did not apply, such as subscribing to a task of an agent that answers
// with messages, cannot show its deviation).
func expected(rep *conformance.Report, devs []deviation) []string {
	made := map[string]bool{}
	for _, r := range rep.Results {
		if r.Status != conformance.Skip {
			for _, tr := range r.Transports {
				made[r.ID+" @ "+tr] = true
			}
		}
	}
	out := []string{}
	for _, d := range devs {
		if key := d.id + " @ " + d.iface; made[key] {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

func assertDeviations(t *testing.T, rep *conformance.Report, devs []deviation) {
	t.Helper()
	got, want := failures(rep), expected(rep, devs)
	if got == nil {
		got = []string{}
	}
	if !slices.Equal(got, want) {
		for _, f := range rep.Failed() {
			t.Logf("%s [%s]: %s", f.ID, strings.Join(f.Transports, ", "), f.Message)
		}
		t.Fatalf("failures %q, want the documented deviations %q", got, want)
	}
	if wantLevel := deviationsLevel(want); rep.Level != wantLevel {
		t.Errorf("level %s, want %s", rep.Level, wantLevel)
	}
	if rep.Requests >= 200 || rep.DurationMS >= 10000 {
		t.Errorf("%d requests in %.0f ms: want under 200 and 10 s", rep.Requests, rep.DurationMS)
	}
	t.Logf("%s: %d passed, %d failed, %d skipped; %d requests in %.0f ms", rep.Level, rep.Summary.Passed,
		rep.Summary.Failed, rep.Summary.Skipped, rep.Requests, rep.DurationMS)
}

// deviationsLevel is the level of a report failing exactly the deviations
// ("id @ interface"): a failed SHOULD (card-defaults, say) alone leaves it
// minimal.
func deviationsLevel(devs []string) conformance.Level {
	levels := map[string]conformance.RequirementLevel{}
	for _, r := range conformance.Requirements() {
		levels[r.ID] = r.Level
	}
	var s conformance.Summary
	for _, d := range devs {
		id, _, _ := strings.Cut(d, " @ ")
		switch levels[id] {
		case conformance.Should:
			s.ShouldFailed++
		case conformance.May:
			s.MayFailed++
		default:
			s.MustFailed++
		}
	}
	return conformance.LevelOf(s)
}

// lifecycleMessages drive the lifecycle agents (agenttest's in Go,
// conformance.mjs in JavaScript) through every check.
func lifecycleMessages(slow, ask string) conformance.Option {
	return conformance.WithMessages(conformance.Messages{Basic: "hello", Slow: slow, MultiTurn: ask})
}

// TestConformanceA2AGo checks a2a-go's servers, every binding at 1.0 and
// 0.3: its documented deviations are all that fail, and internal/a2afix
// (which proctor serve uses) leaves only the one on gRPC 0.3, which proctor
// does not serve.
func TestConformanceA2AGo(t *testing.T) {
	msgs := lifecycleMessages(agenttest.LifecycleSlow, agenttest.LifecycleAsk)
	rep, err := conformance.Run(t.Context(), agenttest.StartLifecycle(t, agenttest.LifecycleOptions{}), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Interfaces); n != 6 {
		t.Fatalf("%d interfaces checked, want 6", n)
	}
	assertDeviations(t, rep, a2agoDeviations())

	fixed, err := conformance.Run(t.Context(), agenttest.StartLifecycle(t, agenttest.LifecycleOptions{Fixed: true}), msgs)
	if err != nil {
		t.Fatal(err)
	}
	assertDeviations(t, fixed, a2aFixed())

	// a2a-go's scripted peers answer with messages: the task checks skip,
	// the rest holds on every binding and version.
	for _, tr := range transports {
		for _, p := range protocols {
			t.Run(tr+"-"+p, func(t *testing.T) {
				rep, err := conformance.Run(context.Background(), startGoPeer(t, tr, p))
				if err != nil {
					t.Fatal(err)
				}
				assertDeviations(t, rep, messageOnly(a2agoDeviations()))
			})
		}
	}
}

// TestConformanceJS checks @a2a-js/sdk 1.3.0's servers: the lifecycle peer
// (conformance.mjs) on every binding at 1.0, at 0.3 (the SDK's compat
// layer), and at both on the same URLs, and the scripted message peer
// (server.mjs) on each binding and version.
func TestConformanceJS(t *testing.T) {
	for _, p := range []string{"1.0", "0.3", "both"} {
		t.Run("lifecycle-"+p, func(t *testing.T) {
			base := startJSScript(t, "conformance.mjs", "--protocol", p, "--port", "0", "--host", "127.0.0.1")
			rep, err := conformance.Run(t.Context(), base, lifecycleMessages("please work slowly on this", "please ask me something"))
			if err != nil {
				t.Fatal(err)
			}
			assertDeviations(t, rep, jsDeviations())
			for _, r := range rep.Results {
				// Every check applies except security, which the card does
				// not declare, 0.3 card defaults on a 1.0 card,
				// history-length on gRPC 0.3, whose GetTaskRequest cannot
				// leave historyLength unset (0 asks for no history at
				// all), and version negotiation on 0.3 interfaces (0.3
				// defines none).
				versioning03 := (r.ID == conformance.ReqVersionDefault || r.ID == conformance.ReqVersionUnsupported) &&
					len(r.Transports) == 1 && strings.HasSuffix(r.Transports[0], " 0.3")
				if r.Status == conformance.Skip && !strings.HasPrefix(r.ID, "auth-") && r.ID != conformance.ReqCardSecurity &&
					r.ID != conformance.ReqCardDefaults && !versioning03 &&
					!(r.ID == conformance.ReqHistoryLength && slices.Equal(r.Transports, []string{"GRPC 0.3"})) {
					t.Errorf("%s [%s] skipped: %s", r.ID, strings.Join(r.Transports, ", "), r.Message)
				}
			}
		})
	}
	for _, tr := range transports {
		for _, p := range protocols {
			t.Run("messages-"+tr+"-"+p, func(t *testing.T) {
				rep, err := conformance.Run(t.Context(), startJSPeer(t, tr, p))
				if err != nil {
					t.Fatal(err)
				}
				assertDeviations(t, rep, jsDeviations())
			})
		}
	}
}
