package evalset

import (
	"fmt"
	"strconv"
	"strings"
)

// Violation is one problem found in an input file: where it is and what is
// wrong.
type Violation struct {
	// File is the file the problem is in ("" for metrics given in code).
	File string
	// Path is the JSON (or YAML) path of the offending value, e.g.
	// "evalCases[2].conversation[0].userContent"; "" for the whole file.
	Path    string
	Message string
}

// String formats the violation as "file: path: message".
func (v Violation) String() string {
	var b strings.Builder
	if v.File != "" {
		b.WriteString(v.File)
		b.WriteString(": ")
	}
	if v.Path != "" {
		b.WriteString(v.Path)
		b.WriteString(": ")
	}
	b.WriteString(v.Message)
	return b.String()
}

// ValidationError lists every problem found in the eval sets and metrics
// given: the loaders report them all at once rather than the first.
type ValidationError struct {
	Violations []Violation
}

// Error lists the violations, one a line.
func (e *ValidationError) Error() string {
	if len(e.Violations) == 1 {
		return "invalid eval set: " + e.Violations[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid eval set: %d problems:", len(e.Violations))
	for _, v := range e.Violations {
		b.WriteString("\n  ")
		b.WriteString(v.String())
	}
	return b.String()
}

// MaxViolations bounds the violations one call reports; a last one says
// how many more were found.
const MaxViolations = 1_000

// problems collects violations for one file.
type problems struct {
	file string
	list *violationList
}

// violationList holds the violations collected, and a count of those past MaxViolations.
type violationList struct {
	kept []Violation
	more int
}

func newProblems(file string) problems {
	return problems{file: file, list: &violationList{}}
}

// in returns a collector writing to the same list for another file.
func (p problems) in(file string) problems {
	return problems{file: file, list: p.list}
}

func (p problems) add(path, format string, args ...any) {
	if len(p.list.kept) >= MaxViolations {
		p.list.more++
		return
	}
	p.list.kept = append(p.list.kept, Violation{File: p.file, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (p problems) empty() bool { return len(p.list.kept) == 0 }

// err is the collected violations as a *ValidationError, or nil.
func (p problems) err() error {
	if p.empty() {
		return nil
	}
	list := p.list.kept
	if p.list.more > 0 {
		list = append(list[:len(list):len(list)], Violation{Message: fmt.Sprintf("and %d more problems: mend these first", p.list.more)})
	}
	return &ValidationError{Violations: list}
}

// field appends a field name to a path.
func field(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// index appends an index to a path.
func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}
