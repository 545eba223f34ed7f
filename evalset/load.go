package evalset

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File name suffixes the loaders look for when they walk a directory.
const (
	suffixEvalSet   = ".evalset.json" // tRPC-Agent-Go and ADK eval sets
	suffixTest      = ".test.json"    // ADK test files
	suffixMetrics   = ".metrics.json" // tRPC-Agent-Go metrics, beside the set
	adkTestConfig   = "test_config.json"
	suffixYAML      = ".yaml"
	suffixYML       = ".yml"
	yamlMetricsStem = "metrics"
)

// Load reads the eval sets in the files and directories given, walking
// directories. Each file's format is told from its content:
//
//   - a tRPC-Agent-Go eval set (<dir>/<appName>/<evalSetId>.evalset.json),
//     with <evalSetId>.metrics.json beside it read into Set.Metrics;
//   - a Google ADK eval set (*.evalset.json, *.test.json; snake_case or
//     camelCase), or an older ADK test file (a list of queries), with
//     test_config.json beside it read into Set.Metrics (ADK's default
//     criteria without one);
//   - proctor's YAML cases (*.yaml, one case a file): the cases of one
//     directory make one set named after it.
//
// A directory walk reads *.evalset.json, *.test.json, *.yaml and *.yml
// files (metrics files aside); a file named explicitly is read whatever its
// name. Every problem found in every file is reported at once, as a
// *ValidationError. YAML cases' scorers name the run's metrics: check them
// with [Validate] once those are known.
func Load(paths ...string) ([]*Set, error) {
	l := &loader{p: newProblems(""), yamlSets: map[string]*Set{}}
	if len(paths) == 0 {
		l.p.add("", "no eval set files or directories given")
	}
	for _, path := range paths {
		l.loadPath(path)
	}
	checkSetIDs(l.sets, l.p)
	for _, s := range l.sets {
		validateSet(s, s.Metrics, false, l.p.in(s.Path))
	}
	if err := l.p.err(); err != nil {
		return nil, err
	}
	return l.sets, nil
}

// loader accumulates the sets of one Load call.
type loader struct {
	p        problems
	sets     []*Set
	yamlSets map[string]*Set // by directory
}

func (l *loader) loadPath(path string) {
	info, err := os.Stat(path)
	if err != nil {
		l.p.in(path).add("", "cannot read: %v", err)
		return
	}
	if !info.IsDir() {
		l.loadFile(path)
		return
	}
	files, err := walkSetFiles(path)
	if err != nil {
		l.p.in(path).add("", "cannot walk the directory: %v", err)
	}
	if len(files) == 0 && err == nil {
		l.p.in(path).add("", "no eval set files (*.evalset.json, *.test.json, *.yaml) in the directory")
	}
	for _, f := range files {
		l.loadFile(f)
	}
}

// walkSetFiles lists the eval set and case files under dir, in lexical
// order, leaving out metrics files and hidden directories.
func walkSetFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && isSetFileName(d.Name()) {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

func isSetFileName(name string) bool {
	if isYAMLName(name) {
		stem := strings.TrimSuffix(strings.TrimSuffix(name, suffixYAML), suffixYML)
		return stem != yamlMetricsStem && !strings.HasSuffix(stem, "."+yamlMetricsStem) && stem != "test_config"
	}
	return strings.HasSuffix(name, suffixEvalSet) || strings.HasSuffix(name, suffixTest)
}

func isYAMLName(name string) bool {
	return strings.HasSuffix(name, suffixYAML) || strings.HasSuffix(name, suffixYML)
}

func (l *loader) loadFile(path string) {
	p := l.p.in(path)
	data, err := readBounded(path)
	if err != nil {
		p.add("", "cannot read: %v", err)
		return
	}
	if isYAMLName(path) {
		l.addYAMLCase(path, data, p)
		return
	}
	set := parseSetJSON(path, data, p)
	if set == nil {
		return
	}
	l.sets = append(l.sets, set)
	attachMetrics(set, p)
}

// addYAMLCase adds a YAML case to the set of its directory.
func (l *loader) addYAMLCase(path string, data []byte, p problems) {
	c := parseYAMLCase(data, p)
	if c == nil {
		return
	}
	dir := filepath.Dir(path)
	set := l.yamlSets[dir]
	if set == nil {
		name := filepath.Base(dir)
		set = &Set{ID: name, Name: name, AppName: name, Format: FormatYAML, Path: dir}
		l.yamlSets[dir] = set
		l.sets = append(l.sets, set)
	}
	set.Cases = append(set.Cases, c)
}

// attachMetrics reads the metrics file beside a set: tRPC's
// <evalSetId>.metrics.json, ADK's test_config.json.
func attachMetrics(set *Set, p problems) {
	dir := filepath.Dir(set.Path)
	switch set.Format {
	case FormatTRPC:
		path := filepath.Join(dir, set.ID+suffixMetrics)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return
		}
		set.Metrics = loadMetricsFile(path, p.in(path))
	case FormatADK:
		path := filepath.Join(dir, adkTestConfig)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			set.Metrics = adkDefaultMetrics()
			return
		}
		set.Metrics = loadMetricsFile(path, p.in(path))
	}
}

// checkSetIDs reports two sets of one application with the same ID.
func checkSetIDs(sets []*Set, p problems) {
	seen := map[[2]string]string{}
	for _, s := range sets {
		key := [2]string{s.AppName, s.ID}
		if first, dup := seen[key]; dup {
			p.in(s.Path).add("", "eval set %q of app %q is also read from %s: give each set once", s.ID, s.AppName, first)
			continue
		}
		seen[key] = s.Path
	}
}
