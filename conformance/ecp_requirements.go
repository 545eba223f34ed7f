package conformance

// Categories of the ECP checks, in report order.
const (
	CategoryECPLifecycle Category = "ecp-lifecycle"
	CategoryECPStep      Category = "ecp-step"
	CategoryECPErrors    Category = "ecp-errors"
)

// ECPCategories returns every category of an ECP report, in report order.
func ECPCategories() []Category {
	return []Category{CategoryECPLifecycle, CategoryECPStep, CategoryECPErrors}
}

// Requirement IDs of the ECP checks.
const (
	ReqECPInitialize       = "ecp-initialize"
	ReqECPInitVersion      = "ecp-initialize-version"
	ReqECPInitCapabilities = "ecp-initialize-capabilities"
	ReqECPReset            = "ecp-reset"
	ReqECPResetClears      = "ecp-reset-clears"
	ReqECPStepBeforeInit   = "ecp-step-before-initialize"
	ReqECPStepStatus       = "ecp-step-status"
	ReqECPStepFields       = "ecp-step-fields"
	ReqECPStepToolCalls    = "ecp-step-tool-calls"
	ReqECPStepPaused       = "ecp-step-paused"
	ReqECPStepUsage        = "ecp-step-usage"
	ReqECPEnvelope         = "ecp-envelope"
	ReqECPMethodNotFound   = "ecp-error-method-not-found"
	ReqECPInvalidParams    = "ecp-error-invalid-params"
	ReqECPInvalidRequest   = "ecp-error-invalid-request"
	ReqECPParseError       = "ecp-error-parse"
	ReqECPSurvives         = "ecp-survives"
)

// Citations and shared remediation of the ECP catalogue.
const (
	ecpSpec        = "ECP 0.1.0-draft "
	jsonrpcSpec    = "; JSON-RPC 2.0 "
	ecpDeterminism = " An agent that samples a model answers the same only at temperature 0: pass that in its config (--ecp-config)."
)

// ECPRequirements returns the catalogue of the ECP checks, in report
// order. Spec cites the sections of the ECP 0.1.0 draft (and of JSON-RPC
// 2.0, which the draft's §2 makes the envelope of every message).
func ECPRequirements() []Requirement {
	return []Requirement{
		{ReqECPInitialize, CategoryECPLifecycle, Must,
			"agent/initialize answers with a result object naming the agent (name: a non-empty string)",
			ecpSpec + "§3.1 (Result: name)",
			"Answer agent/initialize with {\"name\": \"my-agent\", \"capabilities\": {}}; it is the first message of every agent process or connection."},
		{ReqECPInitVersion, CategoryECPLifecycle, Must,
			"A protocolVersion in the initialize result is the version the runtime asked for, \"0.1.0\"",
			ecpSpec + "§3.1 (Parameters: protocolVersion; the result may echo it, the draft does not require it)",
			"Answer \"protocolVersion\": \"0.1.0\", or leave it out; proctor refuses an agent that names another version."},
		{ReqECPInitCapabilities, CategoryECPLifecycle, Must,
			"The initialize result declares capabilities as an object; supports_snapshots and supports_steering, where given (at the top or inside capabilities), are booleans",
			ecpSpec + "§3.1 (the Agent must declare its capabilities; Result: capabilities, supports_snapshots, supports_steering)",
			"Add \"capabilities\": {} (an object, empty if the agent supports nothing optional); write supports_snapshots and supports_steering as JSON booleans, not strings."},
		{ReqECPReset, CategoryECPLifecycle, Must,
			"agent/reset answers true",
			ecpSpec + "§3.2 (Result: true if successful)",
			"Answer agent/reset with the JSON literal true (not \"ok\", {} or null) once the agent's state is cleared; proctor treats anything else as a failed reset and ends the simulation."},
		{ReqECPResetClears, CategoryECPLifecycle, Must,
			"After agent/reset the agent answers as from a fresh boot: the same input, in the same context, gets the same answer (status, public_output, tool call names and arguments) as after the first reset",
			ecpSpec + "§3.2 (clear all short-term memory, conversation history and temporary variables; return to a fresh boot state)",
			"Drop every per-conversation variable in agent/reset (history, counters, caches, pending tool calls) and rebuild them as at startup." + ecpDeterminism},
		{ReqECPStepBeforeInit, CategoryECPLifecycle, May,
			"A step sent before agent/initialize gets a JSON-RPC response (a result or an error; the draft does not say which) and the agent can still be initialized",
			ecpSpec + "§3.1 (agent/initialize is the first message sent; nothing is said of a step before it)" + jsonrpcSpec + "§4 (the server MUST reply to every request)",
			"Answer a step that comes before agent/initialize, for example with a JSON-RPC error saying the agent is not initialized, instead of crashing or staying silent."},

		{ReqECPStepStatus, CategoryECPStep, Must,
			"agent/step answers with a result object whose status is \"done\", \"paused\" or \"running\"",
			ecpSpec + "§3.3 (Result: status)",
			"Answer every step with {\"status\": \"done\", \"public_output\": \"...\"} (or paused with tool_calls, or running); status is one of the three lowercase strings."},
		{ReqECPStepFields, CategoryECPStep, Must,
			"public_output and private_thought are strings or null, tool_calls an array or null",
			ecpSpec + "§3.3 (Result: public_output string | null, private_thought string | null, tool_calls array | null)",
			"Write public_output and private_thought as JSON strings (or null, or leave them out) and tool_calls as an array; a number, an object or a list of strings in public_output is not read."},
		{ReqECPStepToolCalls, CategoryECPStep, Must,
			"Every tool call names its tool and gives its arguments: {\"id\", \"name\", \"arguments\"} or OpenAI-style {\"id\", \"type\": \"function\", \"function\": {\"name\", \"arguments\"}}, arguments an object or a JSON string holding one",
			ecpSpec + "§3.3 (Result: tool_calls; the item shape is left open, these are the shapes runtimes read)",
			"Give each tool call a non-empty name and its arguments as an object (or a JSON string holding an object), and an id so that the results can be matched to the calls."},
		{ReqECPStepPaused, CategoryECPStep, Should,
			"A paused step carries the tool calls it waits for",
			ecpSpec + "§3.3 (status paused: waiting for tool; its example pauses without tool_calls, which runtimes can only read as done)",
			"Answer \"paused\" only with a non-empty tool_calls array; a step that only talks to the user is \"done\"."},
		{ReqECPStepUsage, CategoryECPStep, Should,
			"Every step result carries usage: an object of non-negative integer token counts",
			ecpSpec + "§3.3 (Result: usage (object): token counts for this step)",
			"Add \"usage\": {\"input\": N, \"output\": M} to every step result (0 and 0 for an agent that uses no model); without it proctor estimates tokens from the text."},

		{ReqECPEnvelope, CategoryECPErrors, Must,
			"Every response is a JSON-RPC 2.0 response: \"jsonrpc\": \"2.0\", the request's id, and either a result or an error object with an integer code and a string message",
			ecpSpec + "§2 (all messages must adhere to JSON-RPC 2.0)" + jsonrpcSpec + "§5, §5.1",
			"Copy the request's id into its response, write \"jsonrpc\": \"2.0\", and send exactly one of result and error; over stdio write nothing else to stdout (log to stderr)."},
		{ReqECPMethodNotFound, CategoryECPErrors, Must,
			"An unknown method gets JSON-RPC error -32601 (Method not found)",
			ecpSpec + "§2, §4 (standard JSON-RPC error codes)" + jsonrpcSpec + "§5.1",
			"Answer a method you do not serve with {\"error\": {\"code\": -32601, \"message\": \"unknown method ...\"}} and keep serving."},
		{ReqECPInvalidParams, CategoryECPErrors, Must,
			"agent/step with parameters of the wrong types (input a number, context a string) gets JSON-RPC error -32602 (Invalid params)",
			ecpSpec + "§3.3 (input: string; context: object), §4 (standard JSON-RPC error codes)" + jsonrpcSpec + "§5.1",
			"Check the types of a step's parameters before using them and answer -32602 when input is not a string or context not an object, instead of failing inside the agent (-32603) or crashing."},
		{ReqECPInvalidRequest, CategoryECPErrors, Should,
			"A request with \"jsonrpc\": \"1.0\" gets JSON-RPC error -32600 (Invalid Request)",
			ecpSpec + "§2 (all messages must adhere to JSON-RPC 2.0; the draft says nothing of invalid ones)" + jsonrpcSpec + "§4 (jsonrpc MUST be exactly \"2.0\"), §5.1",
			"Check \"jsonrpc\" == \"2.0\" and a string \"method\" on every request and answer -32600 otherwise."},
		{ReqECPParseError, CategoryECPErrors, Should,
			"A message that is not JSON gets JSON-RPC error -32700 (Parse error) with id null",
			ecpSpec + "§2 (all messages must adhere to JSON-RPC 2.0; the draft says nothing of malformed ones)" + jsonrpcSpec + "§5 (id null when it cannot be read), §5.1",
			"Catch the JSON decoding error of each message and answer {\"jsonrpc\": \"2.0\", \"id\": null, \"error\": {\"code\": -32700, ...}} instead of exiting."},
		{ReqECPSurvives, CategoryECPErrors, Must,
			"The agent still answers a valid request after each bad one (unknown method, invalid params, wrong version, not JSON)",
			ecpSpec + "§2" + jsonrpcSpec + "§4 (the server MUST reply to every request)",
			"Handle every error inside the request loop: answer it with a JSON-RPC error and read the next message, never exit or stop reading."},
	}
}
