package evalset

import (
	"slices"
	"strings"
)

// Google ADK's metric names (its PrebuiltMetrics), as test_config.json
// criteria give them. tool_trajectory_avg_score is [MetricToolTrajectory];
// response_match_score and final_response_match_v2 are
// [MetricResponseMatch] and [MetricFinalResponseMatch2].
const (
	// ADKRubricFinalResponse is read as an [MetricLLMRubricResponse] judge.
	ADKRubricFinalResponse = "rubric_based_final_response_quality_v1"

	// The ADK metrics below have no counterpart proctor scores.
	ADKResponseEvaluation      = "response_evaluation_score" // Vertex AI's coherence score
	ADKSafety                  = "safety_v1"                 // Vertex AI's safety score
	ADKHallucinations          = "hallucinations_v1"
	ADKRubricToolUse           = "rubric_based_tool_use_quality_v1"
	ADKPerTurnUserSimulator    = "per_turn_user_simulator_quality_v1"
	ADKMultiTurnTaskSuccess    = "multi_turn_task_success_v1"
	ADKMultiTurnTrajectory     = "multi_turn_trajectory_quality_v1"
	ADKMultiTurnToolUseQuality = "multi_turn_tool_use_quality_v1"
)

// ADK's defaults.
const (
	adkDefaultJudgeSamples  = 5   // JudgeModelOptions.num_samples
	adkDefaultTrajectory    = 1.0 // tool_trajectory_avg_score without test_config.json
	adkDefaultResponseMatch = 0.8 // response_match_score without test_config.json
)

// KnownMetrics are the evaluator names a metric may route to: tRPC-Agent-Go's
// built-in evaluators and the ADK metrics proctor scores.
func KnownMetrics() []string {
	return []string{
		MetricToolTrajectory, MetricFinalResponse, MetricLLMFinalResponse,
		MetricLLMRubricResponse, MetricLLMKnowledgeRecall, MetricLLMJudgeTemplate,
		MetricResponseMatch, MetricFinalResponseMatch2,
	}
}

// ADKSupportedMetrics are the ADK criteria names test_config.json may give.
func ADKSupportedMetrics() []string {
	return []string{MetricToolTrajectory, MetricResponseMatch, MetricFinalResponseMatch2, ADKRubricFinalResponse}
}

// adkUnsupportedMetrics are ADK metrics proctor knows of but cannot score.
func adkUnsupportedMetrics() []string {
	return []string{
		ADKResponseEvaluation, ADKSafety, ADKHallucinations, ADKRubricToolUse,
		ADKPerTurnUserSimulator, ADKMultiTurnTaskSuccess, ADKMultiTurnTrajectory,
		ADKMultiTurnToolUseQuality,
	}
}

func isKnownMetric(name string) bool { return slices.Contains(KnownMetrics(), name) }

func knownList(names []string) string { return strings.Join(names, ", ") }
