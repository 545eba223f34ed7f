package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/proctor-eval/proctor/internal/agentdial"
	"github.com/proctor-eval/proctor/internal/tracing"
)

// maxExchangeText bounds each body kept in a report's exchanges.
const maxExchangeText = 4 << 10

// prober makes the run's HTTP requests: every one bounded in time and
// size, counted, and recorded as an Exchange.
type prober struct {
	http       *http.Client
	token      string
	maxBytes   int64
	reqTimeout time.Duration
	// longTimeout bounds requests that wait for a task: blocking sends.
	longTimeout time.Duration
	requests    atomic.Int64
	maxRequests int64
}

// errRequestBudget stops a run that reached its request budget.
var errRequestBudget = errors.New("request budget exhausted")

func newProber(o *options) *prober {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 4
	base.ResponseHeaderTimeout = max(o.requestTimeout, o.taskTimeout)
	if o.dialControl != nil {
		agentdial.RouteHTTP(base, o.dial) // no proxy: through one the guard would see only the proxy
	}
	return &prober{
		http: &http.Client{
			Transport: base,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) >= 3 {
					return errors.New("more than 3 redirects")
				}
				return nil
			},
		},
		token: o.token, maxBytes: o.maxResponseBytes, reqTimeout: o.requestTimeout, longTimeout: max(o.requestTimeout, o.taskTimeout),
		maxRequests: int64(o.maxRequests),
	}
}

// count takes one request from the budget.
func (p *prober) count() error {
	if p.requests.Add(1) > p.maxRequests {
		return fmt.Errorf("%w (%d requests)", errRequestBudget, p.maxRequests)
	}
	return nil
}

func (p *prober) close() { p.http.CloseIdleConnections() }

// httpAnswer is an HTTP response, its body read (at most maxBytes).
type httpAnswer struct {
	Status    int
	Header    http.Header
	Body      []byte
	Truncated bool
}

// httpRequest describes one HTTP request.
type httpRequest struct {
	method  string
	url     string
	body    []byte
	version string // A2A-Version header, "" for none
	accept  string
	noAuth  bool // leave the credentials out
	// long: the agent may take the task's time to answer (a blocking send).
	long bool
}

// timeout is how long a request may take.
func (p *prober) timeout(long bool) time.Duration {
	if long {
		return p.longTimeout
	}
	return p.reqTimeout
}

func (p *prober) newRequest(ctx context.Context, r httpRequest) (*http.Request, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return nil, err
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	accept := r.accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", "proctor-conformance")
	tracing.InjectHeader(ctx, req.Header)
	if v, ok := versionOverride(ctx); ok {
		r.version = v
	}
	if r.version != "" {
		req.Header.Set("A2A-Version", r.version)
	}
	if p.token != "" && !r.noAuth {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	return req, nil
}

// do sends a request and reads the whole answer (bounded). The exchange is
// filled in either way.
func (p *prober) do(ctx context.Context, transport string, r httpRequest) (*httpAnswer, Exchange, error) {
	ex := Exchange{Transport: transport, Request: describeRequest(r)}
	if err := p.count(); err != nil {
		ex.Status = "not sent: " + err.Error()
		return nil, ex, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout(r.long))
	defer cancel()
	req, err := p.newRequest(ctx, r)
	if err != nil {
		ex.Status = "not sent: " + err.Error()
		return nil, ex, err
	}
	resp, err := p.http.Do(req)
	if err != nil {
		err = describeNetError(err)
		ex.Status = "no answer: " + err.Error()
		return nil, ex, err
	}
	defer resp.Body.Close()
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, p.maxBytes+1))
	ans := &httpAnswer{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if int64(len(body)) > p.maxBytes {
		ans.Body, ans.Truncated = body[:p.maxBytes], true
	}
	ex.Status = fmt.Sprintf("HTTP %d", resp.StatusCode)
	ex.ContentType = resp.Header.Get("Content-Type")
	ex.Response = truncateText(string(ans.Body), maxExchangeText)
	switch {
	case readErr != nil:
		err = fmt.Errorf("reading the answer: %w", describeNetError(readErr))
		ex.Status += " (" + err.Error() + ")"
		return ans, ex, err
	case ans.Truncated:
		err = fmt.Errorf("the answer is larger than %d bytes", p.maxBytes)
		ex.Status += " (" + err.Error() + ")"
		return ans, ex, err
	}
	return ans, ex, nil
}

// open sends a request whose answer is read piecemeal (a stream). The
// caller closes the body. ctx bounds the whole stream.
func (p *prober) open(ctx context.Context, transport string, r httpRequest) (*http.Response, Exchange, error) {
	ex := Exchange{Transport: transport, Request: describeRequest(r)}
	if err := p.count(); err != nil {
		ex.Status = "not sent: " + err.Error()
		return nil, ex, err
	}
	req, err := p.newRequest(ctx, r)
	if err != nil {
		ex.Status = "not sent: " + err.Error()
		return nil, ex, err
	}
	resp, err := p.http.Do(req)
	if err != nil {
		err = describeNetError(err)
		ex.Status = "no answer: " + err.Error()
		return nil, ex, err
	}
	ex.Status = fmt.Sprintf("HTTP %d", resp.StatusCode)
	ex.ContentType = resp.Header.Get("Content-Type")
	return resp, ex, nil
}

func describeRequest(r httpRequest) string {
	s := r.method + " " + r.url
	if r.body != nil {
		s += "\n" + truncateText(string(r.body), maxExchangeText)
	}
	if r.noAuth {
		s += "\n(sent without credentials)"
	}
	return s
}

// describeNetError makes connection errors say what happened in a line.
func describeNetError(err error) error {
	var op *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("timed out: %w", err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("connection refused (is the agent running?): %w", err)
	case errors.As(err, &op) && op.Op == "dial":
		return fmt.Errorf("cannot connect: %w", err)
	}
	return err
}

// mediaType is a Content-Type without parameters, lower-cased.
func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}
