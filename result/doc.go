/*
Package result is proctor's result model: what an evaluation recorded and
how it scored. Its JSON is the schema of `proctor run --format json`, of
stored evaluations and of the run_evaluation skill's results.

The model is shared by every stage and depends on none of them: the rollout
(package rollout) records a [Simulation] (transcript, tool calls and their
results, the final database hash, request metrics, model calls), the scorers
(package scoring) fill in its [RewardInfo] and an evaluation's [Summary],
the runner (package evaluation) assembles an [Evaluation], and the store,
the reports, the CLI and the server read it without importing any of them.
It is a leaf of plain data: besides the standard library it imports only
domains, evalset and measure (request metrics, model-call usage), so reading
a result pulls in no protocol client and no model SDK.

Vocabulary: a simulation is one task x one trial; an evaluation is one run
of many simulations; a conversation is the A2A context a simulation talks
to the agent in.

Enumerations are typed strings, as a2a-go's a2a.TaskState: [TerminationReason],
[Status], [Role]. A reward counts as a success when [Passed] says so, the
one definition every count uses.
*/
package result
