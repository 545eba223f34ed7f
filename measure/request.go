package measure

import "time"

// ErrorClass says what kind of failure a call met, in Request.ErrorClass
// (and a2aclient's CallError.Class).
type ErrorClass string

// Error classes.
const (
	ErrClassTimeout     ErrorClass = "timeout"
	ErrClassConnection  ErrorClass = "connection"
	ErrClassHTTPStatus  ErrorClass = "http_status"
	ErrClassProtocol    ErrorClass = "protocol"
	ErrClassRPC         ErrorClass = "rpc_error"
	ErrClassTaskFailed  ErrorClass = "task_failed"
	ErrClassTooLarge    ErrorClass = "response_too_large"
	ErrClassCanceled    ErrorClass = "canceled"
	ErrClassNonTerminal ErrorClass = "task_not_finished"
)

// Request describes one call to the agent (one A2A SendMessage, including
// any polling needed to see its task finish, or one ECP method call).
type Request struct {
	Method     string    `json:"method"`
	StartedAt  time.Time `json:"started_at"`
	LatencyMS  float64   `json:"latency_ms"`
	HTTPStatus int       `json:"http_status,omitempty"`
	// GRPCCode is the status code name ("OK", "Unavailable") of a call made
	// over gRPC.
	GRPCCode string `json:"grpc_code,omitempty"`
	// Retries counts transient failures that were retried within the call.
	Retries int `json:"retries,omitempty"`
	// Resends counts requests of the call sent again at once because the
	// agent had closed the kept-alive connection they were written to
	// before it could read them: the agent never saw those requests, so
	// they are neither errors nor retries.
	Resends       int   `json:"resends,omitempty"`
	BytesSent     int64 `json:"bytes_sent"`
	BytesReceived int64 `json:"bytes_received"`
	InputTokens   int64 `json:"input_tokens"`
	OutputTokens  int64 `json:"output_tokens"`
	// TokensEstimated is true when the agent reported no usage and the token
	// counts are proctor's estimate from the text sent and received.
	TokensEstimated bool       `json:"tokens_estimated,omitempty"`
	ErrorClass      ErrorClass `json:"error_class,omitempty"`
	Error           string     `json:"error,omitempty"`
}
