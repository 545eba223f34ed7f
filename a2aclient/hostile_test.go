package a2aclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// TestHostileAgents: every way a hostile agent misbehaves on the wire ends
// the call as a CallError of the right class, within the configured limits,
// retried only when the failure is transient, with its metrics filled.
func TestHostileAgents(t *testing.T) {
	const hundredMiB = 100 << 20
	tests := []struct {
		name      string
		agent     func(t *testing.T) *agenttest.Hostile
		opts      []Option
		wantClass ErrorClass
		wantCalls int // A2A calls the agent saw: 1 + retries
		streaming bool
		// maxTime is well under the request timeout (a cap, not the
		// timeout, must end the call), with room for a loaded machine: the
		// 100 MiB event took 3.5-4.2 s under -race at a load average of
		// 16-20, against 3 s before.
		maxTime time.Duration
		check   func(t *testing.T, m RequestMetrics)
	}{
		{
			name:      "100 MiB reply, 1 MiB cap",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.HugeReplyAgent(t, hundredMiB) },
			opts:      []Option{WithMaxResponseBytes(1 << 20)},
			wantClass: ErrClassTooLarge,
			wantCalls: 1,
			maxTime:   2 * time.Second,
			check: func(t *testing.T, m RequestMetrics) {
				if m.HTTPStatus != 200 || m.BytesReceived > 1<<20+1 {
					t.Errorf("status %d, %d bytes received: want 200 and reading stopped at the 1 MiB cap", m.HTTPStatus, m.BytesReceived)
				}
			},
		},
		{
			name:      "100 MiB reply, default cap",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.HugeReplyAgent(t, hundredMiB) },
			wantClass: ErrClassTooLarge,
			wantCalls: 1,
			maxTime:   10 * time.Second,
			check: func(t *testing.T, m RequestMetrics) {
				if m.BytesReceived > DefaultMaxResponseBytes+1 {
					t.Errorf("%d bytes received, want reading stopped at the %d-byte cap", m.BytesReceived, DefaultMaxResponseBytes)
				}
			},
		},
		{
			name:      "100 MiB event, 1 MiB cap",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.HugeEventAgent(t, hundredMiB) },
			opts:      []Option{WithMaxResponseBytes(1 << 20)},
			wantClass: ErrClassTooLarge,
			wantCalls: 1,
			streaming: true,
			maxTime:   2 * time.Second,
		},
		{
			name:      "100 MiB event, default cap",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.HugeEventAgent(t, hundredMiB) },
			wantClass: ErrClassTooLarge,
			wantCalls: 1,
			streaming: true,
			maxTime:   10 * time.Second,
		},
		{
			// 4 MB of `[{},...]` in a data part: 1.3 million values, refused
			// after the first DefaultMaxResponseValues of them.
			name:      "data part of empty objects",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.DataBombAgent(t, 4_000_000/3, false) },
			wantClass: ErrClassTooLarge,
			wantCalls: 1,
			maxTime:   10 * time.Second,
			check:     wantValueRefusal("JSON values"),
		},
		{
			name:      "data part of empty objects, streamed",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.DataBombAgent(t, 4_000_000/3, true) },
			wantClass: ErrClassTooLarge,
			wantCalls: 1,
			streaming: true,
			maxTime:   10 * time.Second,
			check:     wantValueRefusal("JSON values"),
		},
		{
			// 16 MiB less a little of structpb nulls: 4 million values,
			// within the byte cap.
			name:      "gRPC data part of nulls",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.GRPCNullsAgent(t, 16<<20-4096, false) },
			wantClass: ErrClassTooLarge,
			wantCalls: 1,
			maxTime:   10 * time.Second, // counting 4 million messages takes seconds under -race
			check:     wantValueRefusal("protobuf messages"),
		},
		{
			name:      "gRPC data part of nulls, streamed",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.GRPCNullsAgent(t, 16<<20-4096, true) },
			wantClass: ErrClassTooLarge,
			wantCalls: 1,
			streaming: true,
			maxTime:   10 * time.Second,
			check:     wantValueRefusal("protobuf messages"),
		},
		{
			name:      "endless stream",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.EndlessStreamAgent(t, 10*time.Millisecond) },
			opts:      []Option{WithRequestTimeout(300 * time.Millisecond)},
			wantClass: ErrClassTimeout,
			wantCalls: 1, // a timeout is not retried
			streaming: true,
			maxTime:   time.Second,
			check: func(t *testing.T, m RequestMetrics) {
				if m.LatencyMS < 300 {
					t.Errorf("latency %vms, want the 300ms request timeout", m.LatencyMS)
				}
				if m.HTTPStatus != 200 || m.BytesReceived < 1000 {
					t.Errorf("status %d, %d bytes: want the stream's events counted", m.HTTPStatus, m.BytesReceived)
				}
			},
		},
		{
			// An agent that floods events hits the size cap (which counts the
			// whole stream) before a generous timeout.
			name:      "flooding stream",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.EndlessStreamAgent(t, 0) },
			opts:      []Option{WithRequestTimeout(20 * time.Second), WithMaxResponseBytes(256 << 10)},
			wantClass: ErrClassTooLarge,
			wantCalls: 1,
			streaming: true,
			maxTime:   2 * time.Second,
			check: func(t *testing.T, m RequestMetrics) {
				if m.BytesReceived > 256<<10+1 {
					t.Errorf("%d bytes received, want reading stopped at the 256 KiB cap", m.BytesReceived)
				}
			},
		},
		{
			name:      "reset mid-stream",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.ResetAgent(t, true) },
			opts:      []Option{WithRetries(2, time.Millisecond)},
			wantClass: ErrClassConnection,
			wantCalls: 3,
			streaming: true,
			maxTime:   time.Second,
		},
		{
			name:      "reset mid-body",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.ResetAgent(t, false) },
			opts:      []Option{WithRetries(2, time.Millisecond)},
			wantClass: ErrClassConnection,
			wantCalls: 3,
			maxTime:   time.Second,
		},
		{
			name:      "JSON cut mid-object",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.TruncatedAgent(t, agenttest.TruncateBody) },
			wantClass: ErrClassProtocol,
			wantCalls: 1,
			maxTime:   time.Second,
		},
		{
			name: "Content-Length stops mid-object",
			agent: func(t *testing.T) *agenttest.Hostile {
				return agenttest.TruncatedAgent(t, agenttest.TruncateContentLength)
			},
			wantClass: ErrClassProtocol,
			wantCalls: 1,
			maxTime:   time.Second,
		},
		{
			name:      "event cut mid-object",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.TruncatedAgent(t, agenttest.TruncateEvent) },
			wantClass: ErrClassProtocol,
			wantCalls: 1,
			streaming: true,
			maxTime:   time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := tt.agent(t)
			c := dial(t, agent.URL, tt.opts...)
			if c.Streaming() != tt.streaming {
				t.Fatalf("client streaming = %v, want %v", c.Streaming(), tt.streaming)
			}
			start := time.Now()
			resp, err := say(t, c.NewConversation(), "hello")
			elapsed := time.Since(start)
			var cerr *CallError
			if !errors.As(err, &cerr) {
				t.Fatalf("Send error = %v (%T), want a *CallError", err, err)
			}
			if cerr.Class != tt.wantClass {
				t.Errorf("class %q, want %q (error: %v)", cerr.Class, tt.wantClass, err)
			}
			if elapsed > tt.maxTime {
				t.Errorf("took %v, want under %v", elapsed, tt.maxTime)
			}
			m := resp.Metrics
			if m.ErrorClass != cerr.Class || m.Error == "" || m.LatencyMS <= 0 {
				t.Errorf("metrics %+v do not record the failure", m)
			}
			if got := agent.Calls(); got != tt.wantCalls || m.Retries != tt.wantCalls-1 {
				t.Errorf("agent saw %d calls, metrics say %d retries; want %d calls", got, m.Retries, tt.wantCalls)
			}
			if tt.check != nil {
				tt.check(t, m)
			}
			t.Logf("%v after %v: %v", cerr.Class, elapsed.Round(time.Millisecond), err)
		})
	}
}

// wantValueRefusal checks that the error says the reply had too many
// values of the kind what names.
func wantValueRefusal(what string) func(t *testing.T, m RequestMetrics) {
	return func(t *testing.T, m RequestMetrics) {
		want := fmt.Sprintf("the reply has more than %d %s", DefaultMaxResponseValues, what)
		if !strings.Contains(m.Error, want) {
			t.Errorf("error %q, want it to say %q", m.Error, want)
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestReadWhole checks the body readWhole hands a2a-go: the same bytes
// whatever their size and however they arrive, a body over the cap dropped
// before a2a-go reads any of it, a broken body's error passed on, and the
// kept body (for tolerant decoding) whole or absent.
func TestReadWhole(t *testing.T) {
	pattern := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i%26)
		}
		return b
	}
	uneven := func(body []byte) io.Reader {
		var chunks [][]byte
		for i, size := 0, 1; i < len(body); size = size*3%70_001 + 1 {
			end := min(i+size, len(body))
			chunks = append(chunks, body[i:end])
			i = end
		}
		return &chunkReader{chunks: chunks}
	}
	type result struct {
		read     []byte
		err      error
		kept     []byte
		received int64
		tooLarge bool
		fromWire int64
	}
	run := func(body io.Reader, contentLength, limit int64) result {
		ex := &exchange{pool: newBodyPool()}
		wire := &countingReader{r: body}
		rc := readWhole(context.Background(), ex, &http.Response{Body: io.NopCloser(wire), ContentLength: contentLength}, limit, nil)
		var r result
		r.read, r.err = io.ReadAll(rc)
		_ = rc.Close()
		_, _, r.received, r.kept, r.tooLarge = ex.snapshot()
		r.kept = bytes.Clone(r.kept)
		r.fromWire = wire.n
		ex.release()
		return r
	}

	for _, size := range []int{0, 300, maxKeptBody - 1, maxKeptBody, maxKeptBody + 1, maxKeptBody + 2*pieceSize + 12345} {
		body := pattern(size)
		for _, cl := range []int64{-1, int64(size)} {
			r := run(uneven(body), cl, DefaultMaxResponseBytes)
			if r.err != nil || !bytes.Equal(r.read, body) || r.received != int64(size) || r.tooLarge {
				t.Fatalf("%d bytes (Content-Length %d): read %d bytes, err %v, received %d, too large %v", size, cl, len(r.read), r.err, r.received, r.tooLarge)
			}
			if wantKept := size <= maxKeptBody; (wantKept && !bytes.Equal(r.kept, body)) || (!wantKept && len(r.kept) > 0) {
				t.Errorf("%d bytes: kept %d bytes, want the body kept whole: %v", size, len(r.kept), wantKept)
			}
		}
	}

	// Over the cap: nothing reaches a2a-go but the error, and reading stops
	// one byte past the cap.
	const limit = maxKeptBody + pieceSize/2
	r := run(uneven(pattern(limit+pieceSize)), -1, limit)
	if len(r.read) != 0 || !errors.Is(r.err, errResponseTooLarge) || !r.tooLarge || r.received != limit+1 || len(r.kept) > 0 {
		t.Errorf("over the cap: read %d bytes, err %v, too large %v, received %d, kept %d", len(r.read), r.err, r.tooLarge, r.received, len(r.kept))
	}
	// A Content-Length over the cap fails without reading.
	r = run(bytes.NewReader(pattern(2048)), 2048, 1024)
	if !errors.Is(r.err, errResponseTooLarge) || !r.tooLarge || r.fromWire != 0 || r.received != 0 {
		t.Errorf("Content-Length over the cap: err %v, too large %v, %d bytes read from the wire", r.err, r.tooLarge, r.fromWire)
	}
	// A body that breaks off: its bytes, then the error, recorded as the
	// read error of the exchange.
	broken := io.MultiReader(bytes.NewReader(pattern(5000)), iotest.ErrReader(io.ErrUnexpectedEOF))
	ex := &exchange{pool: newBodyPool()}
	rc := readWhole(context.Background(), ex, &http.Response{Body: io.NopCloser(broken), ContentLength: 9000}, 0, nil)
	got, err := io.ReadAll(rc)
	if len(got) != 5000 || !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(ex.bodyReadErr(), io.ErrUnexpectedEOF) {
		t.Errorf("broken body: read %d bytes, err %v, recorded %v", len(got), err, ex.bodyReadErr())
	}
	_ = rc.Close()
	ex.release()
}
