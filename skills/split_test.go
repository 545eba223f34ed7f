package skills_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/skills"
)

// violations returns what Check said, failing the test unless it is an
// *InvalidRequestError.
func violations(t *testing.T, err error) string {
	t.Helper()
	var inv *skills.InvalidRequestError
	if !errors.As(err, &inv) {
		t.Fatalf("err = %v, want an InvalidRequestError", err)
	}
	return strings.Join(inv.Violations, "\n")
}

func TestSplitWithoutSplits(t *testing.T) {
	svc := service(t) // a plain registry: mock, no splits
	if err := svc.Check(skills.EvaluationRequest{AgentURL: "builtin", Split: "base"}); err != nil {
		t.Errorf("split base on mock: %v", err)
	}
	if v := violations(t, svc.Check(skills.EvaluationRequest{AgentURL: "builtin", Split: "train"})); !strings.Contains(v, `split "train": domain mock has no task splits`) {
		t.Errorf("split train on mock: %s", v)
	}
	if v := violations(t, svc.Check(skills.EvaluationRequest{AgentURL: "builtin", Split: "full"})); !strings.Contains(v, `split "full": want one of base, train, test`) {
		t.Errorf("split full: %s", v)
	}
	run, err := svc.Prepare(context.Background(), skills.EvaluationRequest{AgentURL: "builtin", Split: "base", TaskIDs: []string{"mock-02"}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if s := run.Evaluation().Config.Split; s != "" {
		t.Errorf("mock evaluation records split %q, want none", s)
	}
	b, _ := json.Marshal(run.Evaluation().Config)
	if strings.Contains(string(b), `"split"`) {
		t.Errorf("config of a domain without splits has a split: %s", b)
	}
}

// splitMock is a source whose mock domain pretends to come in splits.
type splitMock struct{ reg *domains.Registry }

func (s splitMock) Names() []string                          { return s.reg.Names() }
func (s splitMock) Get(name string) (*domains.Domain, error) { return s.reg.Get(name) }
func (s splitMock) GetSplit(name, split string) (*domains.Domain, string, error) {
	d, err := s.reg.Get(name)
	if split == "" {
		split = "base"
	}
	return d, split, err
}

func TestSplitRecorded(t *testing.T) {
	svc := service(t)
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	svc.Domains = splitMock{reg}
	ctx := context.Background()
	run, err := svc.Prepare(ctx, skills.EvaluationRequest{AgentURL: "builtin", Split: "train", TaskIDs: []string{"mock-02"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Execute(ctx, nil); err != nil {
		t.Fatal(err)
	}
	run.Close()
	eval := run.Evaluation()
	if eval.Config.Split != "train" {
		t.Fatalf("split %q, want train", eval.Config.Split)
	}
	stored, _, err := svc.GetResults(ctx, skills.ResultsRequest{ID: eval.ID})
	if err != nil || stored.Config.Split != "train" {
		t.Errorf("stored split %q, %v", stored.Config.Split, err)
	}
	// With no split asked for, the source's default is recorded.
	run, err = svc.Prepare(ctx, skills.EvaluationRequest{AgentURL: "builtin", TaskIDs: []string{"mock-02"}})
	if err != nil {
		t.Fatal(err)
	}
	run.Close()
	if s := run.Evaluation().Config.Split; s != "base" {
		t.Errorf("default split %q, want base", s)
	}
}

func TestTau2Domains(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "airline"))
	tau2test.Dir(t, "retail")
	cat, err := catalog.New(root)
	if err != nil {
		t.Fatal(err)
	}
	svc := service(t)
	svc.Domains = cat

	byName := map[string]skills.DomainInfo{}
	for _, d := range svc.ListDomains() {
		byName[d.Name] = d
	}
	a := byName["airline"]
	if a.NumTasks != 50 || a.DefaultSplit != "base" || len(a.Splits) != 3 || a.Splits[1] != (skills.SplitInfo{Name: "train", NumTasks: 30}) || len(a.Tools) != 14 {
		t.Errorf("airline: %+v", a)
	}
	if r := byName["retail"]; r.NumTasks != 114 || len(r.Splits) != 3 || r.Splits[2] != (skills.SplitInfo{Name: "test", NumTasks: 40}) {
		t.Errorf("retail: %+v", r)
	}
	if m := byName["mock"]; m.NumTasks != 17 || m.Splits != nil || m.DefaultSplit != "" {
		t.Errorf("mock: %+v", m)
	}
	if tc, ok := byName["telecom"]; ok && (tc.NumTasks != 114 || len(tc.Splits) != 5 || tc.Splits[3] != (skills.SplitInfo{Name: "full", NumTasks: 2285}) || len(tc.Tools) != 13) {
		t.Errorf("telecom: %+v", tc)
	}

	v := violations(t, svc.Check(skills.EvaluationRequest{AgentURL: "builtin", Domain: "airline", Split: "train"}))
	// Both fixes at once: the reference agent knows only mock, and these
	// tasks need the LLM user.
	for _, w := range []string{"domain airline (split train)", "scripted user cannot play", "none of the 30", "LLM user simulator",
		`user "llm" with user_model`, `agent_url "builtin": proctor's reference agent plays only the mock domain, not airline`} {
		if !strings.Contains(v, w) {
			t.Errorf("airline with the scripted user: %q lacks %q", v, w)
		}
	}
	// Telecom's users act on their phones: an LLM's part, as for airline.
	if _, ok := byName["telecom"]; ok {
		v = violations(t, svc.Check(skills.EvaluationRequest{AgentURL: "builtin", Domain: "telecom"}))
		for _, w := range []string{"domain telecom (split base)", "scripted user cannot play", "none of the 114", "LLM user simulator"} {
			if !strings.Contains(v, w) {
				t.Errorf("telecom with the scripted user: %q lacks %q", v, w)
			}
		}
	}
	v = violations(t, svc.Check(skills.EvaluationRequest{AgentURL: "builtin", Domain: "retail", TaskIDs: []string{"0"}}))
	if !strings.Contains(v, "cannot play task 0: it has no script") {
		t.Errorf("one retail task: %s", v)
	}
	v = violations(t, svc.Check(skills.EvaluationRequest{AgentURL: "builtin", Domain: "airline", Split: "test", TaskIDs: []string{"0"}}))
	if !strings.Contains(v, "task_ids: domain airline (split test) has no task 0") {
		t.Errorf("task outside the split: %s", v)
	}

	// Without the data, asking for airline says how to get it.
	bare, err := catalog.New("")
	if err != nil {
		t.Fatal(err)
	}
	svc.Domains = bare
	v = violations(t, svc.Check(skills.EvaluationRequest{AgentURL: "builtin", Domain: "airline"}))
	if !strings.Contains(v, "proctor domains install tau2") {
		t.Errorf("airline without data: %s", v)
	}
	if ds := svc.ListDomains(); len(ds) != 1 || ds[0].Name != "mock" {
		t.Errorf("list_domains without data: %+v", ds)
	}
}
