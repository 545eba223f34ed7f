//go:build unix

package server

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

// TestSlowReaderIsDropped streams to a client that never reads: once the
// connection's buffers are full, the next write waits at most the timeout,
// then fails, and the handler (and what it holds) goes.
func TestSlowReaderIsDropped(t *testing.T) {
	const timeout = 200 * time.Millisecond
	failed := make(chan error, 1)
	srv := httptest.NewServer(slowReaders(timeout, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		chunk := make([]byte, 64<<10)
		for range 4096 { // 256 MB: far more than any socket buffer
			if _, err := w.Write(chunk); err != nil {
				failed <- err
				return
			}
			w.(http.Flusher).Flush()
		}
		failed <- nil
	})))
	defer srv.Close()

	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case err := <-failed:
		if err == nil {
			t.Fatal("256 MB reached a client that reads nothing")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write to a client that reads nothing still waits after 10 s")
	}
}
