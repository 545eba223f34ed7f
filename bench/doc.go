/*
Package bench is proctor's orchestrator: it runs simulations (one task x one
trial each) between a user simulator and a remote agent, executes the agent's
tool calls against a fresh domain environment, scores each conversation, and
runs whole evaluations with bounded concurrency, persistence and resume.

A simulation follows tau2-bench: the agent greets, the user speaks, the agent
answers with text or tool calls; tool calls run against the environment and
their results go back to the agent; the user never sees tool calls. It ends
when the user says ###STOP###, ###TRANSFER### or ###OUT-OF-SCOPE###
(user_stop), the agent says ###STOP### (agent_stop), or on max_steps,
too_many_errors, timeout, agent_error, user_error or infrastructure_error.
Only user_stop and agent_stop can earn reward.

Some tasks are passed by an agent that does nothing (tau2's airline has many:
no database change expected and nothing to communicate). DoNothingPasses
finds them by scoring a do-nothing conversation; their simulations carry
reward_info.do_nothing_passes and the summary a do_nothing_baseline to read
scores against. Limits.Strict adds ACTION to the basis of every task with
expected actions, so that refusing, or reaching the right state by other
calls, is not enough.

Usage:

	sim := bench.NewSimulator(domain, profile, bench.Limits{MaxSteps: 100, MaxErrors: 10, Timeout: 10 * time.Minute})
	user, err := bench.NewScriptedUser(task)
	result, _ := sim.Run(ctx, task, 0, bench.ClientAgent(client), user)
	fmt.Println(result.Reward, result.TerminationReason)

	runner := &bench.Runner{Simulator: sim, Agent: bench.ClientAgent(client), Store: db, Concurrency: 8}
	eval := bench.NewEvaluation(store.NewID(), cfg, agentInfo)
	err := runner.Run(ctx, eval, tasks) // eval now holds the summary, metrics and simulations
*/
package bench
