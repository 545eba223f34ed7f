/*
Package scoring turns recorded simulations into rewards and evaluations into
scores, the way tau2-bench computes them. It reads only what a rollout
recorded (package result), never the agent or the user simulator, so a
stored evaluation can be scored again under other settings (proctor
rescore).

A [Scorer] scores one domain's simulations. The reward is the product of the
task's reward bases:

  - DB: the final database hash equals the gold one (the expected actions
    replayed on a fresh environment); as in tau2, 1 without a check for a
    task that has neither expected actions nor env assertions
    ([EnvUnchecked]);
  - ACTION: every expected action matched by a tool call, as tau2 matches
    them (same name, equal values for the argument names the call sent or
    compare_args lists, calls of either side), or, with
    [Scorer.WithActionMatch] exact, proctor's stricter reading (see
    result.ActionMatch);
  - COMMUNICATE: every required string, case-insensitively and without
    commas, in an agent message;
  - NL_ASSERTION: a [Judge] (an [LLMJudge]) says every assertion holds;
  - ENV_ASSERTION: every env assertion's function returns its expected
    value on the final environment, which [Replay] rebuilds from the
    transcript when the rollout's is not at hand.

Only conversations ended by the user or the agent (user_stop, agent_stop)
earn reward. Strict mode adds ACTION to every task that expects the agent to
act. [DoNothingPasses] finds vacuous tasks, which an agent that does nothing
passes; [Summarize] computes pass^k, pass@k, the confidence interval of
pass^1 and the do-nothing baseline of a set of simulations.
*/
package scoring
