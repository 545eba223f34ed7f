package evalset

import (
	"regexp"
	"slices"
	"strings"
)

// Validate checks eval sets against the metrics that will score them: the
// run's metrics when given (--metrics), else each set's own. It checks what
// [Load] checks, and also that each YAML case's scorer names one of those
// metrics and that every regular expression the metrics apply to the cases
// compiles (the scorer compiles and keeps them; see scoring/metric). Every
// problem is reported at once, as a
// *ValidationError.
func Validate(sets []*Set, runMetrics []*Metric) error {
	p := newProblems("")
	if runMetrics != nil {
		validateMetrics(runMetrics, "metrics", p)
	}
	for _, s := range sets {
		metrics := s.Metrics
		if runMetrics != nil {
			metrics = runMetrics
		}
		validateSet(s, metrics, true, p.in(s.Path))
	}
	return p.err()
}

// pathNamer renders a model path in the names of the set's format.
type pathNamer func(string) string

func namerFor(f Format) pathNamer {
	if f == FormatADK {
		return func(path string) string {
			return strings.ReplaceAll(toSnake(path), ".tools[", ".intermediate_data.tool_uses[")
		}
	}
	return func(path string) string { return path }
}

// validateSet checks the set's cases and compiles the regexes the metrics
// apply to them; scorers says whether YAML cases' scorers are checked.
func validateSet(s *Set, metrics []*Metric, scorers bool, p problems) {
	name := namerFor(s.Format)
	if len(s.Cases) == 0 {
		p.add(name("evalCases"), "no cases")
	}
	ids := map[string]int{}
	for i, c := range s.Cases {
		path := index("evalCases", i)
		if c == nil {
			p.add(name(path), "missing")
			continue
		}
		if first, dup := ids[c.ID]; dup && c.ID != "" {
			p.add(name(field(path, "evalId")), "duplicate case id %q (also %s)", c.ID, name(index("evalCases", first)))
		} else {
			ids[c.ID] = i
		}
		if s.Format != FormatYAML { // YAML cases were checked as their files were read
			validateCase(c, path, name, p)
			validateInspect(c, field(path, "inspect"), name, p)
		}
		compileCasePatterns(c, metrics, path, name, p)
		if scorers && c.Scorer != "" {
			checkScorer(c, metrics, p)
		}
	}
}

func validateCase(c *Case, path string, name pathNamer, p problems) {
	if c.ID == "" {
		p.add(name(field(path, "evalId")), "missing")
	}
	switch c.Mode {
	case ModeDefault:
		if len(c.Conversation) == 0 && c.Scenario == nil {
			p.add(name(path), "case %q has neither a conversation nor a conversationScenario", c.ID)
		}
	case ModeTrace:
		if len(c.Conversation) == 0 && len(c.ActualConversation) == 0 {
			p.add(name(path), "case %q is in trace mode but has no conversation to score", c.ID)
		}
	default:
		p.add(name(field(path, "evalMode")), "unknown mode %q: want \"\" or \"trace\"", c.Mode)
	}
	checkMessages(c.ContextMessages, field(path, "contextMessages"), name, p)
	for k, inv := range c.Conversation {
		validateInvocation(inv, index(field(path, "conversation"), k), name, p)
	}
	if c.Scenario != nil {
		validateScenario(c.Scenario, field(path, "conversationScenario"), name, p)
	}
}

func validateInvocation(inv *Invocation, path string, name pathNamer, p problems) {
	if inv == nil {
		p.add(name(path), "missing")
		return
	}
	switch {
	case inv.UserContent == nil:
		p.add(name(field(path, "userContent")), "missing")
	case strings.TrimSpace(inv.UserContent.Text()) == "":
		p.add(name(field(path, "userContent")), "has no text")
	}
	checkMessages([]*Message{inv.UserContent}, field(path, "userContent"), name, p)
	checkMessages(inv.ContextMessages, field(path, "contextMessages"), name, p)
}

// checkMessages refuses non-text parts in messages proctor sends.
func checkMessages(msgs []*Message, path string, name pathNamer, p problems) {
	for _, m := range msgs {
		if m == nil {
			continue
		}
		for j, part := range m.ContentParts {
			if part.Type != "text" {
				p.add(name(index(field(path, "content_parts"), j)), "only text parts can be sent over A2A by proctor, not %q", part.Type)
			}
		}
	}
}

func validateScenario(sc *Scenario, path string, name pathNamer, p problems) {
	if strings.TrimSpace(sc.Plan) == "" {
		p.add(name(field(path, "conversationPlan")), "missing: the user simulator needs a plan")
	}
	if sc.Driver != "" && sc.Driver != DriverActual && sc.Driver != DriverExpected {
		p.add(name(field(path, "driver")), "unknown driver %q: want %q or %q", sc.Driver, DriverActual, DriverExpected)
	}
	if sc.MaxInvocations != nil && *sc.MaxInvocations < 0 {
		p.add(name(field(path, "maxAllowedInvocations")), "must not be negative")
	}
}

// checkScorer reports a YAML case's scorer that names none of the metrics.
func checkScorer(c *Case, metrics []*Metric, p problems) {
	var names []string
	for _, m := range metrics {
		if m != nil {
			names = append(names, m.Name)
		}
	}
	if slices.Contains(names, c.Scorer) {
		return
	}
	known := "none: give the metrics with --metrics FILE"
	if len(names) > 0 {
		known = knownList(names)
	}
	p.add("scorer", "case %q: scorer %q is not one of the run's metrics (known: %s)", c.ID, c.Scorer, known)
}

// compileCasePatterns checks that the regexes the metrics apply to the
// case's expected texts and tool names compile. The case's own
// metrics (YAML) were checked where they were read, so only the set's are
// reported here.
func compileCasePatterns(c *Case, metrics []*Metric, path string, name pathNamer, p problems) {
	for _, m := range c.Metrics {
		compileMetricPatterns(c, m, path, name, problems{file: p.file, list: &violationList{}})
	}
	for _, m := range metrics {
		if m != nil && !slices.ContainsFunc(c.Metrics, func(own *Metric) bool { return own.Name == m.Name }) {
			compileMetricPatterns(c, m, path, name, p)
		}
	}
}

func compileMetricPatterns(c *Case, m *Metric, path string, name pathNamer, p problems) {
	if m.Criterion == nil {
		return
	}
	for k, inv := range c.Conversation {
		if inv == nil {
			continue
		}
		ipath := index(field(path, "conversation"), k)
		if fr := m.Criterion.FinalResponse; fr != nil && isRegex(fr.Text) && inv.FinalResponse != nil {
			compilePattern(inv.FinalResponse.Text(), fr.Text.CaseInsensitive, name(field(ipath, "finalResponse")), c, m, p)
		}
		if tt := m.Criterion.ToolTrajectory; tt != nil {
			for j, t := range inv.Tools {
				if st := toolStrategy(tt, t); st != nil && isRegex(st.Name) {
					compilePattern(t.Name, st.Name.CaseInsensitive, name(field(index(field(ipath, "tools"), j), "name")), c, m, p)
				}
			}
		}
	}
}

// toolStrategy is the strategy comparing calls of the tool: its own, else
// the default.
func toolStrategy(tt *ToolTrajectoryCriterion, t *Tool) *ToolStrategy {
	if t == nil {
		return nil
	}
	if st, ok := tt.ToolStrategy[t.Name]; ok {
		return st
	}
	return tt.DefaultStrategy
}

func isRegex(t *TextCriterion) bool {
	return t != nil && !t.Ignore && t.MatchStrategy == TextRegex
}

func compilePattern(pattern string, caseInsensitive bool, path string, c *Case, m *Metric, p problems) {
	if _, err := regexp.Compile(regexSource(pattern, caseInsensitive)); err != nil {
		p.add(path, "case %q: invalid regular expression for metric %q (text matchStrategy regex): %v", c.ID, m.Name, err)
	}
}
