/*
Package evalset is the model of eval sets: cases of one or more
invocations (a user message, the tool calls and final response expected of
the agent), and the metrics that score them. It mirrors tRPC-Agent-Go's
evalset and metric packages field for field, with the same JSON names, so
that a tRPC-Agent-Go eval set or metrics file reads into it and writes back
unchanged; Google ADK eval sets and proctor's YAML cases are read into the
same model.

The model holds data only: package rollout plays a [Case] against an agent
and records its actual invocations, package scoring/metric scores them by
each [Metric], and package result holds what a run recorded and scored.
*/
package evalset
