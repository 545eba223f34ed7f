// Package report renders evaluation results for people and programs: a
// table for terminals, Markdown for pull requests and chat, JSON for tools
// ([Write]), and tau2-bench's results.json for its viewer and leaderboard
// tooling ([WriteTau2]). The CLI and the A2A server render with the same
// code.
//
// Eval-set runs render as a table, JSON, Markdown and JUnit XML
// ([WriteEvalSetRun]), as tRPC-Agent-Go's evalset_result.json files
// ([WriteEvalSetResults]) and as a report.json and report.md directory
// ([WriteEvalSetReport]); a run is compared with a baseline (a previous
// run's JSON or tRPC-Agent-Go results, [ReadEvalSetBaseline]) by
// [CompareEvalSets].
//
// See Example for a rendering.
package report
