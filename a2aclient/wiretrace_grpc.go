package a2aclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// grpcDialOptions records the client's gRPC calls in the trace. They come
// after the interceptors that add the configured headers, so the metadata
// recorded is what is sent.
func (t *WireTrace) grpcDialOptions(given http.Header) []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			rec, start := t.grpcRequest(ctx, method, cc.Target(), req, given)
			var header metadata.MD
			err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Header(&header))...)
			if err != nil {
				t.grpcError(rec, start, err)
				return err
			}
			t.grpcResponse(rec, start, header, given)
			end := rec
			end.Time, end.Kind, end.ElapsedMS, end.GRPCCode = time.Now().UTC(), WireEnd, msSince(start), "OK"
			end.Body, end.BodyBytes, end.Truncated = t.message(reply)
			t.write(end)
			return nil
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			own := conversationHeaders(ctx)
			t.addSecrets(headerValues(given, own))
			rec := WireRecord{Exchange: t.next(), ContextID: exchangeContextID(ctx), Transport: "grpc", Method: method, URL: cc.Target()}
			start := time.Now()
			cs, err := streamer(ctx, desc, cc, method, opts...)
			if err != nil {
				t.grpcError(rec, start, err)
				return nil, err
			}
			ts := &traceStream{ClientStream: cs, trace: t, rec: rec, start: start, md: outgoingHeaders(ctx), given: given, own: own}
			// A stream is left once its final event is read, without
			// reading its end: its end is recorded when the call ends, or
			// else when the stream is torn down.
			if ex, _ := ctx.Value(exchangeKey{}).(*exchange); ex != nil {
				ex.atRelease(func() { ts.finish(nil) })
			}
			context.AfterFunc(cs.Context(), func() { ts.finish(nil) })
			return ts, nil
		}),
	}
}

// exchangeContextID is the context id of the conversation ctx's call
// belongs to.
func exchangeContextID(ctx context.Context) string {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return ""
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.contextID
}

// outgoingHeaders is the metadata a call sends.
func outgoingHeaders(ctx context.Context) metadata.MD {
	md, _ := metadata.FromOutgoingContext(ctx)
	return md
}

// conversationHeaders are the headers of the conversation ctx's call
// belongs to.
func conversationHeaders(ctx context.Context) http.Header {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return nil
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.headers
}

func (t *WireTrace) grpcRequest(ctx context.Context, method, target string, req any, given http.Header) (WireRecord, time.Time) {
	own := conversationHeaders(ctx)
	t.addSecrets(headerValues(given, own))
	rec := WireRecord{Exchange: t.next(), ContextID: exchangeContextID(ctx), Transport: "grpc", Method: method, URL: target}
	start := time.Now()
	r := rec
	r.Time, r.Kind, r.Headers = start.UTC(), WireRequest, redactHeaders(outgoingHeaders(ctx), given, own)
	r.Body, r.BodyBytes, r.Truncated = t.message(req)
	t.write(r)
	return rec, start
}

func (t *WireTrace) grpcResponse(rec WireRecord, start time.Time, header metadata.MD, given http.Header) {
	r := rec
	r.Time, r.Kind, r.ElapsedMS, r.Headers = time.Now().UTC(), WireResponse, msSince(start), redactHeaders(header, given)
	t.write(r)
}

func (t *WireTrace) grpcError(rec WireRecord, start time.Time, err error) {
	e := rec
	e.Time, e.Kind, e.ElapsedMS = time.Now().UTC(), WireError, msSince(start)
	e.GRPCCode, e.Error = status.Code(err).String(), err.Error()
	t.write(e)
}

// message renders a gRPC message as JSON, cut to the body cap.
func (t *WireTrace) message(m any) (string, int64, bool) {
	var b []byte
	var err error
	if pm, ok := m.(proto.Message); ok {
		b, err = protojson.Marshal(pm)
	} else {
		b, err = json.Marshal(m)
	}
	if err != nil {
		return "", 0, false
	}
	return t.body(b, int64(len(b)))
}

// traceStream records a gRPC stream: each message sent as a request
// record, each received as an event, and its end.
type traceStream struct {
	grpc.ClientStream
	trace *WireTrace
	rec   WireRecord
	start time.Time
	md    metadata.MD
	given http.Header
	own   http.Header

	mu       sync.Mutex
	sent     bool
	answered bool
	ended    bool
	total    int64
}

func (s *traceStream) SendMsg(m any) error {
	err := s.ClientStream.SendMsg(m)
	r := s.rec
	r.Time, r.Kind, r.Headers = time.Now().UTC(), WireRequest, nil
	s.mu.Lock()
	if !s.sent {
		r.Time, r.Headers = s.start.UTC(), redactHeaders(s.md, s.given, s.own)
		s.sent = true
	}
	s.mu.Unlock()
	r.Body, r.BodyBytes, r.Truncated = s.trace.message(m)
	s.trace.write(r)
	return err
}

func (s *traceStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return err
	}
	if !s.answered && err == nil {
		s.answered = true
		header, _ := s.ClientStream.Header()
		s.trace.grpcResponse(s.rec, s.start, header, s.given)
	}
	if err == nil {
		e := s.rec
		e.Time, e.Kind, e.ElapsedMS = time.Now().UTC(), WireEvent, msSince(s.start)
		e.Body, e.BodyBytes, e.Truncated = s.trace.message(m)
		s.total += e.BodyBytes
		s.trace.write(e)
		return nil
	}
	s.finishLocked(err)
	return err
}

// finish records the stream's end once: err is what reading it ended
// with, nil when the client left it.
func (s *traceStream) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finishLocked(err)
}

func (s *traceStream) finishLocked(err error) {
	if s.ended {
		return
	}
	s.ended = true
	end := s.rec
	end.Time, end.Kind, end.ElapsedMS, end.BodyBytes = time.Now().UTC(), WireEnd, msSince(s.start), s.total
	switch {
	case errors.Is(err, io.EOF):
		end.GRPCCode = "OK"
	case err != nil:
		end.GRPCCode, end.Error = status.Code(err).String(), err.Error()
	}
	s.trace.write(end)
}
