package ecp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/proctor-eval/proctor/internal/agentdial"
)

// ErrDeniedTarget matches, with errors.Is, a WebSocket agent refused by
// Options.DenyPrivateTargets.
var ErrDeniedTarget = agentdial.ErrDenied

// wsTransport is an agent reached over a WebSocket: one JSON-RPC message
// per text (or binary) message.
type wsTransport struct {
	conn      *websocket.Conn
	abortOnce sync.Once
	mu        sync.Mutex
	lastErr   error
}

// dialWS dials url (ws:// or wss://).
func dialWS(ctx context.Context, url string, opts *Options) (*wsTransport, error) {
	dialer := &net.Dialer{Timeout: 30 * time.Second}
	if opts.DenyPrivateTargets {
		dialer.Control = agentdial.Control
	}
	tr := &http.Transport{ForceAttemptHTTP2: false}
	agentdial.RouteHTTP(tr, dialer.DialContext)
	ctx, cancel := context.WithTimeout(ctx, opts.timeout())
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}, HTTPHeader: traceHeader(ctx)})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("ecp: dial %s: %w", url, err)
	}
	// The library checks the limit as frames arrive.
	conn.SetReadLimit(opts.maxResponse())
	return &wsTransport{conn: conn}, nil
}

func (t *wsTransport) send(ctx context.Context, msg []byte) error {
	if err := t.conn.Write(ctx, websocket.MessageText, msg); err != nil {
		return t.noteErr(fmt.Errorf("websocket write: %w", err))
	}
	return nil
}

func (t *wsTransport) recv(ctx context.Context) ([]byte, error) {
	_, b, err := t.conn.Read(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, websocket.ErrMessageTooBig) {
			return nil, &FrameError{Kind: ErrTooLarge, Quote: "websocket message"}
		}
		return nil, t.noteErr(fmt.Errorf("websocket read: %w", err))
	}
	return checkJSON(b)
}

func (t *wsTransport) noteErr(err error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lastErr = err
	return err
}

func (t *wsTransport) abort() {
	t.abortOnce.Do(func() { _ = t.conn.CloseNow() })
}

func (t *wsTransport) close() error {
	t.abortOnce.Do(func() { _ = t.conn.Close(websocket.StatusNormalClosure, "evaluation over") })
	return nil
}

func (t *wsTransport) settle(context.Context) {}

func (t *wsTransport) detail() string { return "" }
