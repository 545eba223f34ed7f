package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

// The request log has one record per A2A request, with these fields and
// nothing the caller sent: no token, no header value, no body.
const (
	logRequest = "a2a request"
	// LogEvaluationStart and LogEvaluationEnd are the messages of an
	// evaluation's start and end records.
	LogEvaluationStart = "evaluation started"
	LogEvaluationEnd   = "evaluation ended"
)

// endpoint names an A2A interface in the request log: its binding
// ("jsonrpc", "rest", "grpc") and protocol version.
type endpoint struct {
	binding, version string
}

// requestRecord is what the request log learns of a request on its way
// in: the A2A method (from a2a-go's call context) and the caller's tenant
// (from authentication). The handlers fill it; the logging middleware,
// which put it in the request's context, reads it at the end.
type requestRecord struct {
	mu     sync.Mutex
	method string
	tenant string
	failed bool
	// version is the protocol version that served the request, when the
	// endpoint serves more than one or the request named none; byMethod
	// says the request's method chose it.
	version  string
	byMethod bool
}

type requestRecordKey struct{}

func withRequestRecord(ctx context.Context) (context.Context, *requestRecord) {
	rec := &requestRecord{}
	return context.WithValue(ctx, requestRecordKey{}, rec), rec
}

func requestRecordFrom(ctx context.Context) *requestRecord {
	rec, _ := ctx.Value(requestRecordKey{}).(*requestRecord)
	return rec
}

// noteTenant records the authenticated caller's tenant (its name, never
// its token; "" without tokens) for the request log, which wraps the
// authentication and so cannot read the context it hands on.
func noteTenant(ctx context.Context, tenant string) {
	if rec := requestRecordFrom(ctx); rec != nil {
		rec.mu.Lock()
		rec.tenant = tenant
		rec.mu.Unlock()
	}
}

// noteVersion records the protocol version a JSON-RPC request was served
// by, and whether its method chose it (a2afix.JSONRPCEndpoint.Served).
func noteVersion(r *http.Request, v a2a.ProtocolVersion, byMethod bool) {
	if rec := requestRecordFrom(r.Context()); rec != nil {
		rec.mu.Lock()
		rec.version, rec.byMethod = string(v), byMethod
		rec.mu.Unlock()
	}
}

// fields are the record's fields.
func (rec *requestRecord) fields() (method, tenant string, failed bool) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.method, rec.tenant, rec.failed
}

// versionAttrs are the record's version fields: the version that served
// the request (the endpoint's when none was noted), and
// version_inferred: true when the request's method chose it.
func (rec *requestRecord) versionAttrs(ep endpoint) []slog.Attr {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.version == "" {
		return []slog.Attr{slog.String("version", ep.version)}
	}
	attrs := []slog.Attr{slog.String("version", rec.version)}
	if rec.byMethod {
		attrs = append(attrs, slog.Bool("version_inferred", true))
	}
	return attrs
}

// methodRecorder is an a2asrv.CallInterceptor that tells the request log
// which A2A method a request called and whether it failed.
type methodRecorder struct {
	a2asrv.PassthroughCallInterceptor
}

// Before implements a2asrv.CallInterceptor.
func (methodRecorder) Before(ctx context.Context, callCtx *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if rec := requestRecordFrom(ctx); rec != nil {
		rec.mu.Lock()
		rec.method = callCtx.Method()
		rec.mu.Unlock()
	}
	return ctx, nil, nil
}

// After implements a2asrv.CallInterceptor.
func (methodRecorder) After(ctx context.Context, _ *a2asrv.CallContext, resp *a2asrv.Response) error {
	if rec := requestRecordFrom(ctx); rec != nil && resp.Err != nil {
		rec.mu.Lock()
		rec.failed = true
		rec.mu.Unlock()
	}
	return nil
}

// logRequests logs one record per request to an HTTP A2A endpoint once
// it is answered (a stream once it ends).
func (s *Server) logRequests(ep endpoint, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx, rec := withRequestRecord(r.Context())
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(ctx))
		s.logRequest(ctx, rec, ep, slog.Int("status", sw.statusCode()), start)
	})
}

// logRequest writes a request's record.
func (s *Server) logRequest(ctx context.Context, rec *requestRecord, ep endpoint, status slog.Attr, start time.Time) {
	method, tenant, failed := rec.fields()
	attrs := append([]slog.Attr{slog.String("method", method), slog.String("binding", ep.binding)}, rec.versionAttrs(ep)...)
	s.log.LogAttrs(ctx, slog.LevelInfo, logRequest, append(attrs,
		slog.String("tenant", tenant), status, slog.Bool("failed", failed),
		slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))...)
}

// grpcEndpoint is the gRPC interface in the request log.
var grpcEndpoint = endpoint{binding: "grpc", version: "1.0"}

// logUnary logs one record per unary gRPC call.
func (s *Server) logUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	start := time.Now()
	ctx, rec := withRequestRecord(ctx)
	noteGRPCMethod(rec, info.FullMethod)
	resp, err := next(ctx, req)
	s.logRequest(ctx, rec, grpcEndpoint, slog.String("status", status.Code(err).String()), start)
	return resp, err
}

// logStream logs one record per streaming gRPC call, once it ends.
func (s *Server) logStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
	start := time.Now()
	ctx, rec := withRequestRecord(ss.Context())
	noteGRPCMethod(rec, info.FullMethod)
	err := next(srv, contextStream{ss, ctx})
	s.logRequest(ctx, rec, grpcEndpoint, slog.String("status", status.Code(err).String()), start)
	return err
}

// noteGRPCMethod names the call by its gRPC method until a2a-go names it.
func noteGRPCMethod(rec *requestRecord, fullMethod string) {
	rec.method = path.Base(fullMethod)
}

// contextStream is a gRPC stream with another context.
type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

// Context implements grpc.ServerStream.
func (s contextStream) Context() context.Context { return s.ctx }

// statusWriter remembers the status code of a response.
type statusWriter struct {
	http.ResponseWriter
	code int
}

// WriteHeader implements http.ResponseWriter.
func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher, which streams need.
func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusCode is the response's status: 200 when the handler wrote none.
func (w *statusWriter) statusCode() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// redactURL is an agent URL fit for a log: without its user info, query
// and fragment, which may carry credentials; a URL that does not parse
// is left out whole.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		if err == nil && u.Opaque == "" && u.User == nil && u.RawQuery == "" {
			return raw // "builtin", a bare name
		}
		return "[unparsable]"
	}
	if u.Opaque != "" { // ecp+stdio:COMMAND ARGS: the command only
		command, _, _ := strings.Cut(u.Opaque, " ")
		return u.Scheme + ":" + command
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// orDiscard is l, or a logger that logs nothing.
func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
