package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
)

// versionKey is the context key of a version override.
type versionKey struct{}

// withVersion makes the calls made with ctx send A2A-Version v (gRPC: the
// a2a-version metadata) instead of their interface's version; "" sends
// none.
func withVersion(ctx context.Context, v string) context.Context {
	return context.WithValue(ctx, versionKey{}, v)
}

// versionOverride is the version withVersion set, if any.
func versionOverride(ctx context.Context) (string, bool) {
	v, ok := ctx.Value(versionKey{}).(string)
	return v, ok
}

// errVersionNotSupported is VersionNotSupportedError (1.0 §5.4).
func errVersionNotSupported() wantError {
	return wantError{"VersionNotSupportedError", -32009, []int{http.StatusBadRequest}, codes.FailedPrecondition}
}

// checkVersions checks version negotiation (1.0 §3.6) on one interface
// with GetTask of an unknown task: an interface that serves the request
// answers as it answered with its own version (base), one that does not
// VersionNotSupportedError. info tells which other versions the agent
// serves at the same URL. 0.3.0 defines neither the A2A-Version header
// nor VersionNotSupportedError: on a 0.3 interface only the patch check
// applies (a header the agent ignores changes nothing).
func (r *run) checkVersions(ctx context.Context, info *cardInfo, c caller, in Interface, base reply) {
	tr := []string{in.Name}
	served := func(v string) bool {
		for _, o := range info.interfaces {
			if o.URL == in.URL && o.ProtocolBinding == in.ProtocolBinding && o.ProtocolVersion == v {
				return true
			}
		}
		return false
	}
	probe := func(v string) reply { return c.get(withVersion(ctx, v), unknownTaskID(), nil) }
	refused := errVersionNotSupported()
	servedAs := func(rep reply) bool {
		return sameAnswer(rep, base) && (!refused.matches(rep, in.ProtocolBinding) || refused.matches(base, in.ProtocolBinding))
	}
	asBase := "the answer it gives with A2A-Version " + in.ProtocolVersion + " (" + base.describe() + ")"
	if in.ProtocolVersion == version03 {
		why := "0.3.0 defines neither the A2A-Version header nor VersionNotSupportedError"
		r.skip(ReqVersionUnsupported, tr, why)
		r.skip(ReqVersionDefault, tr, why)
	} else {
		r.checkVersionUnsupported(c, in, probe, served(version03))
		r.checkVersionDefault(ctx, c, in, servedAs, served(version03))
	}

	// A patch number changes nothing.
	patched := in.ProtocolVersion + ".1"
	if rep := probe(patched); servedAs(rep) {
		r.pass(ReqVersionPatch, tr, "A2A-Version "+patched+" is served as "+in.ProtocolVersion)
	} else {
		r.fail(ReqVersionPatch, tr, asBase, rep.describe()+" for A2A-Version "+patched, rep.ex)
	}
}

// checkVersionUnsupported checks that a 1.0 interface refuses a version
// it does not serve: an unsupported one, and 0.3 unless its URL serves
// 0.3 too (with03).
func (r *run) checkVersionUnsupported(c caller, in Interface, probe func(string) reply, with03 bool) {
	tr := []string{in.Name}
	refused := errVersionNotSupported()
	var bad []string
	var exs []Exchange
	unsupported := []string{"9.9"}
	if !with03 {
		unsupported = append(unsupported, version03)
	}
	for _, v := range unsupported {
		if rep := probe(v); !refused.matches(rep, in.ProtocolBinding) {
			bad = append(bad, fmt.Sprintf("A2A-Version %s: %s", v, rep.describe()))
			exs = append(exs, rep.ex)
		}
	}
	if len(bad) > 0 {
		r.fail(ReqVersionUnsupported, tr, refused.describe(in.ProtocolBinding)+" for a version the interface does not serve", strings.Join(bad, "; "), exs...)
	} else {
		r.pass(ReqVersionUnsupported, tr, "A2A-Version "+strings.Join(unsupported, " and ")+" refused with "+refused.describe(in.ProtocolBinding))
	}
}

// checkVersionDefault sends a 1.0 request (GetTask) without A2A-Version
// to a 1.0 interface. Serving it (its method, path or service says 1.0) is
// what 1.0 clients that send no header (the A2A TCK among them) need;
// refusing it as 0.3 (§3.6.2: no header means 0.3) with
// VersionNotSupportedError, or answering it as 0.3 where the URL serves
// 0.3 too (with03), is strict and conformant too. Anything else fails.
func (r *run) checkVersionDefault(ctx context.Context, c caller, in Interface, servedAs func(reply) bool, with03 bool) {
	tr := []string{in.Name}
	none := c.get(withVersion(ctx, ""), unknownTaskID(), nil)
	switch {
	case servedAs(none):
		r.pass(ReqVersionDefault, tr, "a 1.0 request without A2A-Version is served as 1.0")
	case errVersionNotSupported().matches(none, in.ProtocolBinding):
		r.pass(ReqVersionDefault, tr, "strict: a 1.0 request without A2A-Version is refused as 0.3 (§3.6.2); "+
			"1.0 clients that send no header, the A2A TCK among them, cannot use this interface")
	case with03 && errMethodNotFound().matches(none, in.ProtocolBinding):
		r.pass(ReqVersionDefault, tr, "strict: a 1.0 request without A2A-Version is answered as 0.3 (§3.6.2), which the URL also serves")
	default:
		r.fail(ReqVersionDefault, tr, "the request served as 1.0, or "+errVersionNotSupported().describe(in.ProtocolBinding),
			none.describe()+" without A2A-Version", none.ex)
	}
}

// sameAnswer reports whether two replies are the same kind of answer:
// the same JSON-RPC error code, gRPC status or HTTP status.
func sameAnswer(a, b reply) bool {
	switch {
	case a.fail != nil && a.obj == nil && a.result == nil, b.fail != nil && b.obj == nil && b.result == nil:
		return false
	case a.rpcErr != nil || b.rpcErr != nil:
		return a.rpcErr != nil && b.rpcErr != nil && a.rpcErr.Code == b.rpcErr.Code
	case a.isGRPC || b.isGRPC:
		return a.isGRPC && b.isGRPC && a.grpcCode == b.grpcCode
	}
	return a.status == b.status
}
