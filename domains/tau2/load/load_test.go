package load_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/proctor-eval/proctor/domains/tau2/load"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

func TestDescribeAgreesWithNew(t *testing.T) {
	want := map[string]map[string]int{
		"airline":           {"base": 50, "train": 30, "test": 20},
		"retail":            {"base": 114, "train": 74, "test": 40},
		"tau2-mock":         {"base": 10},
		"telecom":           {"base": 114, "train": 74, "test": 40, "full": 2285, "small": 20},
		"banking_knowledge": {"base": 97},
	}
	// banking_knowledge is built without retrieval tools, whose tools
	// Describe lists.
	opts := map[string]load.Options{"banking_knowledge": {RetrievalConfig: "no_knowledge"}}
	splits := map[string][]string{"tau2-mock": {"base"}, "banking_knowledge": {"base"}, "telecom": {"base", "train", "test", "full", "small"}}
	for _, d := range load.Domains() {
		t.Run(d.Name, func(t *testing.T) {
			root := filepath.Dir(tau2test.Dir(t, filepath.Base(d.Dir(""))))
			if m := d.Missing(root); len(m) != 0 {
				t.Fatalf("missing %v", m)
			}
			info, err := d.Describe(root)
			if err != nil {
				t.Fatal(err)
			}
			wantSplits := splits[d.Name]
			if wantSplits == nil {
				wantSplits = []string{"base", "train", "test"}
			}
			if got := info.SplitNames(); !slices.Equal(got, wantSplits) {
				t.Errorf("splits %v, want %v", got, wantSplits)
			}
			for _, s := range info.Splits {
				if n := len(s.TaskIDs); n != want[d.Name][s.Name] {
					t.Errorf("split %s: %d tasks, want %d", s.Name, n, want[d.Name][s.Name])
				}
				dom, err := d.Build(d.Dir(root), s.Name, opts[d.Name])
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, task := range dom.Tasks {
					ids = append(ids, task.ID)
				}
				if !slices.Equal(ids, s.TaskIDs) {
					t.Errorf("split %s: Describe says %v, New loads %v", s.Name, s.TaskIDs, ids)
				}
				if !slices.Equal(info.Tools, dom.ToolNames()) {
					t.Errorf("tools: Describe says %v, New has %v", info.Tools, dom.ToolNames())
				}
			}
		})
	}
}

func TestMissing(t *testing.T) {
	d, ok := load.Lookup("airline")
	if !ok {
		t.Fatal("no airline")
	}
	if got := d.Missing(""); !slices.Equal(got, d.Files) {
		t.Errorf("Missing(\"\") = %v", got)
	}
	if got := d.Missing(t.TempDir()); !slices.Equal(got, d.Files) {
		t.Errorf("Missing(empty dir) = %v", got)
	}
	if _, ok := load.Lookup("mock"); ok {
		t.Error(`tau2's mock is "tau2-mock", yet Lookup found "mock"`)
	}
	if m, ok := load.Lookup("tau2-mock"); !ok || m.Dir("/r") != filepath.Join("/r", "mock") {
		t.Errorf("tau2-mock: %v, directory %s", ok, m.Dir("/r"))
	}
	if got := load.Names(); !slices.Equal(got, []string{"airline", "banking_knowledge", "retail", "tau2-mock", "telecom"}) {
		t.Errorf("Names() = %v", got)
	}
}
