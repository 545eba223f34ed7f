package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// Permissions of the files and directories the writers make, those of
// tRPC-Agent-Go's local result manager.
const (
	dirPerm  = 0o755
	filePerm = 0o644
)

// setRuns is an eval set and its case runs, in the run's order.
type setRuns struct {
	info  result.EvalSetInfo
	cases []*result.CaseResult
}

// groupBySet splits a run's case runs by eval set, in the order of
// run.Sets; a set that only its case runs name comes after, in order of
// appearance, its app name its id.
func groupBySet(run *result.EvalSetRun) []*setRuns {
	var groups []*setRuns
	index := map[string]*setRuns{}
	for _, s := range run.Sets {
		if index[s.ID] == nil {
			g := &setRuns{info: s}
			index[s.ID] = g
			groups = append(groups, g)
		}
	}
	for _, cr := range run.Cases {
		if cr == nil {
			continue
		}
		g := index[cr.EvalSetID]
		if g == nil {
			g = &setRuns{info: result.EvalSetInfo{ID: cr.EvalSetID}}
			index[cr.EvalSetID] = g
			groups = append(groups, g)
		}
		g.cases = append(g.cases, cr)
	}
	return groups
}

// appName is the set's application: its AppName, else its id.
func appName(s result.EvalSetInfo) string {
	if s.AppName != "" {
		return s.AppName
	}
	return s.ID
}

// checkPathName refuses a name that would not stay one path element.
func checkPathName(what, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`+"\x00") {
		return fmt.Errorf("%s %q cannot name a file: give the eval set an id (and app name) without slashes", what, name)
	}
	return nil
}

// resultTime is when a run's results were made: when it finished, else its
// last update, else its start, else now.
func resultTime(run *result.EvalSetRun) time.Time {
	switch {
	case run.FinishedAt != nil && !run.FinishedAt.IsZero():
		return *run.FinishedAt
	case !run.UpdatedAt.IsZero():
		return run.UpdatedAt
	case !run.CreatedAt.IsZero():
		return run.CreatedAt
	}
	return time.Now()
}

// trpcResultID names a set's result as tRPC-Agent-Go's local manager does,
// "<appName>_<evalSetId>_<uuid>". The UUID is derived from the run and set
// ids (a version 5 UUID), so that writing a run again replaces its files.
func trpcResultID(run *result.EvalSetRun, s result.EvalSetInfo) string {
	u := uuid.NewSHA1(uuid.NameSpaceURL, []byte("proctor:evalset-run:"+run.ID+"/"+s.ID))
	return fmt.Sprintf("%s_%s_%s", appName(s), s.ID, u)
}

// newTRPCResult is one set's case runs in tRPC-Agent-Go's EvalSetResult
// layout, with the framework's summary over numRuns runs.
func newTRPCResult(run *result.EvalSetRun, g *setRuns) *trpcEvalSetResult {
	id := trpcResultID(run, g.info)
	res := &trpcEvalSetResult{EvalSetResultID: id, EvalSetResultName: id, EvalSetID: g.info.ID,
		CreationTimestamp: &evalset.EpochTime{Time: resultTime(run)}}
	for _, cr := range g.cases {
		res.EvalCaseResults = append(res.EvalCaseResults, newTRPCCaseResult(cr))
	}
	res.Summary = summarizeTRPC(res.EvalCaseResults, max(run.Config.NumRuns, 1))
	return res
}

// encodeTRPC writes v as the framework's local manager does: indented by
// two spaces, HTML escaped, a newline at the end.
func encodeTRPC(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteEvalSetResults writes the run in tRPC-Agent-Go's evalset_result
// layout, one file per eval set:
// dir/<appName>/<appName>_<evalSetId>_<uuid>.evalset_result.json, the
// framework's EvalSetResult with its field names and value conventions
// (zero values left out, timestamps in Unix seconds) and the summary its
// evaluator computes over the runs. Only the tRPC fields of each case run
// go in. It returns the paths written, in the order of the run's sets.
// Files are written atomically (a temporary file renamed), directories
// with mode 0o755 and files 0o644.
func WriteEvalSetResults(dir string, run *result.EvalSetRun) ([]string, error) {
	if run == nil {
		return nil, fmt.Errorf("write eval-set results: no run")
	}
	var paths []string
	for _, g := range groupBySet(run) {
		if err := checkPathName("eval set id", g.info.ID); err != nil {
			return paths, err
		}
		if err := checkPathName("app name", appName(g.info)); err != nil {
			return paths, err
		}
		res := newTRPCResult(run, g)
		data, err := encodeTRPC(res)
		if err != nil {
			return paths, fmt.Errorf("encode the result of eval set %s: %w", g.info.ID, err)
		}
		path := filepath.Join(dir, appName(g.info), res.EvalSetResultID+trpcResultSuffix)
		if err := writeFileAtomic(path, data); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// WriteEvalSetReport writes the run's report.json (as WriteEvalSetRun's
// JSON) and report.md (its Markdown) into dir, creating it: the
// target/eval/<run-id>/ layout.
func WriteEvalSetReport(dir string, run *result.EvalSetRun) error {
	if run == nil {
		return fmt.Errorf("write eval-set report: no run")
	}
	for _, f := range []struct {
		name   string
		format Format
	}{{"report.json", JSON}, {"report.md", Markdown}} {
		var b bytes.Buffer
		if err := WriteEvalSetRun(&b, f.format, run); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(dir, f.name), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file in the
// same directory, renamed over path, so that a reader never sees part of
// it.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create a temporary file in %s: %w", dir, err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errorsJoinFirst(werr, cerr, os.Chmod(name, filePerm)); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// errorsJoinFirst is the first non-nil error.
func errorsJoinFirst(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
