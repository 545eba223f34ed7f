package scoring

import (
	"slices"
	"strconv"

	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
)

// Tau2Exclusion says whether tau2-bench would have left a simulation out of
// its avg_reward and pass^k, and why ("" when it counts). tau2 retries a
// simulation whose run raised and, when every retry raises too, records it
// as infrastructure_error and leaves it out; a run that ends normally counts,
// whatever its termination (agent_error and user_error included: tau2 ends a
// run that way only when the agent or user sent a malformed message, empty
// or text mixed with tool calls). proctor does not retry, so its failures
// are read as tau2's exhausted retries:
//
//   - infrastructure_error (proctor itself failed): tau2 raised; left out.
//   - user_error (the user simulator could not be set up or its model call
//     failed): tau2's user model call raised; left out.
//   - agent_error after a failed call to the agent (a class other than
//     protocol in its metrics: timeout, connection, http_status, rpc_error,
//     task_failed, ...): tau2's agent model call raised; left out as
//     "agent_error:CLASS".
//   - agent_error where the agent answered with something unusable (only
//     protocol errors, or none): tau2's AgentError; counts.
//
// Every other termination (the stops, max_steps, too_many_errors, timeout
// of the whole simulation, the ECP refusals) ends a tau2 run normally and
// counts.
func Tau2Exclusion(s *result.Simulation) string {
	switch s.TerminationReason {
	case result.TermInfrastructure, result.TermUserError:
		return string(s.TerminationReason)
	case result.TermAgentError:
		if class := failedCallClass(s.Metrics.ErrorClasses); class != "" {
			return string(result.TermAgentError) + ":" + class
		}
	}
	return ""
}

// failedCallClass is the first, by name, of the error classes that say a
// call to the agent failed rather than came back unusable; "" when there is
// none.
func failedCallClass(classes map[string]int) string {
	var failed []string
	for class, n := range classes {
		if n > 0 && class != string(measure.ErrClassProtocol) {
			failed = append(failed, class)
		}
	}
	if len(failed) == 0 {
		return ""
	}
	slices.Sort(failed)
	return failed[0]
}

// tau2Figures computes avg_reward and pass^k over the simulations tau2
// would have counted (see Tau2Exclusion), as tau2's agent_metrics does:
// pass^k of a task over its remaining runs, k up to the fewest remaining
// runs of any task that has one, both averaged over those tasks. (tau2
// also caps k at its info.num_trials, which no task's run count exceeds in
// a proctor evaluation.)
func tau2Figures(sims []result.Simulation, order []string) *result.Tau2Figures {
	f := &result.Tau2Figures{PassHatK: map[string]float64{}}
	type acc struct{ n, c int }
	per := map[string]*acc{}
	total := 0.0
	for i := range sims {
		s := &sims[i]
		if why := Tau2Exclusion(s); why != "" {
			if f.ExcludedBy == nil {
				f.ExcludedBy = map[string]int{}
			}
			f.ExcludedBy[why]++
			f.Excluded++
			continue
		}
		a := per[s.TaskID]
		if a == nil {
			a = &acc{}
			per[s.TaskID] = a
		}
		a.n++
		if s.Passed() {
			a.c++
		}
		total += s.Reward
		f.NumSimulations++
	}
	f.NumTasks = len(per)
	if f.NumSimulations == 0 {
		return f
	}
	f.AvgReward = round6(total / float64(f.NumSimulations))
	tasks := orderedTasks(per, order)
	maxK := per[tasks[0]].n
	for _, id := range tasks {
		maxK = min(maxK, per[id].n)
	}
	for k := 1; k <= maxK; k++ {
		hat := 0.0
		for _, id := range tasks {
			hat += binom(per[id].c, k) / binom(per[id].n, k)
		}
		f.PassHatK[strconv.Itoa(k)] = round6(hat / float64(len(tasks)))
	}
	return f
}
