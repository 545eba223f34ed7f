package a2aclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/internal/tracing"
)

// Defaults for a Client's options.
const (
	DefaultRequestTimeout   = 300 * time.Second
	DefaultMaxResponseBytes = 16 << 20
	maxCardBytes            = 1 << 20
)

// Well-known agent card paths: the 1.0 name first, then the older one.
const (
	cardPath       = "/.well-known/agent-card.json"
	legacyCardPath = "/.well-known/agent.json"
)

type options struct {
	httpClient       *http.Client
	requestTimeout   time.Duration
	maxResponseBytes int64
	// maxResponseValues bounds the values of a reply (WithMaxResponseValues).
	maxResponseValues int64
	headers           http.Header
	maxConns          int
	transport         Transport
	protocol          ProtocolVersion
	streaming         StreamingMode
	retries           int
	retryBase         time.Duration
	denyPrivate       bool
	// guardExempt lets tests, which have only loopback servers, exempt some
	// addresses from WithDenyPrivateTargets. Nothing else sets it.
	guardExempt func(netip.AddrPort) bool
	// trace, when set, records every exchange (WithWireTrace).
	trace *WireTrace
	// tracer makes the agent requests' spans (WithTracerProvider).
	tracer trace.Tracer
	// dial, when set, opens the connections of the pool Dial makes, in
	// place of a plain dialer. Only tests set it, to break connections.
	dial dialFunc
}

// Transport is an A2A transport (protocol binding), named as --transport
// takes it.
type Transport string

// Transports.
const (
	TransportJSONRPC Transport = "jsonrpc"
	TransportREST    Transport = "rest" // HTTP+JSON
	TransportGRPC    Transport = "grpc"
)

// ProtocolVersion is an A2A protocol version, as --protocol takes it.
type ProtocolVersion string

// Protocol versions.
const (
	Protocol10 ProtocolVersion = "1.0"
	Protocol03 ProtocolVersion = "0.3"
)

// StreamingMode says whether a Client sends with SendMessage or
// SendStreamingMessage, as WithStreaming takes it.
type StreamingMode string

// Streaming modes.
const (
	StreamingAuto StreamingMode = "auto" // stream when the agent card says the agent can
	StreamingOn   StreamingMode = "on"
	StreamingOff  StreamingMode = "off"
)

// Retry defaults: transient failures are retried this many times, with
// exponential backoff from the base delay and full jitter.
const (
	DefaultRetries   = 3
	DefaultRetryBase = 250 * time.Millisecond
)

// WithTransport chooses the transport (TransportJSONRPC, TransportREST or
// TransportGRPC) instead of the agent card's preferred one. The card must
// offer it.
func WithTransport(name Transport) Option { return func(o *options) { o.transport = name } }

// WithProtocol chooses the protocol version (Protocol10 or Protocol03)
// instead of the agent card's preferred one. The card must offer it.
func WithProtocol(version ProtocolVersion) Option { return func(o *options) { o.protocol = version } }

// WithStreaming chooses between SendMessage and SendStreamingMessage:
// StreamingAuto (the default) streams when the card declares streaming.
func WithStreaming(mode StreamingMode) Option { return func(o *options) { o.streaming = mode } }

// WithRetries sets how often a transiently failed request (connection
// refused or reset, HTTP 502/503/504, gRPC UNAVAILABLE) is retried, and the
// base of the exponential backoff. 0 retries disables retrying.
func WithRetries(n int, base time.Duration) Option {
	return func(o *options) { o.retries, o.retryBase = n, base }
}

// Option configures a Client.
type Option func(*options)

// WithHTTPClient sets the HTTP client whose transport carries every request.
// Its Transport is wrapped to record per-request metrics; its Timeout should
// be zero (requests are bounded by WithRequestTimeout instead). With
// WithDenyPrivateTargets, only a nil Transport or an *http.Transport without
// dial functions of its own is accepted, and it is cloned (see there). Its
// Jar, when set, replaces the cookies each conversation keeps of its own.
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithRequestTimeout bounds each request to the agent, including the time the
// agent takes to answer. Default DefaultRequestTimeout.
func WithRequestTimeout(d time.Duration) Option { return func(o *options) { o.requestTimeout = d } }

// WithMaxResponseBytes caps the size of one response body (for a streamed
// reply, of the whole stream) so that one agent cannot exhaust proctor's
// memory: a reply is held at most once while it arrives, and one over the
// cap fails as ErrClassTooLarge without being decoded. (a2a-go also refuses
// a single streamed event over 10 MiB; that is ErrClassTooLarge too.)
// Default DefaultMaxResponseBytes.
func WithMaxResponseBytes(n int64) Option { return func(o *options) { o.maxResponseBytes = n } }

// WithHeaders adds headers (for example authentication) to every request,
// including the agent-card fetch.
func WithHeaders(h http.Header) Option { return func(o *options) { o.headers = h.Clone() } }

// WithMaxConnsPerHost sizes the connection pool for the expected number of
// concurrent conversations, so that parallel simulations reuse connections
// instead of opening new ones per request.
func WithMaxConnsPerHost(n int) Option { return func(o *options) { o.maxConns = n } }

// Client talks to one remote agent. It is safe for concurrent use; open one
// Conversation per simulated dialogue.
type Client struct {
	opts     options
	card     *a2a.AgentCard
	cardURL  string
	endpoint *a2a.AgentInterface
	sdk      *sdkclient.Client
	http     *http.Client
	guard    *guard // nil unless WithDenyPrivateTargets
	ownsPool bool   // the connection pool was made by Dial, so Close empties it
	bodies   *sync.Pool
	// values bounds the values of replies (WithMaxResponseValues); nil for
	// no bound.
	values *valueLimits
	// streaming says whether turns use SendStreamingMessage.
	streaming bool
	// cardNotes are the card's deviations from the protocol that Dial
	// worked around; each conversation's first Response reports them.
	cardNotes []string
	// sendConfigShared is the configuration of every SendMessage request
	// (see sendConfig), made on first use.
	sendConfigOnce   sync.Once
	sendConfigShared *a2a.SendMessageConfig
}

// Dial resolves the agent card at target (a base URL, or the URL of the card
// itself) and connects to the interface the card prefers among those proctor
// speaks (JSON-RPC, HTTP+JSON/REST and gRPC, at protocol 1.0 or 0.3), or the
// one WithTransport and WithProtocol ask for.
func Dial(ctx context.Context, target string, opts ...Option) (*Client, error) {
	o := options{
		requestTimeout: DefaultRequestTimeout, maxResponseBytes: DefaultMaxResponseBytes, maxConns: 64,
		maxResponseValues: DefaultMaxResponseValues,
		streaming:         StreamingAuto, retries: DefaultRetries, retryBase: DefaultRetryBase,
		tracer: tracing.Tracer(nil),
	}
	for _, opt := range opts {
		opt(&o)
	}
	u, err := url.Parse(strings.TrimSpace(target))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agent URL %q: want an absolute http:// or https:// URL", target)
	}
	c := &Client{opts: o, ownsPool: o.httpClient == nil, bodies: newBodyPool(), values: newValueLimits(o.maxResponseValues)}
	hc := o.httpClient
	switch {
	case o.denyPrivate:
		c.guard = newGuard(o.guardExempt)
		if hc, err = guardedHTTPClient(o.httpClient, o.maxConns, c.guard); err != nil {
			return nil, err
		}
		c.ownsPool = true // a pool of its own, even with WithHTTPClient
	case hc == nil:
		base := http.DefaultTransport.(*http.Transport).Clone()
		base.MaxIdleConns = 0
		base.MaxIdleConnsPerHost = max(o.maxConns, 2)
		if o.dial != nil {
			base.DialContext = o.dial
		}
		hc = &http.Client{Transport: base}
	}
	if c.ownsPool {
		// A pool of proctor's own: its connections remember failed
		// writes, so that requests the agent never read are sent again.
		watchWrites(hc.Transport.(*http.Transport))
	}
	base := transportOf(hc)
	if o.trace != nil {
		base = &traceTransport{base: base, trace: o.trace, headers: o.headers}
	}
	c.http = &http.Client{
		Transport:     &recordingTransport{base: base, headers: o.headers, maxBytes: o.maxResponseBytes, values: c.values},
		CheckRedirect: hc.CheckRedirect,
		Jar:           hc.Jar,
	}
	card, cardURL, notes, err := c.resolveCard(ctx, u)
	if err != nil {
		return nil, err
	}
	c.card, c.cardURL, c.cardNotes = card, cardURL, notes
	iface, err := pickInterface(card, o.transport, o.protocol)
	if err != nil {
		return nil, err
	}
	c.endpoint = iface
	if versionName(iface.ProtocolVersion) == Protocol03 {
		c.http.Transport.(*recordingTransport).fixKinds = true
	}
	c.streaming = o.streaming == StreamingOn || (o.streaming == StreamingAuto && card.Capabilities.Streaming)
	sdk, err := sdkclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface}, c.factoryOptions()...)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", iface.URL, err)
	}
	c.sdk = sdk
	return c, nil
}

func transportOf(hc *http.Client) http.RoundTripper {
	if hc.Transport != nil {
		return hc.Transport
	}
	return http.DefaultTransport
}

// Card returns the agent card the client was built from.
func (c *Client) Card() *a2a.AgentCard { return c.card }

// CardURL returns where the agent card was found.
func (c *Client) CardURL() string { return c.cardURL }

// Endpoint returns the interface (URL, transport, protocol version) in use.
func (c *Client) Endpoint() a2a.AgentInterface { return *c.endpoint }

// Streaming reports whether turns use SendStreamingMessage.
func (c *Client) Streaming() bool { return c.streaming }

// Close releases the client's resources, including its idle connections to
// the agent (unless they belong to a client given by WithHTTPClient).
func (c *Client) Close() error {
	if c.ownsPool {
		c.http.CloseIdleConnections()
	}
	if c.sdk == nil {
		return nil
	}
	return c.sdk.Destroy()
}

// NewConversation starts a dialogue with its own A2A context id and its own
// cookies: what the agent sets over HTTP during the conversation is sent
// back on its later requests (see conversationJar), unless the HTTP client
// given with WithHTTPClient has a Jar, which then keeps all cookies.
func (c *Client) NewConversation(opts ...ConversationOption) *Conversation {
	cv := &Conversation{client: c, contextID: uuid.NewString()}
	if c.http.Jar == nil {
		cv.jar = newConversationJar()
	}
	for _, opt := range opts {
		opt(cv)
	}
	return cv
}

// ConversationOption configures one Conversation.
type ConversationOption func(*Conversation)

// WithConversationHeaders adds headers to every request of the
// conversation (as gRPC metadata over gRPC), after the client's own
// (WithHeaders), which they replace when both name a header (over gRPC
// both are sent). An eval
// case sends its user id so: tRPC-Agent-Go's server/a2a reads the user
// from the X-User-ID header by default.
func WithConversationHeaders(h http.Header) ConversationOption {
	return func(cv *Conversation) { cv.headers = h.Clone() }
}

// CardNotes returns the agent card's deviations from the protocol that the
// client worked around (a 0.3 card without preferredTransport, say).
func (c *Client) CardNotes() []string { return append([]string(nil), c.cardNotes...) }

func (c *Client) resolveCard(ctx context.Context, u *url.URL) (*a2a.AgentCard, string, []string, error) {
	var candidates []string
	if strings.HasSuffix(u.Path, ".json") {
		candidates = []string{u.String()}
	} else {
		for _, p := range []string{cardPath, legacyCardPath} {
			cu := *u
			cu.Path = strings.TrimRight(u.Path, "/") + p
			cu.RawQuery, cu.Fragment = "", ""
			candidates = append(candidates, cu.String())
		}
	}
	var errs []error
	for _, cu := range candidates {
		card, notes, err := c.fetchCard(ctx, cu)
		if err == nil {
			return card, cu, notes, nil
		}
		errs = append(errs, err)
		if !cardMissing(err) {
			break // only a missing card means "try the other well-known name"
		}
	}
	return nil, "", nil, fmt.Errorf("resolve agent card: %w", errors.Join(errs...))
}

type cardStatusError struct {
	url    string
	status int
}

func (e *cardStatusError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %d %s", e.url, e.status, http.StatusText(e.status))
}

// notCardError is a 200 answer that is plainly something other than an agent
// card: typically a JSON-RPC handler mounted at "/" answering every path.
type notCardError struct {
	url, what string
}

func (e *notCardError) Error() string {
	return fmt.Sprintf("GET %s: not an agent card (%s)", e.url, e.what)
}

// cardMissing reports whether err says there is no card at that URL, as
// opposed to a card that is broken or a server that failed.
func cardMissing(err error) bool {
	var se *cardStatusError
	if errors.As(err, &se) {
		return se.status == http.StatusNotFound || se.status == http.StatusMethodNotAllowed
	}
	var nc *notCardError
	return errors.As(err, &nc)
}

// notACard tells why body, a JSON document, is not an agent card, or returns
// "" when it may be one.
func notACard(body []byte) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return "" // let the card parser report what is wrong
	}
	if _, ok := fields["jsonrpc"]; ok {
		return "a JSON-RPC response"
	}
	for _, k := range []string{"name", "supportedInterfaces", "url", "preferredTransport", "protocolVersion", "skills", "capabilities"} {
		if _, ok := fields[k]; ok {
			return ""
		}
	}
	return "no card fields"
}

func (c *Client) fetchCard(ctx context.Context, cardURL string) (*a2a.AgentCard, []string, error) {
	ctx, cancel := context.WithTimeout(ctx, min(c.opts.requestTimeout, 30*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %w", cardURL, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %w", cardURL, describeNetError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, &cardStatusError{url: cardURL, status: resp.StatusCode}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: read: %w", cardURL, err)
	}
	if len(body) > maxCardBytes {
		return nil, nil, fmt.Errorf("GET %s: agent card larger than %d bytes", cardURL, maxCardBytes)
	}
	if why := notACard(body); why != "" {
		return nil, nil, &notCardError{url: cardURL, what: why}
	}
	// The compat parser reads 1.0 cards and 0.3 cards (url/preferredTransport).
	card, err := a2av0.NewAgentCardParser()(body)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: not a valid agent card: %w", cardURL, err)
	}
	notes := applyCardDefaults(card, body)
	return card, append(notes, readPre03AsV03(card)...), nil
}

// readPre03AsV03 takes the card's interfaces at protocol 0.2.x as 0.3 and
// returns the deviation, or nil when there are none. A2A 0.2.5 is the 0.3
// wire in all that proctor uses (message/send, message/stream, tasks/get,
// kind discriminators, lowercase states), except that it requires
// configuration.acceptedOutputModes, which proctor always sends. fasta2a
// (pydantic-ai's Agent.to_a2a()) publishes such cards.
func readPre03AsV03(card *a2a.AgentCard) []string {
	var declared []string
	for _, iface := range card.SupportedInterfaces {
		if iface == nil || !isPre03(iface.ProtocolVersion) {
			continue
		}
		if v := string(iface.ProtocolVersion); !slices.Contains(declared, v) {
			declared = append(declared, v)
		}
		iface.ProtocolVersion = a2av0.Version
	}
	if len(declared) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("card declares protocol %s; evaluated as 0.3", strings.Join(declared, ", "))}
}

// isPre03 reports whether v is a 0.2.x protocol version ("0.2", "0.2.5").
func isPre03(v a2a.ProtocolVersion) bool {
	s := strings.TrimPrefix(strings.TrimSpace(string(v)), "v")
	return s == "0.2" || strings.HasPrefix(s, "0.2.")
}

// applyCardDefaults gives a 0.2/0.3-style card (url, no supportedInterfaces)
// the interface A2A 0.3 implies when fields are left out: preferredTransport
// defaults to JSONRPC and protocolVersion to 0.3.0 (§5.5). a2a-go's parser
// builds no interface without preferredTransport, and Mastra, VoltAgent,
// Gemini CLI's A2A server and tRPC-Agent-Go publish such cards. It returns
// the deviations it worked around.
func applyCardDefaults(card *a2a.AgentCard, body []byte) []string {
	var raw struct {
		URL                 string          `json:"url"`
		PreferredTransport  string          `json:"preferredTransport"`
		ProtocolVersion     string          `json:"protocolVersion"`
		SupportedInterfaces json.RawMessage `json:"supportedInterfaces"`
	}
	if json.Unmarshal(body, &raw) != nil || len(raw.SupportedInterfaces) > 0 || strings.TrimSpace(raw.URL) == "" {
		return nil
	}
	var notes []string
	version := a2a.ProtocolVersion(raw.ProtocolVersion)
	if strings.TrimSpace(raw.ProtocolVersion) == "" {
		version = "0.3.0"
	}
	if strings.TrimSpace(raw.PreferredTransport) == "" {
		iface := &a2a.AgentInterface{URL: raw.URL, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: version}
		card.SupportedInterfaces = append([]*a2a.AgentInterface{iface}, card.SupportedInterfaces...)
		note := "card has no preferredTransport; assumed JSONRPC at url"
		if raw.ProtocolVersion == "" {
			note += ", protocol 0.3.0"
		}
		return append(notes, note)
	}
	if strings.TrimSpace(raw.ProtocolVersion) == "" {
		notes = append(notes, "card has no protocolVersion; assumed 0.3.0")
	}
	return notes
}

func describeNetError(err error) error {
	var denied *DeniedTargetError
	if errors.As(err, &denied) {
		return denied // says it all; the URL is in the caller's message
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return fmt.Errorf("cannot connect (is the agent running?): %w", err)
	}
	return err
}
