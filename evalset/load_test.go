package evalset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestTRPCRoundTrip decodes a tRPC-Agent-Go eval set and metrics file and
// encodes them again: the JSON is the same (timestamps equal to the
// nanosecond float64 keeps).
func TestTRPCRoundTrip(t *testing.T) {
	sets, err := Load("testdata/trpc")
	if err != nil {
		t.Fatal(err)
	}
	dir := "testdata/trpc/math-eval-app"
	for _, c := range []struct {
		file string
		got  any
	}{
		{"math-basic.evalset.json", sets[0]},
		{"math-basic.metrics.json", sets[0].Metrics},
	} {
		encoded, err := json.Marshal(c.got)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(decodeAny(t, readTestFile(t, filepath.Join(dir, c.file))), decodeAny(t, encoded), cmpopts.EquateApprox(0, 1e-6)); diff != "" {
			t.Errorf("%s does not round-trip (-file +encoded):\n%s", c.file, diff)
		}
	}
}

func readTestFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decodeAny(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// setSummary is what a test compares of a loaded set.
type setSummary struct {
	ID, AppName string
	Format      Format
	Cases       []string
	Metrics     []string
}

func summarize(sets []*Set) []setSummary {
	var out []setSummary
	for _, s := range sets {
		sum := setSummary{ID: s.ID, AppName: s.AppName, Format: s.Format}
		for _, c := range s.Cases {
			sum.Cases = append(sum.Cases, c.ID)
		}
		for _, m := range s.Metrics {
			sum.Metrics = append(sum.Metrics, m.Name)
		}
		out = append(out, sum)
	}
	return out
}

func TestLoadDetectsFormats(t *testing.T) {
	adkDefaults := []string{MetricToolTrajectory, MetricResponseMatch}
	for _, tc := range []struct {
		name  string
		paths []string
		want  []setSummary
	}{
		{"trpc app dir", []string{"testdata/trpc"}, []setSummary{{
			ID: "math-basic", AppName: "math-eval-app", Format: FormatTRPC,
			Cases:   []string{"calc_add", "calc_context", "calc_trace", "calc_scenario"},
			Metrics: []string{MetricToolTrajectory, MetricFinalResponse, MetricLLMRubricResponse},
		}}},
		{"adk snake_case with test_config", []string{"testdata/adk/weather/weather.evalset.json"}, []setSummary{{
			ID: "weather", AppName: "weather", Format: FormatADK, Cases: []string{"paris", "trip"},
			Metrics: []string{MetricToolTrajectory, MetricResponseMatch, MetricFinalResponseMatch2, ADKRubricFinalResponse},
		}}},
		{"adk camelCase, default criteria", []string{"testdata/adkcamel"}, []setSummary{{
			ID: "camel", AppName: "camel", Format: FormatADK, Cases: []string{"one"}, Metrics: adkDefaults,
		}}},
		{"old adk test list", []string{"testdata/adkold"}, []setSummary{{
			ID: "simple", AppName: "simple", Format: FormatADK, Cases: []string{"simple"}, Metrics: adkDefaults,
		}}},
		{"yaml cases dir and a yaml file", []string{"testdata/cases", "testdata/multiturn/booking.yaml"}, []setSummary{
			{ID: "cases", AppName: "cases", Format: FormatYAML, Cases: []string{"grounded-qa-001", "parallel-lookup"}},
			{ID: "multiturn", AppName: "multiturn", Format: FormatYAML, Cases: []string{"booking"}},
		}},
		{"whole tree, metrics files left aside", []string{"testdata"}, []setSummary{
			{ID: "weather", AppName: "weather", Format: FormatADK, Cases: []string{"paris", "trip"},
				Metrics: []string{MetricToolTrajectory, MetricResponseMatch, MetricFinalResponseMatch2, ADKRubricFinalResponse}},
			{ID: "camel", AppName: "camel", Format: FormatADK, Cases: []string{"one"}, Metrics: adkDefaults},
			{ID: "simple", AppName: "simple", Format: FormatADK, Cases: []string{"simple"}, Metrics: adkDefaults},
			{ID: "cases", AppName: "cases", Format: FormatYAML, Cases: []string{"grounded-qa-001", "parallel-lookup"}},
			{ID: "multiturn", AppName: "multiturn", Format: FormatYAML, Cases: []string{"booking"}},
			{ID: "math-basic", AppName: "math-eval-app", Format: FormatTRPC,
				Cases:   []string{"calc_add", "calc_context", "calc_trace", "calc_scenario"},
				Metrics: []string{MetricToolTrajectory, MetricFinalResponse, MetricLLMRubricResponse}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sets, err := Load(tc.paths...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(sets)); diff != "" {
				t.Errorf("sets (-want +got):\n%s", diff)
			}
		})
	}
}

// ignoreLoadInfo leaves out where a set was read from and its metrics.
func ignoreLoadInfo() cmp.Option { return cmpopts.IgnoreFields(Set{}, "Path", "Metrics") }

func TestLoadConvertsADK(t *testing.T) {
	sets, err := Load("testdata/adk/weather/weather.evalset.json")
	if err != nil {
		t.Fatal(err)
	}
	want := &Set{ID: "weather", Name: "Weather questions", AppName: "weather", Format: FormatADK, Cases: []*Case{
		{
			ID: "paris",
			Conversation: []*Invocation{{
				ID:          "inv-1",
				UserContent: &Message{Role: RoleUser, Content: "What is the weather in Paris?"},
				FinalResponse: &Message{Role: RoleAssistant, Content: "It is sunny\nin Paris.",
					ReasoningContent: "look it up"},
				Tools: []*Tool{
					{ID: "call-1", Name: "get_weather", Arguments: map[string]any{"city": "Paris"}, Result: map[string]any{"sky": "sunny"}},
					{Name: "get_time", Arguments: map[string]any{"tz": "CET"}, Result: map[string]any{"time": "12:00"}},
				},
				IntermediateResponses: []*Message{{Role: RoleAssistant, Content: "Checking the weather."}},
				Created:               epoch(1700000000.5),
			}},
			SessionInput: &SessionInput{AppName: "weather_agent", UserID: "u1", State: map[string]any{"units": "metric"}},
			Rubrics:      []*CaseRubric{{ID: "sunny", Content: &RubricContent{Text: "Says it is sunny."}}},
		},
		{ID: "trip", Scenario: &Scenario{StartingPrompt: "Plan my trip.", Plan: "Ask for the weather in Rome, then stop."}},
	}}
	if diff := cmp.Diff(want, sets[0], ignoreLoadInfo()); diff != "" {
		t.Errorf("set (-want +got):\n%s", diff)
	}
	samples3, samples5 := 3, 5
	wantMetrics := []*Metric{
		{Name: MetricToolTrajectory, Threshold: 1, Criterion: &Criterion{ToolTrajectory: &ToolTrajectoryCriterion{
			DefaultStrategy: &ToolStrategy{Name: &TextCriterion{MatchStrategy: TextExact}, Arguments: &JSONCriterion{MatchStrategy: JSONExact}, Result: &JSONCriterion{Ignore: true}},
			OrderSensitive:  true, SubsetMatching: true,
		}}},
		{Name: MetricResponseMatch, Threshold: 0.8},
		{Name: MetricFinalResponseMatch2, Threshold: 0.5, Criterion: &Criterion{LLMJudge: &LLMCriterion{
			JudgeModel: &JudgeModel{ModelName: "gemini-2.5-flash", NumSamples: &samples3},
		}}},
		{Name: ADKRubricFinalResponse, EvaluatorName: MetricLLMRubricResponse, Threshold: 0.7, Criterion: &Criterion{LLMJudge: &LLMCriterion{
			JudgeModel: &JudgeModel{ModelName: "gemini-2.5-flash", NumSamples: &samples5},
			Rubrics:    []*Rubric{{ID: "concise", Content: &RubricContent{Text: "The answer is concise."}}},
		}}},
	}
	if diff := cmp.Diff(wantMetrics, sets[0].Metrics); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestADKMatchTypes(t *testing.T) {
	for _, tc := range []struct {
		matchType          string
		ordered, subsetted bool
	}{
		{`"EXACT"`, true, false},
		{`"in_order"`, true, true},
		{`"any-order"`, false, true},
		{`2`, false, true},
	} {
		t.Run(tc.matchType, func(t *testing.T) {
			p := newProblems("")
			metrics := parseMetrics([]byte(`{"criteria":{"tool_trajectory_avg_score":{"threshold":1,"matchType":`+tc.matchType+`}}}`), false, p)
			if err := p.err(); err != nil {
				t.Fatal(err)
			}
			tt := metrics[0].Criterion.ToolTrajectory
			if tt.OrderSensitive != tc.ordered || tt.SubsetMatching != tc.subsetted {
				t.Errorf("orderSensitive %v, subsetMatching %v; want %v, %v", tt.OrderSensitive, tt.SubsetMatching, tc.ordered, tc.subsetted)
			}
		})
	}
}

func TestLoadConvertsOldADKAndYAML(t *testing.T) {
	trajectory := &Metric{Name: MetricToolTrajectory, Threshold: 1, Criterion: &Criterion{ToolTrajectory: &ToolTrajectoryCriterion{
		DefaultStrategy: &ToolStrategy{Name: &TextCriterion{MatchStrategy: TextExact}, Arguments: &JSONCriterion{Ignore: true}, Result: &JSONCriterion{Ignore: true}},
		OrderSensitive:  true,
	}}}
	contains := &Metric{Name: MetricFinalResponse, Threshold: 1, Criterion: &Criterion{FinalResponse: &FinalResponseCriterion{Text: &TextCriterion{MatchStrategy: TextContains}}}}
	for _, tc := range []struct {
		path string
		want *Case
	}{
		{"testdata/adkold/simple.test.json", &Case{ID: "simple", Conversation: []*Invocation{
			{
				UserContent:   &Message{Role: RoleUser, Content: "Find women's jeans."},
				FinalResponse: &Message{Role: RoleAssistant, Content: "I found 3 results."},
				Tools:         []*Tool{{Name: "search", Arguments: map[string]any{"keywords": "women's jeans"}}},
			},
			{UserContent: &Message{Role: RoleUser, Content: "Thanks!"}, FinalResponse: &Message{Role: RoleAssistant, Content: "You are welcome."}},
		}}},
		{"testdata/multiturn/booking.yaml", &Case{ID: "booking", Transport: "jsonrpc", Conversation: []*Invocation{
			{
				ID: "booking-1", UserContent: &Message{Role: RoleUser, Content: "I want to book a flight to Lisbon."},
				FinalResponse: &Message{Role: RoleAssistant}, // contains "": any text
				Tools:         []*Tool{{Name: "search_flights", ArgsContain: []string{"Lisbon"}}},
			},
			{ID: "booking-2", UserContent: &Message{Role: RoleUser, Content: "The morning one, please."}, FinalResponse: &Message{Role: RoleAssistant, Content: "booked"}},
			{ID: "booking-3", UserContent: &Message{Role: RoleUser, Content: "Thanks."}, FinalResponse: &Message{Role: RoleAssistant, Content: "welcome"}, Tools: []*Tool{}},
		}, Metrics: []*Metric{trajectory, contains}}},
		{"testdata/cases/parallel.yaml", &Case{ID: "parallel-lookup", Conversation: []*Invocation{{
			ID: "parallel-lookup-1", UserContent: &Message{Role: RoleUser, Content: "Compare the weather in Paris and Rome."},
			FinalResponse: &Message{Role: RoleAssistant, Content: "Rome"},
			Tools: []*Tool{
				{Name: "get_weather", ArgsContain: []string{"Paris"}, Parallel: true},
				{Name: "get_weather", ArgsContain: []string{"Rome"}, Parallel: true},
				{Name: "summarize"},
			},
		}}, Metrics: []*Metric{trajectory, contains}}},
		{"testdata/cases/grounded-qa.yaml", &Case{ID: "grounded-qa-001", Transport: "grpc", MaxSteps: 6, Scorer: "refusal-rubric-v1", Conversation: []*Invocation{{
			ID: "grounded-qa-001-1", UserContent: &Message{Role: RoleUser, Content: "What penalty applies under clause 3.2 of contract C-2023-147?"},
			FinalResponse: &Message{Role: RoleAssistant, Content: `penalty of \d+%`},
			Tools:         []*Tool{{Name: "retrieve_passage", ArgsContain: []string{"C-2023-147", "clause"}}, {Name: "verify_citation"}},
		}}, Metrics: []*Metric{trajectory, {Name: MetricFinalResponse, Threshold: 1, Criterion: &Criterion{FinalResponse: &FinalResponseCriterion{
			Text: &TextCriterion{MatchStrategy: TextRegex, CaseInsensitive: true},
		}}}}}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			sets, err := Load(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, sets[0].Cases[0], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("case (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateChecksScorers(t *testing.T) {
	sets, err := Load("testdata/cases")
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(sets, nil)
	want := []Violation{{File: "testdata/cases", Path: "scorer",
		Message: `case "grounded-qa-001": scorer "refusal-rubric-v1" is not one of the run's metrics (known: none: give the metrics with --metrics FILE)`}}
	if diff := cmp.Diff(want, violations(t, err)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	metrics, err := LoadMetrics("testdata/metrics.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(sets, metrics); err != nil {
		t.Errorf("with the run's metrics: %v", err)
	}
}

func violations(t *testing.T, err error) []Violation {
	t.Helper()
	verr, ok := err.(*ValidationError)
	if !ok {
		t.Fatalf("error %v (%T): want a *ValidationError", err, err)
	}
	return verr.Violations
}

func TestLoadMetricsShapes(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		want                []string
	}{
		{"trpc json", "m.json", `[{"metricName":"a","evaluatorName":"final_response_avg_score","threshold":1},{"metricName":"tool_trajectory_avg_score","threshold":0.5}]`, []string{"a", MetricToolTrajectory}},
		{"adk test_config", "test_config.json", `{"criteria":{"response_match_score":0.5,"tool_trajectory_avg_score":1}}`, []string{MetricResponseMatch, MetricToolTrajectory}},
		{"adk yaml", "c.yaml", "criteria:\n  final_response_match_v2: 0.5\n", []string{MetricFinalResponseMatch2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			metrics, err := LoadMetrics(path)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, m := range metrics {
				names = append(names, m.Name)
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("metric names (-want +got):\n%s", diff)
			}
		})
	}
}
