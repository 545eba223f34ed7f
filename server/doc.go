/*
Package server is proctor as an A2A server: the agent card, the skills
behind the A2A endpoints, request routing, the long-running tasks and their
queue, and authentication. `proctor serve` runs it.

In proctor's layout it is a front end, beside the command line: both ask
package skills for the work, which runs evaluations (package evaluation)
whose conversations and scores come from packages rollout and scoring,
keeps them in package store and renders them with package report:

	cmd -> server/skills -> evaluation -> {rollout, scoring} -> store -> report

It serves JSON-RPC and HTTP+JSON at protocol 1.0 and 0.3 on their own
paths (PathJSONRPC, PathREST, PathJSONRPC03, PathREST03), gRPC at 1.0 on a
second port, the agent card at /.well-known/agent-card.json and
PathHealth. Its five skills (Skill) are run_evaluation, run_evalset,
list_domains, get_results and check_conformance, asked for with a data part (or text
holding the JSON) {"skill": ..., "params": {...}}, or, for an evaluation,
with an AgentBeats assessment request {"participants": {"agent": URL},
"config": {...}}. Free text gets a reply that shows these forms, or, with
Config.ChatModel, an answer from a chat model whose tools are the skills.

list_domains and get_results answer at once with a message (get_results
with the id of an eval-set run answers with that run).
run_evaluation, run_evalset and check_conformance are long-running tasks, which share
one lifecycle: asked with returnImmediately (0.3: blocking false) they
answer at once with a working task (a blocking send waits for the end, as
A2A requires); they wait for one of Config.MaxConcurrent slots, first come
first served, reporting their place in line; then they send status
updates as they go (an evaluation: one per finished simulation and at
least every Config.ProgressEvery), add their artifact and complete.
CancelTask stops them within seconds (an evaluation keeps what finished and
can be resumed). A bad request ends the task rejected, listing every
violation.

run_evaluation's artifact is named ResultArtifact: a Markdown summary and
the results JSON. run_evalset plays an inline eval set (a tRPC-Agent-Go or
ADK set with its metrics, or YAML cases; at most MaxEvalSetBytes and
MaxEvalSetCases) against an agent, scored as those frameworks score it;
its ResultArtifact holds a Markdown summary and the run JSON, without the
sets' cases (and without the invocations when it would be over 1 MiB). check_conformance checks another agent against the A2A
specification (package conformance); its artifact, ConformanceArtifact,
holds a Markdown summary and the report JSON, which is also stored.

Streams are bounded: Config.MaxStreamsPerTask per task and
Config.MaxStreamsPerCaller per caller (more are refused), and a caller that
stops reading is disconnected after Config.StreamWriteTimeout. A task whose
update cannot be stored (a full disk) ends failed at once, with the error
and, for an evaluation, its resume request; RecoverTasks ends the tasks a
killed server left unfinished as their evaluations did.

With Config.AuthTokens or Config.Tenants every A2A endpoint requires one of
the bearer tokens, and the card says so (BearerScheme); the card and
PathHealth stay public. A token acts for its Tenant: the request's context
carries it (store.WithTenant; TenantOf names it), so that the store shows a
tenant only what it created (an admin everything), Config.TenantLimits
bound its requests and long tasks, and Config.Audit records what it asked
for and how that ended.

See the example of New for serving it.
*/
package server
