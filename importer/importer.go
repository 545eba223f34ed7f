// Package importer reads the results of other evaluators into proctor's
// evaluations: tau2-bench's results.json (the layout `proctor results
// --format tau2` writes, monolithic or as tau2's directory of one file per
// simulation) and tau-bench's trajectory files (a JSON list of
// EnvRunResult). An imported evaluation is scored by the rewards the file
// records, marked with result.Evaluation.ImportedFrom, and summarized as
// proctor summarizes its own runs, noise floor included.
package importer

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// Format is a layout of results that Read knows.
type Format string

// Formats that can be imported.
const (
	// FormatTau2 is tau2-bench's results.json (its Results model).
	FormatTau2 Format = "tau2"
	// FormatTauBench is a tau-bench trajectory file: a list of
	// EnvRunResult (task_id, trial, reward, info, traj).
	FormatTauBench Format = "tau-bench"
)

// Options say what the file cannot: its agent and domain, where it has no
// word for them, and where it was read.
type Options struct {
	// Agent names the agent evaluated; empty: the file's own name for it
	// (tau2's agent llm or implementation) or, for tau-bench, the file's.
	Agent string
	// Domain is the domain evaluated; empty: the file's (tau2) or, for
	// tau-bench, the name found in Source or the policy of the trajectories.
	Domain string
	// Source is where the data came from (a path), recorded in
	// ImportedFrom.
	Source string
	// Now stamps the evaluation when the file has no time of its own.
	Now time.Time
}

// ErrUnknownFormat is returned for data that is neither of the formats.
var ErrUnknownFormat = errors.New("not a tau2-bench results.json (a JSON object with simulations) nor a tau-bench trajectory file (a JSON list of runs)")

// Detect says which format data is in, from its first JSON token: an
// object is tau2's Results, a list tau-bench's runs.
func Detect(data []byte) (Format, error) {
	switch t := bytes.TrimLeft(data, " \t\r\n\ufeff"); {
	case len(t) == 0:
		return "", fmt.Errorf("empty file: %w", ErrUnknownFormat)
	case t[0] == '{':
		return FormatTau2, nil
	case t[0] == '[':
		return FormatTauBench, nil
	}
	return "", ErrUnknownFormat
}

// Read imports data in whichever format it is (see Detect).
func Read(data []byte, opts Options) (*result.Evaluation, error) {
	f, err := Detect(data)
	if err != nil {
		return nil, err
	}
	if f == FormatTau2 {
		return ReadTau2(data, nil, opts)
	}
	return ReadTauBench(data, opts)
}

// finish orders and summarizes an imported evaluation's simulations and
// marks it completed: it ran elsewhere, and ended.
func finish(eval *result.Evaluation, format Format, opts Options) {
	eval.ImportedFrom = string(format)
	if opts.Source != "" {
		eval.ImportedFrom += ": " + opts.Source
	}
	eval.Status = result.StatusCompleted
	if why := result.NoOutcome(eval.Simulations); why != "" {
		eval.Status, eval.Error = result.StatusFailed, why
	}
	eval.Summary = scoring.Summarize(eval.Simulations, eval.Config.TaskIDs)
	eval.Metrics = result.MergeMetrics(eval.Simulations, nil)
	if eval.CreatedAt.IsZero() {
		eval.CreatedAt = opts.Now
	}
	eval.UpdatedAt = eval.CreatedAt
	if eval.FinishedAt == nil {
		end := eval.CreatedAt
		eval.FinishedAt = &end
	}
}
