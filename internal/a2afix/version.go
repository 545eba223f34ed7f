package a2afix

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// majorMinor reads a protocol version as "Major.Minor", ignoring a patch
// number (§3.6: patch numbers MUST NOT be considered in negotiation).
func majorMinor(v string) (string, bool) {
	parts := strings.Split(strings.TrimSpace(v), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return "", false
	}
	nums := make([]string, 0, 2)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return "", false
		}
		if i < 2 {
			nums = append(nums, strconv.Itoa(n))
		}
	}
	return nums[0] + "." + nums[1], true
}

// versionRefusal is the VersionNotSupportedError for a request that asked
// for requested on an interface serving served, or nil when the interface
// serves it. A request that names no version is served: an HTTP+JSON or
// gRPC interface serves one version, which its path or service names
// (A2A 1.0 §3.6.2 reads no header as 0.3, but 1.0 clients that send none,
// the A2A TCK among them, would be refused outright); JSON-RPC, where the
// method names the version, is [JSONRPCEndpoint]'s.
func versionRefusal(served a2a.ProtocolVersion, requested string) error {
	want, _ := majorMinor(string(served))
	asked := strings.TrimSpace(requested)
	if asked == "" {
		return nil
	}
	if got, ok := majorMinor(asked); ok && got == want {
		return nil
	}
	if len(asked) > 20 {
		asked = asked[:20] + "..."
	}
	return a2a.NewError(a2a.ErrVersionNotSupported, fmt.Sprintf(
		"A2A-Version %q is not served by this interface, which serves %s: send A2A-Version: %s, or use an interface of the agent card that serves %q",
		asked, want, want, asked))
}

// Version makes an HTTP+JSON interface negotiate the protocol version
// (A2A 1.0 §3.6.2): a request whose A2A-Version header (or A2A-Version
// query parameter, §3.6.1) names a version other than served is answered
// VersionNotSupportedError (-32009, HTTP 400, in the binding's error
// form); one that names none is served as served, the version its path
// says. next must serve a [Handler]. JSON-RPC interfaces use
// [JSONRPCEndpoint].
func Version(served a2a.ProtocolVersion, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked := r.Header.Get(a2a.SvcParamVersion)
		if asked == "" {
			asked = r.URL.Query().Get(a2a.SvcParamVersion)
		}
		if err := versionRefusal(served, asked); err != nil {
			r = r.WithContext(withRefusal(r.Context(), err))
		}
		next.ServeHTTP(w, r)
	})
}

// REST answers a ListTasks query (GET /tasks) with invalid parameters
// with InvalidParamsError (HTTP 400) where a2a-go's REST handler answers
// what it cannot parse as an invalid request. It goes inside the path
// prefix, in front of a2a-go's REST handler, which must serve a
// [Handler].
func REST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && (r.URL.Path == "/tasks" || strings.HasSuffix(r.URL.Path, "/tasks")) {
			if v := restListTasksViolation(r.URL.Query()); v != nil {
				r = r.WithContext(withRefusal(r.Context(), v.err()))
				// The refusal answers; a2a-go must get as far as asking.
				r.URL.RawQuery = ""
			}
		}
		next.ServeHTTP(w, r)
	})
}

// grpcVersion is the A2A-Version a gRPC call sent in its metadata.
func grpcVersion(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get(strings.ToLower(a2a.SvcParamVersion)); len(v) > 0 {
		return v[0]
	}
	return ""
}

// GRPCUnary is the unary interceptor of a gRPC interface serving served:
// it negotiates the version as [Version] does, and validates ListTasks
// requests before a2a-go converts them (an explicit page_size 0 or a
// negative history_length would be lost). The service must serve a
// [Handler].
func GRPCUnary(served a2a.ProtocolVersion) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
		ctx = withRefusal(ctx, versionRefusal(served, grpcVersion(ctx)))
		if lt, ok := req.(*a2apb.ListTasksRequest); ok && lt != nil {
			if v := grpcListTasksViolation(lt); v != nil {
				ctx = withRefusal(ctx, v.err())
			}
		}
		return next(ctx, req)
	}
}

// GRPCStream is the stream interceptor of a gRPC interface serving
// served: it negotiates the version as [Version] does.
func GRPCStream(served a2a.ProtocolVersion) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, next grpc.StreamHandler) error {
		ctx := ss.Context()
		if err := versionRefusal(served, grpcVersion(ctx)); err != nil {
			ss = refusedStream{ss, withRefusal(ctx, err)}
		}
		return next(srv, ss)
	}
}

// refusedStream is a server stream whose context carries a refusal.
type refusedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s refusedStream) Context() context.Context { return s.ctx }
