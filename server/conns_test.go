package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// Slow and idle callers, tried as a hostile one would over loopback with
// short configured timeouts: every connection that stalls is closed by the
// server, and never holds more than the configured number of slots.

// testToken is the bearer token of the servers in these tests.
const testToken = "s3cret"

// rawConn dials the server's HTTP port: a caller that writes what it likes,
// when it likes.
func rawConn(t *testing.T, srv *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	// Whatever happens, the test ends.
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	return c
}

// awaitClose reads c until the server closes it, and returns what it read.
// It fails the test when the connection is still open after 20 s.
func awaitClose(t *testing.T, c net.Conn) string {
	t.Helper()
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the connection open (read %q)", b)
	}
	return string(b) // io.EOF, or a reset after the server's answer
}

// requestHead is the head of an HTTP request on path with the token.
func requestHead(method, path, token string, extra ...string) string {
	h := method + " " + path + " HTTP/1.1\r\nHost: proctor\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n"
	if token != "" {
		h += "Authorization: Bearer " + token + "\r\n"
	}
	for _, e := range extra {
		h += e + "\r\n"
	}
	return h + "\r\n"
}

// trickle writes body to c one byte per tick until done is closed or
// everything is written.
func trickle(c net.Conn, body string, tick time.Duration, done <-chan struct{}) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for i := range len(body) {
		select {
		case <-done:
			return
		case <-t.C:
		}
		if _, err := c.Write([]byte{body[i]}); err != nil {
			return
		}
	}
}

// TestSlowClientsAreCut: headers, bodies (with or without a token,
// Content-Length or chunked) and kept-alive connections that stall are
// closed by the server once their timeout passes, and a late body is
// answered 408.
func TestSlowClientsAreCut(t *testing.T) {
	const timeout = 300 * time.Millisecond
	srv := startServer(t, Config{GRPCPort: -1, AuthTokens: []string{testToken},
		HeaderTimeout: timeout, BodyTimeout: timeout, IdleTimeout: timeout})
	body := sendMessage(dataPartJSON(map[string]any{"skill": "list_domains"}))
	length := fmt.Sprintf("Content-Length: %d", len(body))
	cases := []struct {
		name  string
		head  string // sent at once
		slow  string // then sent one byte every 50 ms
		want  string // in what the server answers before it closes ("" for nothing)
		after time.Duration
	}{
		{"headers that never end", "POST " + PathJSONRPC + " HTTP/1.1\r\nHost: proctor\r\n", "X-Slow: " + strings.Repeat("a", 100), "400 Bad Request", timeout},
		{"no request at all", "", "", "", timeout},
		{"a slow body with the token", requestHead("POST", PathJSONRPC, testToken, length), body, "408 Request Timeout", timeout},
		{"a slow chunked body with the token", requestHead("POST", PathREST+"/message:send", testToken, "Transfer-Encoding: chunked"),
			"400\r\n" + strings.Repeat("a", 0x400), "408 Request Timeout", timeout},
		{"a slow body, protocol 0.3", requestHead("POST", PathJSONRPC03, testToken, length), body, "408 Request Timeout", timeout},
		{"a slow body without a token, JSON-RPC", requestHead("POST", PathJSONRPC, "", length), body, "401 Unauthorized", timeout},
		{"a slow body without a token, REST", requestHead("POST", PathREST+"/message:send", "", length), body, "401 Unauthorized", 0},
		{"a slow body with a wrong token", requestHead("POST", PathJSONRPC, "wrong", length), body, "401 Unauthorized", timeout},
		{"idle after an answer", requestHead("GET", PathHealth, ""), "", "200 OK", timeout},
		{"idle after an authenticated answer", requestHead("POST", PathJSONRPC, testToken, length) + body, "", "200 OK", timeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := rawConn(t, srv)
			start := time.Now()
			if _, err := io.WriteString(c, tc.head); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() { trickle(c, tc.slow, 50*time.Millisecond, done) })
			got := awaitClose(t, c)
			took := time.Since(start)
			close(done)
			wg.Wait()
			if !strings.Contains(got, tc.want) || (tc.want == "" && got != "") {
				t.Errorf("answer %q, want %q", clip([]byte(got)), tc.want)
			}
			if took < tc.after*3/4 || took > tc.after+5*time.Second {
				t.Errorf("closed after %s, want after %s, soon", took, tc.after)
			}
		})
	}
}

// TestStreamsOutliveTheBodyTimeout: the body timeout bounds only the
// request: an evaluation's stream, over JSON-RPC and REST, keeps sending
// progress long after it, until the evaluation ends.
func TestStreamsOutliveTheBodyTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	srv := startServer(t, Config{GRPCPort: -1, BodyTimeout: timeout, HeaderTimeout: timeout, IdleTimeout: timeout,
		ProgressEvery: timeout / 2})
	cases := []struct{ name, path, envelope string }{
		{"JSON-RPC", PathJSONRPC, `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":%s}}}`},
		{"REST", PathREST + "/message:stream", `{"message":{"messageId":"m2","role":"ROLE_USER","parts":%s}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The agent answers once the stream has outlived the timeout.
			release := make(chan struct{})
			var once sync.Once
			agent := agenttest.Start(t, func(ctx context.Context, _, _ string) string {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return agenttest.SorryReply
			})
			params := map[string]any{"skill": "run_evaluation", "params": map[string]any{"domain": "mock", "agent_url": agent.URL, "num_tasks": 1}}
			body := fmt.Sprintf(tc.envelope, dataPartJSON(params))
			req, _ := http.NewRequest(http.MethodPost, srv.URL()+tc.path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("A2A-Version", "1.0")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			start := time.Now()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 16<<20)
			var last string
			for sc.Scan() {
				line := sc.Text()
				if !strings.HasPrefix(line, "data:") {
					continue
				}
				last = line
				if time.Since(start) > 5*timeout {
					// Long past the body timeout, the stream still runs:
					// let the evaluation end.
					once.Do(func() { close(release) })
				}
				if strings.Contains(line, "TASK_STATE_COMPLETED") || strings.Contains(line, "TASK_STATE_FAILED") {
					break
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatalf("stream cut after %s: %v", time.Since(start), err)
			}
			if !strings.Contains(last, "TASK_STATE_COMPLETED") {
				t.Fatalf("stream ended after %s with %s", time.Since(start), clip([]byte(last)))
			}
		})
	}
}

// health reads the server's /healthz on a connection of its own.
func health(t *testing.T, srv *Server) (open, unauthenticated int) {
	t.Helper()
	resp, err := http.Get(srv.URL() + PathHealth)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct {
		Connections struct{ Open, Unauthenticated int }
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h.Connections.Open, h.Connections.Unauthenticated
}

// TestUnauthenticatedConnectionsEvicted: 300 callers without a token that
// send their bodies one byte at a time hold at most
// MaxUnauthenticatedConnections connections: each new one closes the
// oldest, and a caller with the token is served meanwhile.
func TestUnauthenticatedConnectionsEvicted(t *testing.T) {
	const limit, attackers = 16, 300
	srv := startServer(t, Config{GRPCPort: -1, AuthTokens: []string{testToken}, MaxUnauthenticatedConnections: limit})
	conns := make([]net.Conn, attackers)
	for i := range conns {
		conns[i] = rawConn(t, srv)
		if _, err := io.WriteString(conns[i], requestHead("POST", PathJSONRPC, "", "Content-Length: 100000")+"{"); err != nil {
			t.Fatal(err)
		}
	}
	// Connections are admitted in the order they were made: all but the
	// last limit were evicted.
	for i, c := range conns[:attackers-limit] {
		if got := awaitClose(t, c); got != "" {
			t.Fatalf("evicted connection %d was answered %q", i, got)
		}
	}
	if open, unauth := health(t, srv); open > limit || unauth > limit {
		t.Errorf("%d connections open, %d unauthenticated; want at most %d", open, unauth, limit)
	}
	r := post(t, srv.URL()+PathJSONRPC, strings.NewReader(sendMessage(dataPartJSON(map[string]any{"skill": "list_domains"}))),
		http.Header{"Authorization": {"Bearer " + testToken}})
	if r.status != 200 || r.rpc.Error != nil {
		t.Fatalf("a caller with the token during the attack: %d %s", r.status, clip(r.body))
	}
}

// TestConnectionCap: beyond MaxConnections, a new connection is answered
// 503 and closed while every open one is authenticated; once one closes, a
// new one is served. Authenticated connections are never evicted.
func TestConnectionCap(t *testing.T) {
	const limit = 3
	srv := startServer(t, Config{GRPCPort: -1, AuthTokens: []string{testToken}, MaxConnections: limit})
	body := sendMessage(dataPartJSON(map[string]any{"skill": "list_domains"}))
	req := requestHead("POST", PathJSONRPC, testToken, fmt.Sprintf("Content-Length: %d", len(body))) + body
	var held []*bufio.Reader
	var heldConns []net.Conn
	for range limit {
		c := rawConn(t, srv)
		r := bufio.NewReader(c)
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("authenticated request: %v %v", resp, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		held, heldConns = append(held, r), append(heldConns, c)
	}
	extra := rawConn(t, srv)
	if got := awaitClose(t, extra); !strings.HasPrefix(got, "HTTP/1.1 503 ") || !strings.Contains(got, "Retry-After: 1") {
		t.Fatalf("a connection beyond the cap got %q, want 503", got)
	}
	// The held connections still serve.
	if _, err := io.WriteString(heldConns[0], req); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.ReadResponse(held[0], nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a held connection after the refusal: %v %v", resp, err)
	}
	// Once one closes (the server sees it), there is room again.
	_ = heldConns[1].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(srv.URL() + PathHealth)
		if err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if err == nil {
			resp.Body.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after a connection closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // the server notices the close on its own time
	}
}

// TestManyConcurrentCallers: 200 callers at once, each on its own
// connection with the token, are all served under the default limits.
func TestManyConcurrentCallers(t *testing.T) {
	const callers = 200
	srv := startServer(t, Config{GRPCPort: -1, AuthTokens: []string{testToken}})
	body := sendMessage(dataPartJSON(map[string]any{"skill": "list_domains"}))
	errs := make(chan error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			tr := &http.Transport{DisableKeepAlives: true}
			defer tr.CloseIdleConnections()
			req, _ := http.NewRequest(http.MethodPost, srv.URL()+PathJSONRPC, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("A2A-Version", "1.0")
			resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
			if err != nil {
				errs <- fmt.Errorf("caller %d: %w", i, err)
				return
			}
			defer resp.Body.Close()
			var out struct {
				Result struct{ Task *a2a.Task }
			}
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 || out.Result.Task == nil {
				errs <- fmt.Errorf("caller %d: HTTP %d, %v", i, resp.StatusCode, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	serverAlive(t, srv, http.Header{"Authorization": {"Bearer " + testToken}})
}

// TestGRPCConnections: a gRPC connection that never says anything is
// closed after the header timeout, connections without an authenticated
// call are evicted like HTTP ones, and one that made an authenticated call
// is kept.
func TestGRPCConnections(t *testing.T) {
	const timeout = 300 * time.Millisecond
	srv := startServer(t, Config{AuthTokens: []string{testToken}, HeaderTimeout: timeout, MaxUnauthenticatedConnections: 2})
	rawGRPC := func(t *testing.T) net.Conn {
		c, err := net.Dial("tcp", srv.GRPCAddr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		return c
	}
	t.Run("silent connection", func(t *testing.T) {
		start := time.Now()
		_ = awaitClose(t, rawGRPC(t))
		if took := time.Since(start); took < timeout*3/4 || took > timeout+5*time.Second {
			t.Errorf("closed after %s, want after %s, soon", took, timeout)
		}
	})
	t.Run("eviction spares the authenticated", func(t *testing.T) {
		var dials atomic.Int32
		conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
				dials.Add(1)
				return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
			}))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		client := a2apb.NewA2AServiceClient(conn)
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+testToken, "a2a-version", "1.0")
		call := func() {
			t.Helper()
			if _, err := client.GetTask(ctx, &a2apb.GetTaskRequest{Id: "no-such-task"}); status.Code(err) != codes.NotFound {
				t.Fatalf("GetTask: %v, want NotFound", err)
			}
		}
		call()
		silent := []net.Conn{rawGRPC(t), rawGRPC(t), rawGRPC(t)}
		_ = awaitClose(t, silent[0]) // the oldest unauthenticated one
		call()
		if n := dials.Load(); n != 1 {
			t.Errorf("the authenticated client dialed %d times, want once: its connection was evicted", n)
		}
	})
}
