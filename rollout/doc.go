/*
Package rollout plays simulations and records what happened; it does not
score them (package scoring does, from the recording).

A simulation is one task x one trial, played as tau2-bench plays it: the
agent greets ([AgentGreeting]), the [UserSimulator] speaks, the agent
answers with text or tool calls; tool calls run against a fresh environment
of the domain and their results go back to the agent; the user never sees
tool calls. It ends when the user says ###STOP###, ###TRANSFER### or
###OUT-OF-SCOPE### (user_stop), the agent says ###STOP### (agent_stop), or
on max_steps, too_many_errors, timeout, agent_error, user_error or
infrastructure_error.

The agent under evaluation is reached through [Agent] and [Conversation],
package agent's protocol-neutral interface: each step gives it a request
and reads back its answer. The rollout imports no protocol package: the
adapters beneath the interface are package a2aagent (an A2A client) and
package ecp (a pool of ECP agents). What a text agent is told and how its
replies are read is the translation profile's business, named in each
request (agent.ProfileName) and resolved by the A2A adapter. User simulators are
the [ScriptedUser], which says its task's script, and the [LLMUser], which
plays the task's persona with a language model and, in domains with a user
side (telecom), calls the user's own tools.

Eval cases (package evalset: tRPC-Agent-Go, ADK and YAML sets) are played
by a [CasePlayer]: each case on a conversation of its own (a fresh A2A
context id and cookie jar; sessionInput.userId sent in the X-User-ID
header, [CaseOptions].UserIDHeader), its invocations' user contents sent
in order, its contextMessages once ahead of the first ([ContextText]), a
conversationScenario driven by a [ScenarioUser], a trace-mode case read
from its recorded conversation without contacting the agent. What the
agent did is read from its answers: the tools it ran itself (an A2A
agent's, read from the whole turn on the wire by package a2aagent) and the
tool calls it asked proctor to run (an ECP agent's, answered from the
case's expected results) become the invocation's tools; its thoughts go to
the turn's thoughts and the message's ReasoningContent, never to its text
nor to the user simulator. A
[CaseRecording] holds the actual invocations, what proctor saw of each
turn ([result.Turn]), request metrics and model calls, unscored.

A [Recording] holds the [result.Simulation] (transcript, tool calls and
their results with their requestor, the final database hash, request
metrics, model calls) and the environment it ended with.
*/
package rollout
