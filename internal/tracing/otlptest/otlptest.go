// Package otlptest is a loopback OTLP trace receiver for tests and
// benchmarks: it decodes what an OTLP exporter sends (over HTTP, protobuf
// optionally gzipped, or over gRPC) with the collector's own types and
// keeps the spans.
package otlptest

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// maxBody bounds one export request.
const maxBody = 64 << 20

// Span is a received span, its ids in hex and its attributes as text.
type Span struct {
	Name         string
	TraceID      string
	SpanID       string
	ParentSpanID string
	Kind         string
	// Status is the status code's name (STATUS_CODE_UNSET, …).
	Status     string
	Attributes map[string]string
	// Service is the resource's service.name; Scope the instrumentation
	// scope's name.
	Service, Scope string
}

// Receiver is an OTLP/HTTP endpoint on loopback.
type Receiver struct {
	// URL is the base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it
	// (spans are posted to URL + "/v1/traces").
	URL string

	mu      sync.Mutex
	spans   []Span
	exports int
	// deferred, when set, keeps the requests' bodies undecoded until
	// Count asks (benchmarks: decoding is the collector's work, not the
	// exporter's, and a real collector does it in another process).
	deferred bool
	bodies   [][]byte
	count    int
}

// Start serves a receiver until the test ends.
func Start(tb testing.TB) *Receiver { return start(tb, false) }

// StartDeferred serves a receiver for benchmarks: it answers each export at
// once and decodes what it received only when Count is called, so that
// the benchmark's CPU is the exporter's, not the collector's. It keeps no
// spans, only their count.
func StartDeferred(tb testing.TB) *Receiver { return start(tb, true) }

func start(tb testing.TB, deferred bool) *Receiver {
	r, srv := Serve(deferred)
	tb.Cleanup(srv.Close)
	return r
}

// StartGRPC serves a receiver over OTLP/gRPC until the test ends; its URL
// is the endpoint as OTEL_EXPORTER_OTLP_ENDPOINT takes it for the grpc
// protocol (http://host:port, no TLS).
func StartGRPC(tb testing.TB) *Receiver {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	r := &Receiver{URL: "http://" + ln.Addr().String()}
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(maxBody))
	collectorpb.RegisterTraceServiceServer(srv, grpcService{r: r})
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(srv.Stop)
	return r
}

// grpcService is the collector's trace service over gRPC.
type grpcService struct {
	collectorpb.UnimplementedTraceServiceServer
	r *Receiver
}

func (g grpcService) Export(_ context.Context, req *collectorpb.ExportTraceServiceRequest) (*collectorpb.ExportTraceServiceResponse, error) {
	g.r.add(req)
	return &collectorpb.ExportTraceServiceResponse{}, nil
}

// Serve serves a receiver (deferred: as StartDeferred's) for processes
// without a test (a benchmark's collector in a child process); the caller
// closes the server.
func Serve(deferred bool) (*Receiver, *httptest.Server) {
	r := &Receiver{deferred: deferred}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = srv.URL
	return r, srv
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.Error(w, "POST /v1/traces only", http.StatusNotFound)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, req.Body, maxBody)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer zr.Close()
		body = io.LimitReader(zr, maxBody)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.deferred {
		r.mu.Lock()
		r.bodies = append(r.bodies, data)
		r.mu.Unlock()
	} else {
		var msg collectorpb.ExportTraceServiceRequest
		if err := proto.Unmarshal(data, &msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.add(&msg)
	}
	out, _ := proto.Marshal(&collectorpb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *Receiver) add(msg *collectorpb.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exports++
	for _, rs := range msg.GetResourceSpans() {
		service := attrs(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.count++
				if r.deferred {
					continue
				}
				r.spans = append(r.spans, Span{
					Name: s.GetName(), TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentSpanID: hex.EncodeToString(s.GetParentSpanId()), Kind: s.GetKind().String(),
					Status: s.GetStatus().GetCode().String(), Attributes: attrs(s.GetAttributes()),
					Service: service, Scope: ss.GetScope().GetName(),
				})
			}
		}
	}
}

// Spans returns the spans received so far, in arrival order.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Count is how many spans arrived (kept or not). Bodies a deferred
// receiver cannot decode count as none.
func (r *Receiver) Count() int {
	r.mu.Lock()
	bodies := r.bodies
	r.bodies = nil
	r.mu.Unlock()
	for _, b := range bodies {
		var msg collectorpb.ExportTraceServiceRequest
		if proto.Unmarshal(b, &msg) == nil {
			r.add(&msg)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = valueText(kv.GetValue())
	}
	return m
}

func valueText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	default:
		return v.String()
	}
}

// Node is a span in a tree of spans: its name, the attributes a test
// picked, and its children, sorted.
type Node struct {
	Name     string
	Attrs    map[string]string `json:",omitempty"`
	Children []*Node           `json:",omitempty"`
}

// Tree builds the trees of spans (one per root: a span whose parent did
// not arrive), keeping of each span the attributes keep names for its
// name, and sorting children by name, then attributes, so that two runs
// of the same work compare equal whatever their concurrency.
func Tree(spans []Span, keep func(name string) []string) []*Node {
	nodes := make(map[string]*Node, len(spans))
	for _, s := range spans {
		n := &Node{Name: s.Name}
		for _, k := range keep(s.Name) {
			if v, ok := s.Attributes[k]; ok {
				if n.Attrs == nil {
					n.Attrs = map[string]string{}
				}
				n.Attrs[k] = v
			}
		}
		nodes[s.SpanID] = n
	}
	var roots []*Node
	for _, s := range spans {
		if p, ok := nodes[s.ParentSpanID]; ok && s.ParentSpanID != "" {
			p.Children = append(p.Children, nodes[s.SpanID])
		} else {
			roots = append(roots, nodes[s.SpanID])
		}
	}
	sortNodes(roots)
	return roots
}

func sortNodes(ns []*Node) {
	for _, n := range ns {
		sortNodes(n.Children)
	}
	sort.SliceStable(ns, func(i, j int) bool { return nodeKey(ns[i]) < nodeKey(ns[j]) })
}

// nodeKey orders nodes: name, attributes, then the shape below them.
func nodeKey(n *Node) string {
	var b strings.Builder
	b.WriteString(n.Name)
	keys := make([]string, 0, len(n.Attrs))
	for k := range n.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "|%s=%s", k, n.Attrs[k])
	}
	for _, c := range n.Children {
		b.WriteString("(" + nodeKey(c) + ")")
	}
	return b.String()
}
