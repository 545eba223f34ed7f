package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// serveInBackground serves srv until the test ends or stop is called.
// stop, which may be called more than once, waits for Serve to return and
// then closes each of closers (the server's database).
func serveInBackground(tb testing.TB, srv *Server, closers ...io.Closer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Serve(ctx); close(done) }()
	stop = sync.OnceFunc(func() {
		cancel()
		<-done
		for _, c := range closers {
			_ = c.Close()
		}
	})
	tb.Cleanup(stop)
	return stop
}

// sendHTTP sends one HTTP request as the caller with token (A2A-Version
// 1.0 unless the path is a 0.3 one) and returns the status and the whole
// body (a stream is read to its end).
func sendHTTP(tb testing.TB, method, url, token, body string) (int, []byte) {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if !strings.Contains(url, "v0.3") {
		req.Header.Set("A2A-Version", "1.0")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %s: reading: %v", method, url, err)
	}
	return resp.StatusCode, b
}
