/*
Package metric scores eval-set invocations by named metrics the way
tRPC-Agent-Go and Google ADK compute them.

A [Scorer] scores one run of a case ([Scorer.ScoreCase]): each metric's
evaluator compares the agent's actual invocations with the case's expected
ones turn by turn, gives each turn a score and verdict, and averages them
into the metric's score, which passes when it reaches the threshold. The
case passes when no metric failed and at least one passed. [Summarize]
aggregates repeated runs as tRPC-Agent-Go does and adds pass@k, pass^k, a
95% interval of the pass rate and flakiness per case.

Evaluators ([Evaluators] lists them):

  - tool_trajectory_avg_score: the turn's tool calls match the expected
    ones. Names compare as text (exact, contains, regex, skip, case
    folding, length bounds), arguments and results as JSON (exact, only or
    ignore trees, number tolerance 1e-6 by default, validity). A per-tool
    strategy replaces the default strategy whole: parts it leaves unset are
    not compared; without a default strategy names, arguments and results
    are all compared exactly. Call counts must be equal (subsetMatching: at
    least the expected count). orderSensitive matches the expected calls as
    an in-order subsequence; otherwise every expected call needs a distinct
    actual call (maximum bipartite matching). proctor's YAML cases add
    ArgsContain (texts the arguments' JSON must contain, in place of the
    arguments comparison) and Parallel (adjacent calls so marked match in
    any order within an ordered trajectory).
  - final_response_avg_score: the final response meets every configured
    criterion: text, JSON, ROUGE (rouge1..9, rougeL, rougeLsum, with the
    rouge_score tokenizer and NLTK's Porter stemmer) and XML validity.
  - llm_final_response, llm_rubric_response, llm_rubric_knowledge_recall,
    llm_judge_template: an LLM judge, numSamples times per turn; the
    majority verdict counts, a tie counting as failed; every vote and its
    reasoning are kept in the details. The judge reads user and agent text
    and tool results, never the agent's thoughts.
  - response_match_score (ADK): the ROUGE-1 F-measure of the final
    response against the expected one, stemmed, averaged.
  - final_response_match_v2 (ADK): an LLM judge of the final response
    against the expected one, five samples unless numSamples says.

[Scorer.Check] validates metrics before a run and [Scorer.CheckCases] what
the cases add (their metrics, rubrics and regular expressions), each
reporting every violation. Judge calls go through package llm's providers
([WithJudgeSource]): metered under the "judge" role, recorded in or
replayed from a cassette, and listed in the case result's LLMCalls.
*/
package metric
