/*
Package evalset is the model of eval sets: cases of one or more
invocations (a user message, the tool calls and final response expected of
the agent), and the metrics that score them. It mirrors tRPC-Agent-Go's
evalset and metric packages field for field, with the same JSON names, so
that a tRPC-Agent-Go eval set or metrics file reads into it and writes back
unchanged; Google ADK eval sets and proctor's YAML cases are read into the
same model.

# Formats

[Load] reads files and directories, telling each file's format from its
content:

  - tRPC-Agent-Go: <dir>/<appName>/<evalSetId>.evalset.json, a JSON object
    {evalSetId, name, description, evalCases, creationTimestamp}; each case
    {evalId, evalMode, conversation of {invocationId, userContent,
    finalResponse, tools, intermediateResponses}, conversationScenario,
    sessionInput, contextMessages, rubrics, ...}. <evalSetId>.metrics.json
    beside it, a JSON list of {metricName, evaluatorName, threshold,
    criterion}, is read into Set.Metrics. The set's AppName is its
    directory's name. Unknown fields are refused; every field tRPC-Agent-Go
    writes is kept, so a file decodes and encodes back to the same JSON.
  - Google ADK: *.evalset.json or *.test.json, {eval_set_id, eval_cases}
    with snake_case names or their camelCase aliases; invocations hold genai
    contents ({role, parts: [{text}]}) and intermediate_data (tool_uses and
    tool_responses, paired by call ID, else by name; or invocation_events).
    The older *.test.json, a list of {query, expected_tool_use: [{tool_name,
    tool_input}], reference}, is one case whose invocations are its queries.
    test_config.json beside the file gives the metrics ({"criteria": {name:
    threshold or criterion}}); without it ADK's defaults apply
    (tool_trajectory_avg_score 1.0 EXACT, response_match_score 0.8).
    tool_trajectory_avg_score's match_type EXACT, IN_ORDER and ANY_ORDER
    become tRPC trajectory criteria (names and arguments exact, results not
    compared; in order with nothing else, in order among others, in any
    order among others); final_response_match_v2 and
    rubric_based_final_response_quality_v1 become LLM judges (the latter
    through llm_rubric_response) with ADK's 5 samples unless given. Other ADK
    metrics are refused with the list of those supported.
  - YAML cases: one case a file, the cases of one directory one set named
    after it. Keys: case (its id), transport (jsonrpc, rest or grpc),
    input ({role: user, content} or a list of turns, each of which may
    carry its own expected), expected ({tool_calls: [{name, args_contain,
    parallel}], final_response: {equals | contains | regex,
    case_insensitive}}, the last turn's), max_steps, scorer (a metric of
    the run's metrics). Tool calls are compared in order, adjacent calls
    marked parallel in any order among themselves; when any turn lists
    tool_calls, a turn without them expects none. Expectations become the
    case's own metrics: tool_trajectory_avg_score (names exact, order
    sensitive) and final_response_avg_score (the text criterion, one for
    all the case's turns). Unknown keys are refused.

[LoadMetrics] reads a metrics file given apart: tRPC's JSON list, ADK's
test_config.json, or YAML of either shape. [Validate] checks sets against
the metrics that will score them and resolves YAML scorers.

# Validation and bounds

Files larger than [MaxFileSize] and JSON or YAML nested deeper than
[MaxDepth] are refused before decoding. Every problem of every file is
reported at once in a [*ValidationError], each with its file and JSON path
(for example evalCases[2].conversation[0].userContent: missing): unknown
fields, missing ids and user contents, duplicate case ids and metric
names, unknown metric names (listing the known ones), thresholds outside
[0, 1], compareName (a tRPC-Agent-Go code hook proctor cannot run), and
regular expressions, checked to compile (RE2), their
errors naming the case and field.

The model holds data only: package rollout plays a [Case] against an agent
and records its actual invocations, package scoring/metric scores them by
each [Metric], and package result holds what a run recorded and scored.
*/
package evalset
