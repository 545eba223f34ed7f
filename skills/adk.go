package skills

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/functiontool"

	"github.com/proctor-eval/proctor/result"
)

// Session state keys the function tools keep, so that a conversation can
// say "how did it do?" or "run it again with 3 trials".
const (
	StateLastEvaluation = "last_evaluation_id"
	StateAgentURL       = "preferred_agent_url"
	StateDomain         = "preferred_domain"
)

// maxListedFailures bounds the failed simulations a tool result lists.
const maxListedFailures = 20

// Gate admits a function-tool evaluation of the given number of
// simulations (tasks x trials; 0 for a resumed one) when its caller may run
// it and there is room for it (a server's tenant limits and evaluation
// queue); the returned func releases the slot.
type Gate func(ctx context.Context, simulations int) (release func(), err error)

// ChatRunArgs are run_evaluation's arguments as a function tool: the
// request's everyday fields. Omitted agent_url and domain are the ones the
// conversation used last.
type ChatRunArgs struct {
	AgentURL    string   `json:"agent_url,omitempty" jsonschema:"the agent's base URL or card URL, or builtin for proctor's reference agent; omit to reuse the last one"`
	Domain      string   `json:"domain,omitempty" jsonschema:"the domain to evaluate on (see list_domains); omit to reuse the last one"`
	Split       string   `json:"split,omitempty" jsonschema:"task split of a tau2 domain: base, train or test"`
	NumTrials   int      `json:"num_trials,omitempty" jsonschema:"trials per task (default 1)"`
	NumTasks    int      `json:"num_tasks,omitempty" jsonschema:"run only the first N tasks"`
	TaskIDs     []string `json:"task_ids,omitempty" jsonschema:"run only these tasks"`
	Strict      bool     `json:"strict,omitempty" jsonschema:"also require the expected tool calls (ACTION) on every task"`
	ActionMatch string   `json:"action_match,omitempty" jsonschema:"how ACTION matches expected tool calls: tau2 (tau2-bench's reading, the default) or exact (proctor's stricter one)"`
	User        string   `json:"user,omitempty" jsonschema:"user simulator: scripted (default) or llm"`
	Resume      string   `json:"resume,omitempty" jsonschema:"id of an interrupted evaluation to finish"`
}

// ChatResultsArgs are get_results' arguments as a function tool.
type ChatResultsArgs struct {
	EvaluationID string `json:"evaluation_id,omitempty" jsonschema:"the evaluation's id or a unique prefix; omit for the conversation's last evaluation"`
	Domain       string `json:"domain,omitempty" jsonschema:"without an id: list recent evaluations on this domain"`
	AgentURL     string `json:"agent_url,omitempty" jsonschema:"without an id: list recent evaluations of this agent"`
	Limit        int    `json:"limit,omitempty" jsonschema:"without an id: how many recent evaluations (default 10)"`
}

// ChatResult is what the evaluation tools return to a model: the scores,
// and the failed simulations in brief.
type ChatResult struct {
	EvaluationID      string             `json:"evaluation_id"`
	Status            string             `json:"status"`
	Domain            string             `json:"domain"`
	Agent             string             `json:"agent"`
	NumSimulations    int                `json:"num_simulations"`
	PassHat1          float64            `json:"pass_hat_1"`
	PassHatK          map[string]float64 `json:"pass_hat_k,omitempty"`
	AvgReward         float64            `json:"avg_reward"`
	DoNothingBaseline *result.Baseline   `json:"do_nothing_baseline,omitempty"`
	Terminations      map[string]int     `json:"termination_reasons,omitempty"`
	Failures          []ChatFailure      `json:"failures,omitempty"`
	MoreFailures      int                `json:"more_failures,omitempty"`
}

// ChatFailure is a simulation that did not earn the reward.
type ChatFailure struct {
	Simulation        string  `json:"simulation"`
	Reward            float64 `json:"reward"`
	TerminationReason string  `json:"termination_reason"`
}

// ChatError is a tool result that reports a refused or failed request, for
// the model to explain.
type ChatError struct {
	Error      string   `json:"error"`
	Violations []string `json:"violations,omitempty"`
}

// FunctionTools returns the three skills as ADK function tools, sharing the
// code paths of the structured requests: list_domains, run_evaluation (which
// runs the evaluation to its end, admitted by gate when not nil) and
// get_results. The tools remember the last evaluation, agent and domain in
// the session state.
func (s *Service) FunctionTools(gate Gate) ([]tool.Tool, error) {
	list, err := functiontool.New(functiontool.Config{
		Name:        "list_domains",
		Description: "List the domains agents can be evaluated on, with their task counts and tools.",
	}, func(agent.ToolContext, struct{}) (map[string]any, error) {
		return map[string]any{"domains": s.ListDomains()}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list_domains tool: %w", err)
	}
	run, err := functiontool.New(functiontool.Config{
		Name: "run_evaluation",
		Description: "Evaluate an A2A agent on a domain: runs simulated conversations, scores them and returns pass^1, " +
			"the average reward and the failed simulations. Takes a while.",
	}, func(tc agent.ToolContext, args ChatRunArgs) (any, error) {
		return s.chatRun(tc, gate, args), nil
	})
	if err != nil {
		return nil, fmt.Errorf("run_evaluation tool: %w", err)
	}
	results, err := functiontool.New(functiontool.Config{
		Name:        "get_results",
		Description: "Read the results of an evaluation (by default the conversation's last one), or list recent evaluations.",
	}, func(tc agent.ToolContext, args ChatResultsArgs) (any, error) {
		return s.chatResults(tc, args), nil
	})
	if err != nil {
		return nil, fmt.Errorf("get_results tool: %w", err)
	}
	return []tool.Tool{list, run, results}, nil
}

func stateString(tc agent.ToolContext, key string) string {
	v, err := tc.State().Get(key)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

func (s *Service) chatRun(tc agent.ToolContext, gate Gate, args ChatRunArgs) any {
	req := EvaluationRequest{
		AgentURL: cmp.Or(args.AgentURL, stateString(tc, StateAgentURL)),
		Domain:   cmp.Or(args.Domain, stateString(tc, StateDomain)),
		Split:    args.Split, NumTrials: args.NumTrials, NumTasks: args.NumTasks, TaskIDs: args.TaskIDs,
		Strict: args.Strict, ActionMatch: result.ActionMatch(args.ActionMatch), User: args.User, Resume: args.Resume,
	}
	if req.AgentURL == "" && req.Resume == "" {
		return ChatError{Error: "no agent_url: ask the user which agent to evaluate (a URL, or builtin for the reference agent)"}
	}
	ctx := context.Context(tc)
	plan, err := s.Plan(ctx, req)
	if err != nil {
		return chatError(err)
	}
	start := s.start // nothing waits between the plan and its start
	if gate != nil {
		n := plan.Simulations()
		if plan.Resume() {
			n = 0 // as Gate says
		}
		release, err := gate(ctx, n)
		if err != nil {
			return ChatError{Error: "the evaluation did not start: " + err.Error()}
		}
		defer release()
		start = s.Start // the gate may have queued it: a resume is read again
	}
	r, err := start(ctx, plan)
	if err != nil {
		return chatError(err)
	}
	defer r.Close()
	if err := r.Execute(ctx, nil); err != nil {
		return ChatError{Error: err.Error()}
	}
	eval := r.Evaluation()
	s.remember(tc, eval)
	return chatResult(eval)
}

func (s *Service) chatResults(tc agent.ToolContext, args ChatResultsArgs) any {
	id := args.EvaluationID
	if id == "" && args.Domain == "" && args.AgentURL == "" && args.Limit == 0 {
		id = stateString(tc, StateLastEvaluation)
		if id == "" {
			return ChatError{Error: "this conversation has no evaluation yet: give an evaluation_id, or list recent ones with a limit"}
		}
	}
	no := false
	one, page, err := s.GetResults(tc, ResultsRequest{ID: id, Domain: args.Domain, AgentURL: args.AgentURL,
		Limit: cmp.Or(args.Limit, 10), IncludeTranscripts: &no, IncludeRows: true})
	if err != nil {
		return chatError(err)
	}
	if one != nil {
		s.remember(tc, one)
		return chatResult(one)
	}
	out := make([]ChatResult, 0, len(page.Evaluations))
	for i := range page.Evaluations {
		r := chatResult(&page.Evaluations[i])
		r.Failures, r.MoreFailures = nil, 0
		out = append(out, r)
	}
	return map[string]any{"evaluations": out}
}

// remember keeps an evaluation, its agent and its domain in the session
// for the conversation's next requests.
func (s *Service) remember(tc agent.ToolContext, eval *result.Evaluation) {
	st := tc.State()
	_ = st.Set(StateLastEvaluation, eval.ID)
	if eval.Config.Agent != "" {
		_ = st.Set(StateAgentURL, eval.Config.Agent)
	}
	if eval.Domain != "" {
		_ = st.Set(StateDomain, eval.Domain)
	}
}

func chatError(err error) ChatError {
	var inv *InvalidRequestError
	if errors.As(err, &inv) {
		return ChatError{Error: "invalid request", Violations: inv.Violations}
	}
	return ChatError{Error: err.Error()}
}

func chatResult(eval *result.Evaluation) ChatResult {
	agentName := eval.Config.Agent
	if eval.Agent.Name != "" {
		agentName = eval.Agent.Name + " (" + eval.Config.Agent + ")"
	}
	r := ChatResult{
		EvaluationID: eval.ID, Status: string(eval.Status), Domain: eval.Domain, Agent: agentName,
		NumSimulations: eval.Summary.NumSimulations, PassHat1: eval.Summary.PassHatK["1"], PassHatK: eval.Summary.PassHatK,
		AvgReward: eval.Summary.AvgReward, DoNothingBaseline: eval.Summary.DoNothingBaseline,
		Terminations: eval.Summary.TerminationReasons,
	}
	rows := eval.SimulationRows
	if len(rows) == 0 {
		rows = result.Rows(eval.Simulations)
	}
	for _, row := range rows {
		if result.Passed(row.Reward) {
			continue
		}
		if len(r.Failures) == maxListedFailures {
			r.MoreFailures++
			continue
		}
		r.Failures = append(r.Failures, ChatFailure{Simulation: row.ID, Reward: row.Reward, TerminationReason: string(row.TerminationReason)})
	}
	return r
}
