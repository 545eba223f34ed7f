package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/measure"
)

// TerminationReason says why a simulation ended, as it appears in results.
type TerminationReason string

// Termination reasons. Only TermUserStop and TermAgentStop can earn reward
// (see TerminationReason.Rewardable).
const (
	TermUserStop       TerminationReason = "user_stop"
	TermAgentStop      TerminationReason = "agent_stop"
	TermMaxSteps       TerminationReason = "max_steps"
	TermTooManyErrors  TerminationReason = "too_many_errors"
	TermTimeout        TerminationReason = "timeout"
	TermAgentError     TerminationReason = "agent_error"
	TermUserError      TerminationReason = "user_error"
	TermInfrastructure TerminationReason = "infrastructure_error"
	// The ECP agent's own refusals (JSON-RPC errors -32001, -32002 and
	// -32003): the agent's outcome, not a failure of the exchange.
	TermContextOverflow   TerminationReason = "context_window_exceeded"
	TermSafetyViolation   TerminationReason = "safety_violation"
	TermCapabilityMissing TerminationReason = "capability_missing"
)

// Rewardable reports whether a simulation that ended this way can earn
// reward: only a conversation the user or the agent stopped is scored.
func (t TerminationReason) Rewardable() bool { return t == TermUserStop || t == TermAgentStop }

// Failure reports whether a simulation that ended this way failed before
// any outcome of the agent's: the agent could not be talked to (errors,
// unusable replies), the user simulator failed (its model unreachable), or
// proctor did.
func (t TerminationReason) Failure() bool {
	return t == TermAgentError || t == TermUserError || t == TermInfrastructure
}

// NoOutcome says why an evaluation measured nothing, or "" when it did:
// every one of its simulations ended in a Failure. The reason counts them
// by termination and quotes the first error.
func NoOutcome(sims []Simulation) string {
	if len(sims) == 0 {
		return ""
	}
	counts := map[TerminationReason]int{}
	for _, s := range sims {
		if !s.TerminationReason.Failure() {
			return ""
		}
		counts[s.TerminationReason]++
	}
	var parts []string
	for _, t := range []TerminationReason{TermAgentError, TermUserError, TermInfrastructure} {
		if counts[t] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[t], t))
		}
	}
	why := fmt.Sprintf("every simulation failed before an outcome (%s)", strings.Join(parts, ", "))
	if first := sims[0].Error; first != "" {
		if len(first) > 300 {
			first = first[:300] + "..."
		}
		why += "; " + sims[0].ID + ": " + first
	}
	return why
}

// Status is the state of an evaluation.
type Status string

// Evaluation statuses.
const (
	StatusRunning     Status = "running"
	StatusCompleted   Status = "completed"
	StatusInterrupted Status = "interrupted"
	// StatusFailed is an evaluation that stopped on an error (its storage
	// failed), or whose every simulation ended in a Failure (NoOutcome):
	// Evaluation.Error says which.
	StatusFailed Status = "failed"
)

// Role says who a transcript message is from.
type Role string

// Roles of transcript messages.
const (
	RoleAssistant Role = "assistant"
	RoleUser      Role = "user"
	RoleTool      Role = "tool"
)

// successThreshold is the least reward that counts as a success: tau2-bench
// counts full reward, and rewards are products of floats.
const successThreshold = 1 - 1e-6

// Passed reports whether a reward is a success (full reward), the one
// definition that pass^k, reports and progress lines all count by.
func Passed(reward float64) bool { return reward >= successThreshold }

// Message is one entry of a simulation transcript.
type Message struct {
	Role       Role               `json:"role"`
	Content    string             `json:"content"`
	ToolCalls  []domains.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string             `json:"tool_call_id,omitempty"`
	// Name is the tool's name on tool messages.
	Name  string `json:"name,omitempty"`
	Error bool   `json:"error,omitempty"`
	// Requestor is "user" on the user simulator's tool calls and their
	// results (telecom's user acts on their own phone); empty for the
	// agent's.
	Requestor string `json:"requestor,omitempty"`
	Turn      int    `json:"turn"`
	// History marks the messages of the task's message history: the
	// conversation as it stood when the simulation started (tau2's
	// initial_state.message_history), which head the transcript. Their
	// tool calls ran while the environment was set up, not during the
	// simulation; they count in scoring as tau2 counts them.
	History bool `json:"history,omitempty"`
	// PrivateThought is an ECP agent's private reasoning on its message:
	// kept for white-box review only, never shown to the user simulator,
	// a judge or a COMMUNICATE check (which see Content).
	PrivateThought string `json:"private_thought,omitempty"`
	// Refused marks the result of an agent's tool call that proctor did
	// not run because the agent's manifest of permissions (allow_tools)
	// does not list the tool: a policy violation. The call stays in the
	// transcript as the agent made it; the environment never saw it.
	Refused bool `json:"refused,omitempty"`
	// Fault, on a tool message, says proctor corrupted the result the
	// agent saw (Content) in this way (--tool-faults); the environment ran
	// the call truly.
	Fault FaultKind `json:"fault,omitempty"`
	// Interim marks an agent's message that came before its answer in the
	// same turn: progress it reported while working ("Looking it up..."),
	// as an A2A working status message, say. It is kept to show what the
	// agent said, but is not the answer: the user simulator, COMMUNICATE,
	// the judge and tau2 exports see only the answer, and it takes no
	// step. It has the Turn of the answer that follows it.
	Interim bool `json:"interim,omitempty"`
}

// Simulation is the result of one task x one trial.
type Simulation struct {
	ID                string            `json:"id"`
	TaskID            string            `json:"task_id"`
	Trial             int               `json:"trial"`
	Reward            float64           `json:"reward"`
	TerminationReason TerminationReason `json:"termination_reason"`
	Error             string            `json:"error,omitempty"`
	RewardInfo        RewardInfo        `json:"reward_info"`
	Messages          []Message         `json:"messages"`
	Metrics           Metrics           `json:"metrics"`
	ContextID         string            `json:"context_id,omitempty"`
	// NonConformant lists protocol deviations of the agent seen during the
	// simulation that proctor worked around.
	NonConformant []string  `json:"non_conformant,omitempty"`
	StartedAt     time.Time `json:"started_at"`
	DurationMS    float64   `json:"duration_ms"`
	// LLMCalls lists the model calls made for this simulation (the user
	// simulator's and the judge's), with tokens and cost; Metrics.LLMUsage
	// sums them per role.
	LLMCalls []measure.LLMCall `json:"llm_calls,omitempty"`
	// FinalHash is the hash of the environment's databases when the
	// conversation ended (domains.Env.Hash), recorded by the rollout of a
	// conversation that can earn reward, so that it can be scored again
	// without the environment. Empty in results stored before it was
	// recorded: rescoring then rebuilds it by replaying the transcript's
	// tool calls.
	FinalHash string `json:"final_hash,omitempty"`
	// Requests holds per-request metrics; stored beside the simulation, not
	// inside it.
	Requests []measure.Request `json:"-"`
}

// Passed reports whether the simulation succeeded (see Passed).
func (s *Simulation) Passed() bool { return Passed(s.Reward) }

// SimulationID names a simulation within its evaluation.
func SimulationID(taskID string, trial int) string {
	return taskID + "#" + strconv.Itoa(trial) // as fmt's "%s#%d", without its formatting
}

// Metrics aggregates request metrics over a simulation or an evaluation.
type Metrics struct {
	Requests int `json:"requests"`
	Errors   int `json:"errors"`
	// Retries counts requests retried after a transient failure (refused
	// or reset connections, 502/503/504), which may have reached the agent.
	Retries int `json:"retries,omitempty"`
	// Resends counts requests sent again at once because the agent had
	// closed the kept-alive connection they were written to before it could
	// read them: it never saw them, so they are not charged to it.
	Resends         int            `json:"resends,omitempty"`
	StatusCodes     map[string]int `json:"status_codes"`
	ErrorClasses    map[string]int `json:"error_classes,omitempty"`
	LatencyMS       Latency        `json:"latency_ms"`
	InputTokens     int64          `json:"input_tokens"`
	OutputTokens    int64          `json:"output_tokens"`
	TokensEstimated bool           `json:"tokens_estimated"`
	BytesSent       int64          `json:"bytes_sent"`
	BytesReceived   int64          `json:"bytes_received"`
	// LLMUsage is what proctor's own model calls cost, per role ("user"
	// for the user simulator, "judge" for the NL_ASSERTION judge); absent
	// when no model was called. Not the agent's tokens, which are above.
	LLMUsage map[string]measure.LLMUsage `json:"llm_usage,omitempty"`
}

// Latency summarizes request latencies in milliseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Interval is a confidence interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Summary is the score of an evaluation.
type Summary struct {
	NumTasks           int                `json:"num_tasks"`
	NumTrials          int                `json:"num_trials"`
	NumSimulations     int                `json:"num_simulations"`
	AvgReward          float64            `json:"avg_reward"`
	PassHatK           map[string]float64 `json:"pass_hat_k"`
	PassAtK            map[string]float64 `json:"pass_at_k"`
	PassHat1CI95       Interval           `json:"pass_hat_1_ci95"`
	TerminationReasons map[string]int     `json:"termination_reasons"`
	Tasks              []TaskSummary      `json:"tasks"`
	// DoNothingBaseline is what an agent that does nothing would score on
	// these tasks (see DoNothingPasses), to read every score beside.
	// VacuousTasks lists the tasks it passes, in task order: those whose
	// simulations have reward_info.do_nothing_passes.
	//
	// Both are always present in summaries proctor computes, for every
	// domain (all of proctor's domains are scored on tau2's reward bases):
	// a baseline of 0 and an empty list when no task is vacuous. They are
	// absent only from results stored before proctor computed them.
	DoNothingBaseline *Baseline `json:"do_nothing_baseline,omitempty"`
	VacuousTasks      []string  `json:"vacuous_tasks,omitzero"`
	// EnvUncheckedTasks lists, in task order, the tasks whose final
	// environment is not checked although their basis names DB or
	// ENV_ASSERTION: they have no expected actions and no env assertions
	// (both null, not empty), so tau2-bench gives DB and ENV_ASSERTION 1
	// without a check, and so does proctor (reward_info.env_unchecked).
	// Absent when there are none.
	EnvUncheckedTasks []string `json:"env_unchecked_tasks,omitempty"`
	// Process is how the agent worked (turns and requests to success,
	// repeated calls, unverified writes, tool errors); absent from
	// summaries of no simulations and from results stored before proctor
	// measured it.
	Process *Process `json:"process,omitempty"`
	// Robustness is how the agent met corrupted tool results; present only
	// when the evaluation corrupted some (--tool-faults).
	Robustness *Robustness `json:"robustness,omitempty"`
	// Reliability is the evaluation's noise floor, when a task has two or
	// more trials; absent otherwise and from results stored before it.
	Reliability *Reliability `json:"reliability,omitempty"`
	// Tau2 are avg_reward and pass^k as tau2-bench computes them, beside
	// the strict figures above (see Tau2Figures); absent from summaries of
	// no simulations and from results stored before proctor computed them.
	Tau2 *Tau2Figures `json:"tau2,omitempty"`
}

// Baseline is the score of a reference agent, computed the way the agent's
// own scores are. A do-nothing agent passes exactly the vacuous tasks, on
// every trial: its AvgReward is the share of simulations of vacuous tasks
// (weighted by trials, as Summary.AvgReward) and its PassHat1 the share of
// vacuous tasks (and so its pass^k for every k).
type Baseline struct {
	AvgReward float64 `json:"avg_reward"`
	PassHat1  float64 `json:"pass_hat_1"`
}

// TaskSummary is the score of one task over its trials.
type TaskSummary struct {
	TaskID    string  `json:"task_id"`
	Trials    int     `json:"trials"`
	Successes int     `json:"successes"`
	AvgReward float64 `json:"avg_reward"`
}

// AgentInfo identifies the evaluated agent.
type AgentInfo struct {
	URL             string `json:"url"`
	CardURL         string `json:"card_url,omitempty"`
	Name            string `json:"name,omitempty"`
	Version         string `json:"version,omitempty"`
	Transport       string `json:"transport,omitempty"`
	ProtocolVersion string `json:"protocol_version,omitempty"`
	Streaming       bool   `json:"streaming,omitempty"`
	// Builtin is true for proctor's own reference agent.
	Builtin bool `json:"builtin,omitempty"`
	// Model is the model spec of proctor's own LLM agent (agent_url
	// "model:SPEC", --agent-model), which it ran in-process; empty for any
	// other agent.
	Model string `json:"model,omitempty"`
}

// BuiltinAddress is the address results of proctor's built-in reference
// agent are filed under, whatever loopback port it listened on.
const BuiltinAddress = "builtin"

// Address is the agent's address as results are filed under it (the
// store's agent_url, which `proctor results --agent` matches): its URL, or
// for proctor's own agents, whose loopback URL changes every run,
// BuiltinAddress or ModelAgentPrefix and the model.
func (a AgentInfo) Address() string {
	switch {
	case a.Builtin:
		return BuiltinAddress
	case a.Model != "":
		return ModelAgentPrefix + a.Model
	}
	return a.URL
}

// ModelAgentPrefix starts the address of proctor's own LLM agent:
// "model:" and the model's spec ("model:openai:gpt-4.1").
const ModelAgentPrefix = "model:"

// Config is how an evaluation was asked for; stored so that --resume can
// finish it the same way.
type Config struct {
	Domain  string `json:"domain"`
	Agent   string `json:"agent"`
	Profile string `json:"profile"`
	User    string `json:"user"`
	// UserModel and JudgeModel are the model specs of the LLM user
	// simulator and the NL_ASSERTION judge ("openai:gpt-4.1"); empty when
	// not used. JudgeSamples, Temperature and Seed configure them.
	UserModel string `json:"user_model,omitempty"`
	// UserPrompt is the LLM user's prompt: "tau2" (tau2-bench's own user
	// simulator; empty means it) or "proctor".
	UserPrompt string `json:"user_prompt,omitempty"`
	// UserGuidelines says which copy of tau2's user simulator guidelines
	// the LLM user spoke from under the tau2 prompt; absent otherwise (and
	// in evaluations recorded before proctor said).
	UserGuidelines *UserGuidelines `json:"user_guidelines,omitempty"`
	// RetrievalConfig is banking_knowledge's retrieval configuration (tau2's
	// --retrieval-config): which retrieval tools and prompt the agent had.
	RetrievalConfig string   `json:"retrieval_config,omitempty"`
	JudgeModel      string   `json:"judge_model,omitempty"`
	JudgeSamples    int      `json:"judge_samples,omitempty"`
	Temperature     *float64 `json:"temperature,omitempty"`
	Seed            *int64   `json:"seed,omitempty"`
	NumTrials       int      `json:"num_trials"`
	NumTasks        int      `json:"num_tasks,omitempty"`
	TaskIDs         []string `json:"task_ids,omitempty"`
	MaxSteps        int      `json:"max_steps"`
	MaxErrors       int      `json:"max_errors"`
	Timeout         Duration `json:"timeout"`
	RequestTimeout  Duration `json:"request_timeout"`
	Concurrency     int      `json:"concurrency"`
	// Transport, Protocol and Streaming are what was asked for ("" and
	// "auto" let the agent card decide); Agent.Transport says what was used.
	Transport string `json:"transport,omitempty"`
	Protocol  string `json:"protocol,omitempty"`
	Streaming string `json:"streaming,omitempty"`
	Retries   int    `json:"retries"`
	// MaxResponseBytes caps one reply of the agent (0: the default).
	MaxResponseBytes int64 `json:"max_response_bytes,omitempty"`
	// ShardIndex and NumShards record which share of the tasks this
	// evaluation runs when several evaluations split them.
	ShardIndex int `json:"shard_index,omitempty"`
	NumShards  int `json:"num_shards,omitempty"`
	// Split is the domain's task split the tasks were drawn from ("base",
	// "train", "test"); empty for a domain without splits.
	Split string `json:"split,omitempty"`
	// HeaderNames lists the extra request headers by name only: their
	// values (credentials, usually) are never stored.
	HeaderNames []string `json:"header_names,omitempty"`
	// ECPConfig is an ECP agent's initialize config as asked for, with
	// environment references ({"$env": "NAME"}) unresolved: secrets are
	// never stored.
	ECPConfig map[string]any `json:"ecp_config,omitempty"`
	// ECPAllowTools is the ECP agent's manifest of permissions in force:
	// the only domain tools it may call ([]: none); absent, every tool.
	// Calls outside it are refused and recorded as policy violations.
	ECPAllowTools []string `json:"ecp_allow_tools,omitzero"`
	// ToolFaults is the share of the agent's tool results corrupted before
	// it saw them (--tool-faults); 0 when none were. Seed, when set, chose
	// which.
	ToolFaults float64 `json:"tool_faults,omitempty"`
	// Strict is strict scoring (Limits.Strict): ACTION added to the reward
	// basis of every task with expected actions. It must equal the
	// simulator's Limits.Strict, or Runner.Run refuses to run.
	Strict bool `json:"strict,omitempty"`
	// ActionMatch is how the ACTION basis matched expected actions with
	// tool calls. Empty reads as ActionMatchTau2, the default; the runner
	// records it explicitly (see ActionMatch.OrDefault).
	ActionMatch ActionMatch `json:"action_match,omitempty"`
}

// UserGuidelines says where the guidelines of tau2's user simulator came
// from (tau2-bench's data/tau2/user_simulator/simulation_guidelines*.md).
type UserGuidelines struct {
	// Source is GuidelinesFromData (the copy in the tau2 data proctor
	// evaluated with) or GuidelinesEmbedded (proctor's own copy of tau2's
	// at the pinned commit, used when the data has none).
	Source string `json:"source"`
	// Dir is the directory the data's copy was read from.
	Dir string `json:"dir,omitempty"`
	// Modified says the data's copy differs from tau2-bench's at the
	// pinned commit: the user was played from other guidelines, which is
	// another benchmark, whose scores do not compare with tau2's.
	Modified bool `json:"modified,omitempty"`
	// SHA256 is the SHA-256 of each file read, by name, when Modified.
	SHA256 map[string]string `json:"sha256,omitempty"`
}

// The sources of UserGuidelines.
const (
	GuidelinesFromData = "data"
	GuidelinesEmbedded = "embedded"
)

// ActionMatch is how the ACTION basis decides that a tool call of the
// conversation performed an expected action.
type ActionMatch string

// The ways of matching actions.
const (
	// ActionMatchTau2 is tau2-bench's reading, the default: the names are
	// equal and, for the argument names the action's compare_args lists
	// (when it is null: the names the call itself sent), both sides have
	// equal values, compared as Python compares them (1 == 1.0 == True).
	// A call that leaves out an expected argument still matches, one with
	// an argument the action lacks does not. Calls of both sides count,
	// whoever the action expects to make them.
	ActionMatchTau2 ActionMatch = "tau2"
	// ActionMatchExact is proctor's stricter reading: the call must come
	// from the side the action names (the agent unless it says "user"),
	// and, for compare_args or, when it is null, every argument of the
	// action, the call must have the argument with an equal JSON value
	// (true is not 1). Arguments the action lacks are ignored.
	ActionMatchExact ActionMatch = "exact"
)

// ActionMatches lists the ways of matching actions, the default first.
func ActionMatches() []ActionMatch { return []ActionMatch{ActionMatchTau2, ActionMatchExact} }

// OrDefault is m, or ActionMatchTau2 when m is empty.
func (m ActionMatch) OrDefault() ActionMatch {
	if m == "" {
		return ActionMatchTau2
	}
	return m
}

// ParseActionMatch reads a way of matching actions by name; "" is the
// default (ActionMatchTau2).
func ParseActionMatch(s string) (ActionMatch, error) {
	m := ActionMatch(s).OrDefault()
	if m != ActionMatchTau2 && m != ActionMatchExact {
		return "", fmt.Errorf("action match %q: want %q (tau2-bench's, the default) or %q", s, ActionMatchTau2, ActionMatchExact)
	}
	return m, nil
}

// Evaluation is a whole run: config, scores, metrics and simulations. Its
// JSON is the schema of `proctor run --format json` and of stored results.
type Evaluation struct {
	ID          string       `json:"id"`
	Status      Status       `json:"status"`
	Domain      string       `json:"domain"`
	Agent       AgentInfo    `json:"agent"`
	Config      Config       `json:"config"`
	CreatedAt   time.Time    `json:"created_at"`
	UpdatedAt   time.Time    `json:"updated_at"`
	FinishedAt  *time.Time   `json:"finished_at,omitempty"`
	Error       string       `json:"error,omitempty"`
	Summary     Summary      `json:"summary"`
	Metrics     Metrics      `json:"metrics"`
	Simulations []Simulation `json:"simulations"`
	// SimulationRows is a line per simulation, in place of Simulations in
	// results read without transcripts when rows are asked for (get_results).
	SimulationRows []SimulationRow `json:"simulation_rows,omitempty"`
	// RescoredFrom is the id of the evaluation whose recorded simulations
	// this one scored again (proctor rescore); empty for an evaluation that
	// ran its own simulations.
	RescoredFrom string `json:"rescored_from,omitempty"`
	// MergedShards is the number of shards proctor merge made this
	// evaluation of; 0 for one that ran in one process.
	MergedShards int `json:"merged_shards,omitempty"`
	// ImportedFrom says where proctor import read this evaluation (the
	// format and the file); empty for an evaluation proctor ran.
	ImportedFrom string `json:"imported_from,omitempty"`
}

// Origin says how an evaluation came to be.
type Origin string

// Origins of evaluations.
const (
	// OriginRun: it ran its own simulations, in one process.
	OriginRun Origin = "run"
	// OriginMerge: proctor merge made it of shards; a whole evaluation,
	// as a run is.
	OriginMerge Origin = "merge"
	// OriginShard: it ran one share of an evaluation's tasks.
	OriginShard Origin = "shard"
	// OriginRescore: it scored another evaluation's simulations again.
	OriginRescore Origin = "rescore"
	// OriginImport: proctor import read it from another evaluator's
	// results (tau2-bench, tau-bench); a whole evaluation, as a run is.
	OriginImport Origin = "import"
)

// Origin is how the evaluation came to be. Only runs, merges and imports
// are evaluations of an agent in their own right: a shard is a part of one,
// and a rescore a second reading of one.
func (e *Evaluation) Origin() Origin {
	switch {
	case e.RescoredFrom != "":
		return OriginRescore
	case e.ImportedFrom != "":
		return OriginImport
	case e.Config.NumShards > 1:
		return OriginShard
	case e.MergedShards > 0:
		return OriginMerge
	}
	return OriginRun
}

// Derived reports whether the evaluation is a shard or a rescore, not an
// evaluation of an agent in its own right.
func (e *Evaluation) Derived() bool {
	o := e.Origin()
	return o == OriginShard || o == OriginRescore
}

// SimulationRow is one simulation in brief. Its id names the task and the
// trial ("<task id>#<trial>").
type SimulationRow struct {
	ID                string            `json:"id"`
	Reward            float64           `json:"reward"`
	TerminationReason TerminationReason `json:"termination_reason"`
}

// Rows lists simulations in brief.
func Rows(sims []Simulation) []SimulationRow {
	rows := make([]SimulationRow, len(sims))
	for i, s := range sims {
		rows[i] = SimulationRow{ID: s.ID, Reward: s.Reward, TerminationReason: s.TerminationReason}
	}
	return rows
}

// Duration is a time.Duration with one JSON meaning everywhere proctor reads
// or writes one (stored configs, skill requests): it is written as a Go
// duration string ("1m30s") and read from such a string or from a number
// of seconds (90, 1.5).
type Duration time.Duration

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: want a value like \"90s\" or \"30m\"", s)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return errors.New(`duration: want a string like "90s" or a number of seconds`)
	}
	*d = Duration(time.Duration(secs * float64(time.Second)))
	return nil
}
