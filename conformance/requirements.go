package conformance

// RequirementLevel is how strongly the specification asks for a
// requirement, in RFC 2119 terms.
type RequirementLevel string

// Requirement levels.
const (
	Must   RequirementLevel = "MUST"
	Should RequirementLevel = "SHOULD"
	May    RequirementLevel = "MAY"
)

// Category groups requirements in a report.
type Category string

// Categories, in report order.
const (
	CategoryCard        Category = "agent-card"
	CategoryLifecycle   Category = "lifecycle"
	CategoryStreaming   Category = "streaming"
	CategoryErrors      Category = "errors"
	CategoryAuth        Category = "auth"
	CategoryEquivalence Category = "equivalence"
	CategoryListTasks   Category = "list-tasks"
	CategoryVersioning  Category = "versioning"
)

// Categories returns every category in report order.
func Categories() []Category {
	return []Category{CategoryCard, CategoryLifecycle, CategoryStreaming, CategoryErrors, CategoryListTasks, CategoryVersioning, CategoryAuth, CategoryEquivalence}
}

// Requirement is one thing the A2A specification asks of an agent, as the
// suite checks it. IDs are stable: reports, CI filters and tests refer to
// them.
type Requirement struct {
	ID       string           `json:"id"`
	Category Category         `json:"category"`
	Level    RequirementLevel `json:"level"`
	// Title says what is required, in one line.
	Title string `json:"title"`
	// Spec names the sections of the A2A specification (1.0, and 0.3 where
	// it differs) the requirement comes from.
	Spec string `json:"spec"`
	// Remediation tells the agent's author what to change when it fails.
	Remediation string `json:"remediation"`
}

// Requirement IDs.
const (
	ReqCardWellKnown      = "card-well-known"
	ReqCardPublic         = "card-public"
	ReqCardContentType    = "card-content-type"
	ReqCardRequiredFields = "card-required-fields"
	ReqCardSkills         = "card-skills"
	ReqCardInterfaces     = "card-interfaces"
	ReqCardCapabilities   = "card-capabilities"
	ReqCardSecurity       = "card-security"
	ReqCardDefaults       = "card-defaults"
	ReqInterfaceURLs      = "interface-urls"
	ReqInterfaceAnswers   = "interface-answers"

	ReqSendMessage      = "send-message"
	ReqSendBlocking     = "send-blocking"
	ReqContextID        = "context-id"
	ReqTaskGet          = "task-get"
	ReqTaskTerminal     = "task-terminal"
	ReqCancelRunning    = "cancel-running"
	ReqCancelTerminal   = "cancel-terminal"
	ReqMultiTurn        = "multi-turn"
	ReqHistoryLength    = "history-length"
	ReqStreamHTTP       = "stream-content-type"
	ReqStreamFirstEvent = "stream-first-event"
	ReqStreamOrder      = "stream-order"
	ReqStreamFinal      = "stream-final-event"
	ReqStreamClosed     = "stream-closes"
	ReqSubscribe        = "subscribe"
	ReqSubscribeDone    = "subscribe-terminal"
	ReqStreamDisconnect = "stream-disconnect"

	ReqJSONRPCEnvelope   = "jsonrpc-envelope"
	ReqMethodNotFound    = "error-method-not-found"
	ReqInvalidRequest    = "error-invalid-request"
	ReqParseError        = "error-parse"
	ReqInvalidParams     = "error-invalid-params"
	ReqTaskNotFound      = "error-task-not-found"
	ReqNotCancelable     = "error-not-cancelable"
	ReqServerSurvives    = "server-survives"
	ReqListTasks         = "list-tasks"
	ReqListPagination    = "list-pagination"
	ReqListOrder         = "list-order"
	ReqListFilters       = "list-filters"
	ReqListInvalidParams = "list-invalid-params"

	ReqVersionUnsupported = "version-unsupported"
	ReqVersionDefault     = "version-default"
	ReqVersionPatch       = "version-patch"

	ReqAuthRequired     = "auth-required"
	ReqAuthChallenge    = "auth-challenge"
	ReqAuthDeclared     = "auth-declared"
	ReqEquivalentResult = "transport-equivalence"
)

// Requirements returns the catalogue: every requirement the suite checks,
// in report order.
func Requirements() []Requirement {
	return []Requirement{
		{ReqCardWellKnown, CategoryCard, Must,
			"The agent card is served at /.well-known/agent-card.json as a JSON object",
			"1.0 §8.2 (discovery); 0.3 §5.3",
			"Serve the card with GET /.well-known/agent-card.json (HTTP 200, a JSON object). /.well-known/agent.json is the pre-0.3 name and is no longer looked up by current clients."},
		{ReqCardPublic, CategoryCard, Must,
			"The agent card is readable without credentials",
			"1.0 §8.2, §13 (the card describes how to authenticate); 0.3 §5.3",
			"Exempt /.well-known/agent-card.json from authentication: clients read it to learn which credentials to send. Put private details in the extended card instead."},
		{ReqCardContentType, CategoryCard, Should,
			"The agent card is served with Content-Type application/json",
			"1.0 §8.2; 0.3 §5.3",
			"Set Content-Type: application/json on the card response."},
		{ReqCardRequiredFields, CategoryCard, Must,
			"The card has every required field with the right JSON type (skills is an array, which may be empty)",
			"1.0 §4.4.1 (AgentCard: name, description, supportedInterfaces, version, capabilities, defaultInputModes, defaultOutputModes, skills), §8.4.1 (its example keeps the required \"skills\": [] when signing: present and empty is a valid value); 0.3 §5.5 (url instead of supportedInterfaces; protocolVersion and preferredTransport have defaults, see " + ReqCardDefaults + ")",
			"Add the missing fields; arrays must be arrays of strings, objects objects. A 1.0 card lists supportedInterfaces; a 0.3 card has url. skills must be there, as [] when the agent advertises none."},
		{ReqCardSkills, CategoryCard, Must,
			"Every skill has an id, a name, a description and tags; skill ids are unique (no skills is no violation)",
			"1.0 §4.4.5 (AgentSkill); 0.3 §5.5 (AgentSkill)",
			"Give each skill a unique non-empty id, a name, a description and a tags array; inputModes and outputModes, when present, are arrays of media types."},
		{ReqCardDefaults, CategoryCard, Should,
			"A 0.3 card names its protocolVersion and preferredTransport instead of leaving them to their defaults",
			"0.3 §5.5 AgentCard (protocolVersion: required, default \"0.3.0\"; preferredTransport: default \"JSONRPC\"); the suite judges such a card with those defaults",
			"Write \"protocolVersion\": \"0.3.0\" and \"preferredTransport\": \"JSONRPC\" (or the transport served at url) into the card: SDKs that read preferredTransport to build their client (a2a-go's 0.3 card parser) find no interface without it."},
		{ReqInterfaceURLs, CategoryCard, Should,
			"Interface URLs take the specification's form: an absolute https URL (http on loopback and private hosts) for JSON-RPC and HTTP+JSON, host:port for gRPC",
			"1.0 a2a.proto AgentInterface.url (HTTP-based transports: a valid absolute HTTPS URL in production; gRPC: \"hostname:port\", e.g. \"grpc.example.com:443\"); 0.3 §5.5",
			"Publish HTTP interfaces as absolute https:// URLs, and gRPC interfaces as host:port without a scheme: clients such as a2a-go's and @a2a-js/sdk's hand the gRPC URL to their gRPC library as a dial target, which does not read http:// or grpc:// URLs."},
		{ReqCardInterfaces, CategoryCard, Must,
			"Every declared interface has a usable URL, a protocol binding and a protocol version",
			"1.0 §4.4.6 (AgentInterface), §5.2; 0.3 §5.5 and §5.6 (url, preferredTransport, additionalInterfaces)",
			"List every endpoint with an absolute http(s) URL (host:port or a URL for gRPC), protocolBinding JSONRPC, HTTP+JSON or GRPC, and protocolVersion (\"1.0\", \"0.3\")."},
		{ReqCardCapabilities, CategoryCard, Must,
			"capabilities is an object whose flags are booleans",
			"1.0 §4.4.3 (AgentCapabilities); 0.3 §5.5 (AgentCapabilities)",
			"Write capabilities as an object; streaming, pushNotifications and extendedAgentCard (0.3: stateTransitionHistory) are JSON booleans, not strings."},
		{ReqCardSecurity, CategoryCard, Must,
			"Security requirements name declared, well-formed security schemes",
			"1.0 §4.5 (SecurityScheme), §4.4.1 securityRequirements; 0.3 §5.5 security/securitySchemes",
			"Declare every scheme a requirement names in securitySchemes; an API key scheme needs name and location, an HTTP scheme its scheme, OAuth2 its flows, OpenID Connect its URL."},
		{ReqInterfaceAnswers, CategoryCard, Must,
			"Every declared interface answers A2A requests",
			"1.0 §5.2 (agents MUST declare the protocols they support, and serve them); 0.3 §5.6",
			"Serve the binding the card declares at that URL, or remove the interface from the card."},

		{ReqSendMessage, CategoryLifecycle, Must,
			"SendMessage answers with a well-formed Task or Message in the binding's wire form",
			"1.0 §3.1.1, §4.1 (Task: id, status.state; Message: messageId, role, parts), §9/§10/§11 (binding forms); 0.3 §7.1 (message/send, kind-tagged objects)",
			"Answer with exactly one Task or Message. 1.0 wraps it ({\"task\": ...} or {\"message\": ...}) with enum names such as TASK_STATE_COMPLETED and ROLE_AGENT; 0.3 JSON-RPC returns the object itself with kind \"task\"/\"message\" and states such as \"completed\"."},
		{ReqSendBlocking, CategoryLifecycle, Must,
			"A blocking send returns the task only once it is terminal or interrupted",
			"1.0 a2a.proto SendMessageConfiguration.return_immediately (false: MUST wait for a terminal or interrupted state), §3.2.2; 0.3 §7.1.1 blocking",
			"When returnImmediately is false (0.3: blocking true), wait for the task to reach completed, failed, canceled, rejected, input-required or auth-required before answering; answer with a working task only when the client asked to return immediately."},
		{ReqContextID, CategoryLifecycle, Must,
			"The agent keeps a contextId the client sent and includes it in its answer",
			"1.0 §3.4.1 (agents MUST accept and preserve client-provided contextId values); 0.3 §6.4",
			"Copy the request message's contextId into the Task or Message you return; generate one only when the client sent none."},
		{ReqTaskGet, CategoryLifecycle, Must,
			"GetTask returns the task the agent created, with the same id",
			"1.0 §3.1.3; 0.3 §7.3 tasks/get",
			"Keep tasks retrievable by id after SendMessage returns them, and return them unchanged in form from GetTask."},
		{ReqTaskTerminal, CategoryLifecycle, Must,
			"A task the agent started reaches a terminal state",
			"1.0 §4.1.3 (TaskState), §3.1.2; 0.3 §6.3",
			"Move every task to completed, failed, canceled or rejected (or input-required/auth-required while waiting) instead of leaving it submitted or working."},
		{ReqCancelRunning, CategoryLifecycle, Must,
			"CancelTask on a running task answers with the task, canceled",
			"1.0 §3.1.5; 0.3 §7.4 tasks/cancel",
			"Implement cancellation: stop the work and answer with the task in state canceled."},
		{ReqCancelTerminal, CategoryLifecycle, Must,
			"CancelTask on a finished task is refused with an error",
			"1.0 §3.1.5 (TaskNotCancelableError: already completed, failed or canceled), §3.3.2; 0.3 §8.2",
			"Check the task's state before canceling: a task in a terminal state is not cancelable, answer TaskNotCancelableError instead of a task."},
		{ReqMultiTurn, CategoryLifecycle, Must,
			"A task in input-required continues when the client answers with its taskId and contextId",
			"1.0 §3.4.2 (Input Required State); 0.3 §6.3, §7.1",
			"Accept a message carrying the input-required task's taskId and contextId and continue that same task (it leaves input-required)."},
		{ReqHistoryLength, CategoryLifecycle, Must,
			"GetTask with historyLength n returns at most n history messages",
			"1.0 §3.2.4 and a2a.proto GetTaskRequest.history_length (the server MUST NOT return more messages than the provided value); 0.3 §7.3.1",
			"Truncate task.history to the most recent historyLength messages when the client asks for a limit."},

		{ReqStreamHTTP, CategoryStreaming, Must,
			"A streaming call is answered with a stream (HTTP 200 text/event-stream, or a gRPC server stream)",
			"1.0 §3.1.2, §9.4 / §11.7 (Server-Sent Events); 0.3 §7.2 message/stream",
			"Answer SendStreamingMessage (0.3: message/stream) with Content-Type: text/event-stream and one data: line per event; if the card says capabilities.streaming is true, streaming must work."},
		{ReqStreamFirstEvent, CategoryStreaming, Must,
			"A stream begins with a Task (or consists of a single Message)",
			"1.0 §3.1.2 (the stream MUST begin with the Task object), §3.1.6 (SubscribeToTask MUST return a Task first); 0.3 §7.2",
			"Send the Task as the first event of a task stream, then status and artifact updates; a message-only stream sends exactly one Message."},
		{ReqStreamOrder, CategoryStreaming, Must,
			"Every stream event is well formed and belongs to the stream's task",
			"1.0 §3.2.3 (StreamResponse), §3.5.2 (event ordering), §4.2; 0.3 §7.2.2",
			"Send one StreamResponse (1.0: {\"statusUpdate\": ...}, {\"artifactUpdate\": ...}; 0.3: kind \"status-update\"/\"artifact-update\") per event, each with the stream's taskId and contextId."},
		{ReqStreamFinal, CategoryStreaming, Must,
			"A task stream ends with an event carrying a terminal (or interrupted) state",
			"1.0 §3.1.2 (the stream MUST close when the task reaches a terminal state); 0.3 §7.2.2 (final: true)",
			"Emit a status update with the final state (completed, failed, canceled, rejected, or input-required/auth-required) before closing the stream; in 0.3 mark it final: true."},
		{ReqStreamClosed, CategoryStreaming, Must,
			"Nothing follows the final event and the stream closes",
			"1.0 §3.1.2; 0.3 §7.2.2",
			"Close the stream right after the final event and send nothing after it."},
		{ReqSubscribe, CategoryStreaming, Must,
			"SubscribeToTask on a running task streams it to its end, starting with the Task (0.3: with any event of the task)",
			"1.0 §3.1.6 (SubscribeToTask MUST return a Task first); 0.3 §7.9 tasks/resubscribe (the first event is left open)",
			"Implement SubscribeToTask (0.3: tasks/resubscribe): send the current Task first (1.0), then its updates, and close the stream when the task ends."},
		{ReqSubscribeDone, CategoryStreaming, Must,
			"SubscribeToTask on a finished task is refused with UnsupportedOperationError",
			"1.0 §3.1.6 and a2a.proto SubscribeToTask (UnsupportedOperationError for a terminal task)",
			"Answer a subscription to a completed, failed, canceled or rejected task with UnsupportedOperationError (-32004, HTTP 400, gRPC FAILED_PRECONDITION)."},
		{ReqStreamDisconnect, CategoryStreaming, Must,
			"A client closing a stream midway leaves the task retrievable",
			"1.0 §3.5.2 (the task lifecycle is independent of any stream's); 0.3 §7.2",
			"Decouple the task from the connection: when a streaming client goes away, keep the task (and its work, or cancel it cleanly) and keep answering GetTask for it."},

		{ReqJSONRPCEnvelope, CategoryErrors, Must,
			"Every JSON-RPC answer is a JSON-RPC 2.0 response: jsonrpc \"2.0\", the request's id, exactly one of result and error",
			"JSON-RPC 2.0 §5; 1.0 §9; 0.3 §6.11",
			"Answer with {\"jsonrpc\": \"2.0\", \"id\": <the request's id>, \"result\": ...} or {..., \"error\": {\"code\": <integer>, \"message\": <string>}}; id is null only when the request's id could not be read."},
		{ReqMethodNotFound, CategoryErrors, Must,
			"An unknown method is answered with method-not-found (-32601; gRPC UNIMPLEMENTED)",
			"JSON-RPC 2.0 §5.1; 1.0 §9.5, §10.6; 0.3 §8.1",
			"Answer methods you do not implement with error code -32601 (gRPC: UNIMPLEMENTED), not with a result or another code."},
		{ReqInvalidRequest, CategoryErrors, Must,
			"A JSON object that is not a JSON-RPC request is answered with invalid-request (-32600)",
			"JSON-RPC 2.0 §5.1; 1.0 §9.5; 0.3 §8.1",
			"Validate the envelope (jsonrpc \"2.0\", a string method) before dispatching, and answer -32600 when it is wrong."},
		{ReqParseError, CategoryErrors, Must,
			"A body that is not JSON is answered with parse-error (-32700; HTTP+JSON: 400)",
			"JSON-RPC 2.0 §5.1; 1.0 §9.5, §11.6; 0.3 §8.1",
			"Answer a request body that does not parse as JSON with error -32700 and id null (REST: HTTP 400 with an error body)."},
		{ReqInvalidParams, CategoryErrors, Must,
			"A method called with params of the wrong shape is answered with invalid-params (-32602; HTTP 400; gRPC INVALID_ARGUMENT)",
			"JSON-RPC 2.0 §5.1; 1.0 §3.3.2 (validation errors), §5.4; 0.3 §8.1",
			"Validate params before acting: a message that is not an object, or missing its parts, is -32602 (REST: HTTP 400; gRPC: INVALID_ARGUMENT), not an internal error."},
		{ReqTaskNotFound, CategoryErrors, Must,
			"An unknown task id is answered with TaskNotFoundError (-32001; HTTP 404; gRPC NOT_FOUND)",
			"1.0 §3.3.2, §5.4 (error code mappings); 0.3 §8.2",
			"Map a missing task to TaskNotFoundError: JSON-RPC -32001, HTTP 404, gRPC NOT_FOUND."},
		{ReqNotCancelable, CategoryErrors, Must,
			"A refused cancel is TaskNotCancelableError (-32002; HTTP 400 or 409; gRPC FAILED_PRECONDITION)",
			"1.0 §5.4 (HTTP 409 in v1.0.0, 400 since v1.0.1); 0.3 §8.2",
			"Map a cancel of a finished task to TaskNotCancelableError: JSON-RPC -32002, HTTP 400 (409 is accepted), gRPC FAILED_PRECONDITION."},
		{ReqServerSurvives, CategoryErrors, Must,
			"The agent still answers after the malformed, error and disconnect probes",
			"1.0 §3.3.2 (servers MUST return appropriate errors)",
			"Catch errors per request: malformed input and clients that disconnect must never take the server down."},

		{ReqListTasks, CategoryListTasks, Must,
			"ListTasks answers with a page: a tasks array, nextPageToken (\"\" on the last page), pageSize and totalSize, listing the tasks the client started",
			"1.0 §3.1.4 (nextPageToken MUST always be present; only tasks visible to the client), a2a.proto ListTasksResponse (tasks, next_page_token, page_size, total_size REQUIRED), §9.4.4/§10.4.4/§11.3.2",
			"Implement ListTasks (JSON-RPC \"ListTasks\", GET /tasks, gRPC ListTasks) over the same store as GetTask, answering {\"tasks\": [...], \"nextPageToken\": \"\", \"pageSize\": n, \"totalSize\": m}; refuse it for lack of credentials only when the card declares security."},
		{ReqListPagination, CategoryListTasks, Must,
			"pageSize bounds a page, and nextPageToken leads to the next page without repeating a task",
			"1.0 §3.1.4 (cursor-based pagination), a2a.proto ListTasksRequest.page_size / page_token",
			"Return at most pageSize tasks, a non-empty nextPageToken while more remain, and resume after the token's position on the next call."},
		{ReqListOrder, CategoryListTasks, Must,
			"Tasks are listed most recently updated first (status timestamp descending)",
			"1.0 §3.1.4 (Ordering: sorted by status timestamp, descending)",
			"Sort the listed tasks by status.timestamp, newest first, and give every task's status a timestamp."},
		{ReqListFilters, CategoryListTasks, Must,
			"contextId, status, statusTimestampAfter and historyLength filter and trim the list; artifacts are omitted unless asked for",
			"1.0 §3.1.4 (includeArtifacts false: the artifacts field MUST be omitted), a2a.proto ListTasksRequest (status_timestamp_after: only tasks with a status timestamp at or after it), §3.2.4 (historyLength 0: no history)",
			"Apply every filter of the request; a task without a status timestamp does not match statusTimestampAfter; leave artifacts out unless includeArtifacts is true, and history out for historyLength 0."},
		{ReqListInvalidParams, CategoryListTasks, Must,
			"Invalid ListTasks parameters are answered with InvalidParamsError (-32602; HTTP 400; gRPC INVALID_ARGUMENT)",
			"1.0 §3.3.2 (servers MUST validate all input parameters; validation errors are -32602 / HTTP 400 / INVALID_ARGUMENT), §9.5, a2a.proto ListTasksRequest (page_size 1 to 100), §6.5 (validation error example); the official A2A TCK's ListTasks error cases",
			"Validate before listing: a page token you did not issue, an unknown status, a pageSize outside 1..100 (an explicit 0 included), a negative historyLength and a timestamp that is not RFC 3339 are InvalidParamsError, not a parse error (-32700), an invalid request (-32600) or a result."},

		{ReqVersionUnsupported, CategoryVersioning, Must,
			"A request for a protocol version the interface does not serve is refused with VersionNotSupportedError (-32009; HTTP 400; gRPC FAILED_PRECONDITION); checked on 1.0 interfaces (0.3.0 defines neither the header nor the error)",
			"1.0 §3.6.2 (if the version is not supported by the interface, agents MUST return VersionNotSupportedError), §3.3.2, §5.4",
			"Read the A2A-Version header (gRPC: a2a-version metadata; also the A2A-Version query parameter) on every request, and answer a Major.Minor the interface does not serve with VersionNotSupportedError instead of serving it as your own version."},
		{ReqVersionDefault, CategoryVersioning, Must,
			"A 1.0 request without A2A-Version is served as 1.0, or (strictly) refused or answered as 0.3; checked on 1.0 interfaces",
			"1.0 §3.6.2 (agents MUST interpret an empty value as 0.3), §3.6.1 (clients MUST send the header, except 0.3 clients); the A2A TCK and some 1.0 clients send none",
			"Serve a request without A2A-Version by the version its method (JSON-RPC), path (HTTP+JSON) or service (gRPC) names, or refuse it with VersionNotSupportedError; never with another error or a wrong answer."},
		{ReqVersionPatch, CategoryVersioning, Must,
			"A patch number in A2A-Version does not change the answer (1.0.1 is served as 1.0)",
			"1.0 §3.6 (patch version numbers MUST NOT be considered when clients and servers negotiate protocol versions)",
			"Compare only Major.Minor of the requested version."},

		{ReqAuthRequired, CategoryAuth, Must,
			"With security declared, calls without credentials are refused (HTTP 401/403, gRPC UNAUTHENTICATED/PERMISSION_DENIED)",
			"1.0 §3.3.2 (servers MUST reject requests with missing credentials), §13; 0.3 §4",
			"Authenticate every A2A endpoint the card declares security for, on every interface."},
		{ReqAuthChallenge, CategoryAuth, Should,
			"A 401 answer carries a WWW-Authenticate challenge",
			"1.0 §3.3.2 (servers SHOULD include authentication challenge information); RFC 9110 §11.6.1",
			"Add WWW-Authenticate (e.g. Bearer realm=\"...\") to 401 answers."},
		{ReqAuthDeclared, CategoryAuth, Should,
			"An agent that refuses calls without credentials says so in its card",
			"1.0 §4.4.1 securitySchemes/securityRequirements; 0.3 §5.5 security",
			"Declare the scheme (securitySchemes) and require it (securityRequirements; 0.3: security) so that clients know to authenticate."},

		{ReqEquivalentResult, CategoryEquivalence, Must,
			"The same request over every declared interface yields equivalent results",
			"1.0 §5.1 (functional equivalence: consistent behavior across protocols)",
			"Route every interface to the same request handler, so that the same message gets the same kind of answer and the same final state whatever the binding."},
	}
}

// requirementByID returns the requirement with the given id.
func requirementByID(id string) (Requirement, bool) {
	for _, r := range append(Requirements(), ECPRequirements()...) {
		if r.ID == id {
			return r, true
		}
	}
	return Requirement{}, false
}
