package evalset

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	sets, _, err := LoadReporting(paths...)
	return sets, err
}

// Skipped is a directory or file a directory walk passed over, and why.
type Skipped struct {
	Path string
	Why  string
}

// LoadReporting is Load, and also says what its directory walks passed
// over: hidden, vendored and dependency directories (.git, node_modules,
// vendor, __pycache__...) are not entered, and a YAML file with neither a
// top-level case: nor input: key (a Kubernetes manifest, a CI workflow)
// is not read as a case. A file named explicitly is read whatever it is.
func LoadReporting(paths ...string) ([]*Set, []Skipped, error) {
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
	slices.SortFunc(l.skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	if err := l.p.err(); err != nil {
		return nil, l.skipped, err
	}
	return l.sets, l.skipped, nil
}

// loader accumulates the sets of one Load call.
type loader struct {
	p        problems
	sets     []*Set
	yamlSets map[string]*Set // by directory
	skipped  []Skipped
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
	files, err := l.walkSetFiles(path)
	if err != nil {
		l.p.in(path).add("", "cannot walk the directory: %v", err)
	}
	read := 0
	for _, f := range files {
		if l.loadWalked(f) {
			read++
		}
	}
	if read == 0 && err == nil {
		l.p.in(path).add("", "no eval set files (*.evalset.json, *.test.json, *.yaml cases) in the directory")
	}
}

// skippedDir says why a walk does not enter a directory named name: a
// hidden one, or other tools' dependencies and builds ("" to enter it).
func skippedDir(name string) string {
	switch name {
	case "node_modules":
		return "npm's dependencies"
	case "vendor", "third_party":
		return "vendored dependencies"
	case "__pycache__", "site-packages", "venv":
		return "Python's packages or caches"
	}
	if strings.HasPrefix(name, ".") {
		return "a hidden directory"
	}
	return ""
}

// walkSetFiles lists the eval set and case files under dir, in lexical
// order, leaving out metrics files, and hidden, vendored and dependency
// directories (noted in l.skipped).
func (l *loader) walkSetFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir {
			if why := skippedDir(d.Name()); why != "" {
				l.skipped = append(l.skipped, Skipped{Path: path, Why: why})
				return filepath.SkipDir
			}
		}
		if d.Type().IsRegular() && isSetFileName(d.Name()) {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

// loadWalked loads a file a directory walk found, unless it is a YAML
// file that is not a case; it reports whether it read the file.
func (l *loader) loadWalked(path string) bool {
	if isYAMLName(path) {
		data, err := readBounded(path)
		if err == nil && !looksLikeYAMLCase(data) {
			l.skipped = append(l.skipped, Skipped{Path: path, Why: "YAML without a top-level case: or input: key: not a case"})
			return false
		}
	}
	l.loadFile(path)
	return true
}

// looksLikeYAMLCase reports whether YAML text has a top-level case: or
// input: key (at the start of a line), or is a flow mapping ({...}), as a
// case file has; a Kubernetes manifest or a CI workflow has neither.
func looksLikeYAMLCase(data []byte) bool {
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, "case:") || strings.HasPrefix(line, "input:") {
			return true
		}
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "---") {
			if strings.HasPrefix(t, "{") {
				return true
			}
		}
	}
	return false
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
	c := parseYAMLCase(data, newYAMLBudget(), p)
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
