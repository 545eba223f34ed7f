package evalset

import (
	"context"
	"fmt"
	"path/filepath"
)

// Decode reads one eval set held in memory, as [Load] reads a file: a
// tRPC-Agent-Go or Google ADK set (or ADK's older list of queries), its
// format told from its content. name stands for the file: violations name
// it, and it becomes Set.Path. The set's application is its ID unless name
// has a directory (tRPC-Agent-Go's <appName>/<evalSetId>.evalset.json). An
// ADK set gets ADK's default criteria as its Metrics; a tRPC-Agent-Go set
// none (give them with [DecodeMetrics]). Every problem is reported at
// once, as a *ValidationError.
func Decode(name string, data []byte) (*Set, error) {
	p := newProblems(name)
	if len(data) > MaxFileSize {
		p.add("", "the set is larger than %d MiB: split it into several sets", MaxFileSize>>20)
		return nil, p.err()
	}
	set := parseSetJSON(name, data, p)
	if set == nil {
		return nil, p.err()
	}
	if set.Format == FormatTRPC && filepath.Dir(name) == "." {
		set.AppName = set.ID
	}
	if set.Format == FormatADK {
		set.Metrics = adkDefaultMetrics()
	}
	validateSet(set, set.Metrics, false, p)
	if err := p.err(); err != nil {
		return nil, err
	}
	return set, nil
}

// DecodeMetrics reads metrics held in memory, as [LoadMetrics] reads a
// file: a tRPC-Agent-Go metrics list or an ADK test_config object, in
// JSON. name stands for the file in violations. Every problem is reported
// at once, as a *ValidationError.
func DecodeMetrics(name string, data []byte) ([]*Metric, error) {
	p := newProblems(name)
	if len(data) > MaxFileSize {
		p.add("", "the metrics are larger than %d MiB", MaxFileSize>>20)
		return nil, p.err()
	}
	metrics := parseMetrics(data, false, p)
	if metrics != nil {
		validateMetrics(metrics, "", p)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return metrics, nil
}

// DecodeYAMLCases reads YAML cases held in memory, one case a text, into
// one set named name, as [Load] reads the case files of one directory.
// Violations name each text as name[i]. Every problem is reported at
// once, as a *ValidationError; check the cases' scorers with [Validate]
// once the run's metrics are known. The cases together hold at most
// MaxValues values. When ctx ends before every case is read, the error is
// ctx's.
func DecodeYAMLCases(ctx context.Context, name string, texts []string) (*Set, error) {
	p := newProblems(name)
	set := &Set{ID: name, Name: name, AppName: name, Format: FormatYAML, Path: name}
	if len(texts) == 0 {
		p.add("", "no cases: give at least one YAML case")
	}
	budget := newYAMLBudget()
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s[%d]: %w", name, i, err)
		}
		tp := p.in(fmt.Sprintf("%s[%d]", name, i))
		if len(text) > MaxFileSize {
			tp.add("", "the case is larger than %d MiB", MaxFileSize>>20)
			continue
		}
		if c := parseYAMLCase([]byte(text), budget, tp); c != nil {
			set.Cases = append(set.Cases, c)
		}
		if budget.over {
			break // the next cases would all be over it too
		}
	}
	if len(set.Cases) > 0 {
		validateSet(set, nil, false, p)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return set, nil
}
