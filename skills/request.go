package skills

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/translation"
)

// BuiltinAgent is the agent_url that selects proctor's reference agent,
// started in-process on a loopback port.
const BuiltinAgent = "builtin"

// Defaults of an EvaluationRequest's zero fields.
const (
	DefaultDomain      = "mock"
	DefaultConcurrency = 4
	DefaultNumTrials   = 1
	DefaultUser        = "scripted"
	// UserLLM selects the LLM user simulator.
	UserLLM = "llm"
	// DefaultSplit is the task split of a domain that has splits (tau2's)
	// evaluated when none is asked for; for a domain without splits it
	// means all its tasks.
	DefaultSplit = "base"
)

// EvaluationRequest asks for an evaluation: the parameters of the
// run_evaluation skill, with their wire names. Zero fields take defaults.
type EvaluationRequest struct {
	Domain string `json:"domain,omitempty" validate:"omitempty,max=100"`
	// Split is the task split of a domain that has them (tau2's domains:
	// base, their default, train and test); a domain without splits
	// accepts only base, meaning all its tasks.
	Split string `json:"split,omitempty" validate:"omitempty,oneof=base train test"`
	// Strict adds ACTION to the reward basis of every task that expects
	// actions of the agent: reaching the right database by other calls no
	// longer earns the reward.
	Strict bool `json:"strict,omitempty"`
	// ActionMatch is how ACTION matches expected actions with tool calls:
	// "tau2" (tau2-bench's reading, the default) or "exact" (proctor's
	// stricter one; see result.ActionMatch).
	ActionMatch result.ActionMatch `json:"action_match,omitempty" validate:"omitempty,oneof=tau2 exact"`
	AgentURL    string             `json:"agent_url,omitempty" validate:"required_without=Resume,max=2048"`

	Transport string `json:"transport,omitempty" validate:"omitempty,oneof=jsonrpc rest grpc"`
	Protocol  string `json:"protocol,omitempty" validate:"omitempty,oneof=1.0 0.3"`
	Streaming string `json:"streaming,omitempty" validate:"omitempty,oneof=auto on off"`
	Profile   string `json:"profile,omitempty" validate:"omitempty,max=50"`
	User      string `json:"user,omitempty" validate:"omitempty,oneof=scripted llm"`
	// UserModel is the model that plays an LLM user ("openai:gpt-4.1",
	// "gemini:gemini-2.5-flash"); empty: the service's default.
	UserModel string `json:"user_model,omitempty" validate:"omitempty,max=200"`
	// UserPrompt is the prompt the LLM user speaks from: "tau2" (the
	// default: tau2-bench's user simulator, so scores compare with tau2's)
	// or "proctor" (proctor's own prompt).
	UserPrompt string `json:"user_prompt,omitempty" validate:"omitempty,oneof=tau2 proctor"`
	// JudgeModel judges NL_ASSERTION criteria; empty: the service's
	// default judge, else the user model.
	JudgeModel string `json:"judge_model,omitempty" validate:"omitempty,max=200"`
	// RetrievalConfig is banking_knowledge's retrieval configuration, as
	// tau2's --retrieval-config names it (bm25, grep_only...): the
	// agent's retrieval tools and prompt. That domain needs one (tau2's
	// default, alltools, needs embeddings proctor does not offer); no
	// other domain takes one.
	RetrievalConfig string `json:"retrieval_config,omitempty" validate:"omitempty,max=100"`
	// JudgeSamples is the number of judge verdicts per conversation,
	// decided by majority (0: 3).
	JudgeSamples int `json:"judge_samples,omitempty" validate:"gte=0,lte=25"`
	// Temperature and Seed are passed to the user and judge models.
	Temperature *float64 `json:"temperature,omitempty" validate:"omitempty,gte=0,lte=2"`
	Seed        *int64   `json:"seed,omitempty"`

	NumTasks  int      `json:"num_tasks,omitempty" validate:"gte=0,lte=1000000"`
	TaskIDs   []string `json:"task_ids,omitempty" validate:"max=100000,dive,required,max=200"`
	NumTrials int      `json:"num_trials,omitempty" validate:"gte=0,lte=1000"`
	// ShardIndex and NumShards split the selected tasks between several
	// evaluations: this one runs the tasks whose position modulo NumShards
	// is ShardIndex.
	ShardIndex int `json:"shard_index,omitempty" validate:"gte=0"`
	NumShards  int `json:"num_shards,omitempty" validate:"gte=0,lte=100000"`

	MaxSteps       int             `json:"max_steps,omitempty" validate:"omitempty,gte=2,lte=100000"`
	MaxErrors      int             `json:"max_errors,omitempty" validate:"gte=0,lte=100000"`
	Concurrency    int             `json:"concurrency,omitempty" validate:"gte=0,lte=10000"`
	Timeout        result.Duration `json:"timeout,omitempty"`
	RequestTimeout result.Duration `json:"request_timeout,omitempty"`
	Retries        *int            `json:"retries,omitempty" validate:"omitempty,gte=0,lte=20"`
	// MaxResponseBytes caps one reply of the agent; it may lower the
	// service's ceiling (Service.MaxResponseBytes), not raise it.
	MaxResponseBytes int64 `json:"max_response_bytes,omitempty" validate:"omitempty,gte=1024"`
	// ToolFaults corrupts this share (0 to 1) of the agent's tool results
	// before it sees them, to score its robustness beside its reward (the
	// environment runs every call truly); Seed, when set, chooses which.
	ToolFaults float64 `json:"tool_faults,omitempty" validate:"gte=0,lte=1"`

	// Headers are sent to the agent (credentials, usually). Their values are
	// never echoed, logged or stored; only their names are recorded.
	Headers map[string]string `json:"headers,omitempty" validate:"max=64"`

	// ECPConfig is agent/initialize's config for an ECP agent. A value
	// {"$env": "NAME"} stands for the environment variable NAME, read when
	// the agent starts (where the service allows it) and never stored.
	ECPConfig map[string]any `json:"ecp_config,omitempty" validate:"omitempty,max=256"`
	// ECPAllowTools is an ECP agent's manifest of permissions: the only
	// domain tools it may call (an empty list: none). It takes precedence
	// over ecp_config's allow_tools; neither allows every tool.
	ECPAllowTools []string `json:"ecp_allow_tools,omitempty" validate:"max=1000,dive,required,max=200"`

	// Resume finishes the interrupted evaluation with this id (or unique
	// prefix) with its original settings; only Headers and Concurrency of
	// this request apply.
	Resume string `json:"resume,omitempty" validate:"omitempty,max=100"`
}

// InvalidRequestError lists everything wrong with a request.
type InvalidRequestError struct {
	Violations []string
}

func (e *InvalidRequestError) Error() string {
	return "invalid request: " + strings.Join(e.Violations, "; ")
}

// invalid returns an *InvalidRequestError with one violation.
func invalid(format string, a ...any) error {
	return &InvalidRequestError{Violations: []string{fmt.Sprintf(format, a...)}}
}

// validationError turns validator errors into an *InvalidRequestError.
func validationError(err error) error {
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return invalid("%v", err)
	}
	out := make([]string, 0, len(verrs))
	for _, fe := range verrs {
		out = append(out, describeViolation(fe))
	}
	return &InvalidRequestError{Violations: out}
}

// check validates the request's shape: everything that needs no domain or
// database. Violations name fields by their wire names.
func (r *EvaluationRequest) check(v *validator.Validate) error {
	var out []string
	if err := v.Struct(r); err != nil {
		var verrs validator.ValidationErrors
		if !errors.As(err, &verrs) {
			return invalid("%v", err)
		}
		for _, fe := range verrs {
			out = append(out, describeViolation(fe))
		}
	}
	if r.NumShards > 0 && r.ShardIndex >= r.NumShards {
		out = append(out, fmt.Sprintf("shard_index %d: must be below num_shards (%d)", r.ShardIndex, r.NumShards))
	}
	if r.NumShards == 0 && r.ShardIndex > 0 {
		out = append(out, "shard_index needs num_shards")
	}
	if r.Timeout < 0 || r.RequestTimeout < 0 {
		out = append(out, "timeout and request_timeout must not be negative")
	}
	if spec, ok := ModelAgentSpec(r.AgentURL); ok {
		if !validModelSpec(spec) {
			out = append(out, fmt.Sprintf("agent_url %q: want model:provider:model, such as model:openai:gpt-4.1", truncate(r.AgentURL, 100)))
		}
	} else if r.AgentURL != "" && r.AgentURL != BuiltinAgent && !ecp.IsTarget(r.AgentURL) {
		if u, err := url.Parse(r.AgentURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			out = append(out, fmt.Sprintf("agent_url %q: want %q, an http:// or https:// URL, model:PROVIDER:MODEL (proctor's own LLM agent), "+
				"or an ECP agent (ecp+stdio:COMMAND ARGS, ecp+ws://HOST:PORT/PATH)", truncate(r.AgentURL, 100), BuiltinAgent))
		}
	}
	if r.Profile != "" && !slices.Contains(translation.ProfileNames(), r.Profile) {
		out = append(out, fmt.Sprintf("profile %q: want one of %s", truncate(r.Profile, 50), strings.Join(translation.ProfileNames(), ", ")))
	}
	out = append(out, modelSpecProblems(r.UserModel, r.JudgeModel)...)
	for k, val := range r.Headers {
		if k == "" || strings.ContainsAny(k, " \t\r\n:") || len(k) > 256 {
			out = append(out, fmt.Sprintf("headers: %q is not a header name", truncate(k, 40)))
		}
		if strings.ContainsAny(val, "\r\n") || len(val) > 8192 {
			out = append(out, fmt.Sprintf("headers: the value of %q is not a valid header value", truncate(k, 40)))
		}
	}
	if len(out) > 0 {
		slices.Sort(out)
		return &InvalidRequestError{Violations: out}
	}
	return nil
}

// validModelSpec is the shape of a model spec, "provider:model"; whether
// the provider exists is for the service's model source to say.
func validModelSpec(s string) bool {
	p, m, ok := strings.Cut(s, ":")
	return ok && p != "" && strings.TrimSpace(m) != "" && !strings.ContainsAny(s, " \t\r\n")
}

func describeViolation(fe validator.FieldError) string {
	name := fe.Field()
	switch fe.Tag() {
	case "required", "required_without":
		return name + " is required"
	case "oneof":
		return fmt.Sprintf("%s %q: want one of %s", name, fmt.Sprint(fe.Value()), strings.ReplaceAll(fe.Param(), " ", ", "))
	case "max":
		if fe.Kind().String() == "string" {
			return fmt.Sprintf("%s: at most %s characters", name, fe.Param())
		}
		if k := fe.Kind().String(); k == "slice" || k == "map" {
			return fmt.Sprintf("%s: at most %s entries", name, fe.Param())
		}
	case "modelspec":
		return fmt.Sprintf("%s %q: want provider:model, such as openai:gpt-4.1 or gemini:gemini-2.5-flash", name, truncate(fmt.Sprint(fe.Value()), 60))
	case "lte":
		return fmt.Sprintf("%s %v: at most %s", name, fe.Value(), fe.Param())
	case "gte":
		return fmt.Sprintf("%s %v: at least %s", name, fe.Value(), fe.Param())
	}
	return fmt.Sprintf("%s: fails %s %s", name, fe.Tag(), fe.Param())
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// newValidator returns a validator that names fields by their JSON names.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	_ = v.RegisterValidation("modelspec", func(fl validator.FieldLevel) bool { return validModelSpec(fl.Field().String()) })
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			return f.Name
		}
		return name
	})
	return v
}

// withDefaults fills zero fields.
func (r EvaluationRequest) withDefaults() EvaluationRequest {
	if r.Domain == "" {
		r.Domain = DefaultDomain
	}
	if r.Profile == "" {
		r.Profile = string(agent.ProfileAgentBeats)
	}
	if r.User == "" {
		r.User = DefaultUser
	}
	if r.Streaming == "" {
		r.Streaming = string(a2aclient.StreamingAuto)
	}
	if r.NumTrials == 0 {
		r.NumTrials = DefaultNumTrials
	}
	if r.Concurrency == 0 {
		r.Concurrency = DefaultConcurrency
	}
	if r.MaxSteps == 0 {
		r.MaxSteps = rollout.DefaultMaxSteps
	}
	if r.MaxErrors == 0 {
		r.MaxErrors = rollout.DefaultMaxErrors
	}
	if r.Timeout == 0 {
		r.Timeout = result.Duration(rollout.DefaultTimeout)
	}
	if r.RequestTimeout == 0 {
		r.RequestTimeout = result.Duration(a2aclient.DefaultRequestTimeout)
	}
	if r.Retries == nil {
		n := a2aclient.DefaultRetries
		r.Retries = &n
	}
	if r.MaxResponseBytes == 0 {
		r.MaxResponseBytes = a2aclient.DefaultMaxResponseBytes
	}
	return r
}

// modelSpecProblems says what is wrong with a request's user and judge
// model specs, if anything.
func modelSpecProblems(user, judge string) []string {
	var out []string
	for _, m := range []struct{ field, spec string }{{"user_model", user}, {"judge_model", judge}} {
		if m.spec != "" && !validModelSpec(m.spec) {
			out = append(out, fmt.Sprintf("%s %q: want provider:model, such as openai:gpt-4.1 or gemini:gemini-2.5-flash", m.field, truncate(m.spec, 60)))
		}
	}
	return out
}

// ModelAgentSpec returns the model of an agent_url that names proctor's
// own LLM agent ("model:openai:gpt-4.1" names openai:gpt-4.1).
func ModelAgentSpec(agentURL string) (spec string, ok bool) {
	return strings.CutPrefix(agentURL, result.ModelAgentPrefix)
}

// header returns the request's headers as an http.Header.
func (r *EvaluationRequest) header() http.Header { return headerOf(r.Headers) }

// headerOf is a request's headers map as an http.Header.
func headerOf(m map[string]string) http.Header {
	h := http.Header{}
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}
