package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/domains/tau2/load"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

func TestCatalogWithoutData(t *testing.T) {
	c, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Names(); !slices.Equal(got, []string{"mock"}) {
		t.Errorf("Names() = %v, want [mock]", got)
	}
	sums, err := c.Summaries()
	if err != nil || len(sums) != 1 || sums[0].Name != "mock" || sums[0].NumTasks != 17 || len(sums[0].Splits) != 0 {
		t.Errorf("Summaries() = %+v, %v", sums, err)
	}
	_, err = c.Get("airline")
	var missing *MissingDataError
	if !errors.As(err, &missing) || missing.Dir != "" || !strings.Contains(err.Error(), "proctor domains install tau2") || !strings.Contains(err.Error(), "--tau2-data") {
		t.Errorf("Get(airline) without data: %v", err)
	}
	if _, err := c.Summary("retail"); !errors.As(err, &missing) {
		t.Errorf("Summary(retail) without data: %v", err)
	}
	_, err = c.Get("nope")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "mock") || !strings.Contains(err.Error(), "airline") {
		t.Errorf("Get(nope): %v", err)
	}
	d, split, err := c.GetSplit("mock", "base")
	if err != nil || d.Name != "mock" || split != "" {
		t.Errorf("GetSplit(mock, base) = %v, %q, %v", d, split, err)
	}
	var se *SplitError
	if _, _, err := c.GetSplit("mock", "train"); !errors.As(err, &se) || !strings.Contains(err.Error(), "no task splits") {
		t.Errorf("GetSplit(mock, train): %v", err)
	}
}

func TestCatalogTau2(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "airline"))
	tau2test.Dir(t, "retail")
	tau2test.Dir(t, "telecom")
	tau2test.Dir(t, "banking_knowledge")
	c, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Names(); !slices.Equal(got, []string{"airline", "banking_knowledge", "mock", "retail", "tau2-mock", "telecom"}) {
		t.Errorf("Names() = %v", got)
	}
	sums, err := c.Summaries()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"airline": "50 [{base 50} {train 30} {test 20}]",
		"retail":  "114 [{base 114} {train 74} {test 40}]",
		"mock":    "17 []",
		// tau2's mock, in its mock/ directory beside proctor's own mock.
		"tau2-mock": "10 [{base 10}]",
		"telecom":   "114 [{base 114} {train 74} {test 40} {full 2285} {small 20}]",
		// One file per task, no splits.
		"banking_knowledge": "97 [{base 97}]",
	}
	for _, s := range sums {
		got := fmt.Sprintf("%d %v", s.NumTasks, s.Splits)
		if got != want[s.Name] || len(s.Tools) == 0 || s.Description == "" || len(s.TaskIDs) != s.NumTasks {
			t.Errorf("%s: %s (%d tools), want %s", s.Name, got, len(s.Tools), want[s.Name])
		}
	}
	if len(c.loads) != 0 {
		t.Errorf("listing loaded %d domains", len(c.loads))
	}

	a, err := c.Get("airline")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Tasks) != 50 {
		t.Errorf("airline: %d tasks", len(a.Tasks))
	}
	d, split, err := c.GetSplit("airline", "train")
	if err != nil || len(d.Tasks) != 30 || split != "train" {
		t.Errorf("GetSplit(airline, train) = %d tasks, %q, %v", len(d.Tasks), split, err)
	}
	if b, split, _ := c.GetSplit("airline", ""); b != a || split != "base" {
		t.Errorf("airline loaded twice, or default split %q", split)
	}
	var se *SplitError
	if _, _, err := c.GetSplit("retail", "full"); !errors.As(err, &se) || !strings.Contains(err.Error(), "base, train, test") {
		t.Errorf("GetSplit(retail, full): %v", err)
	}
	if len(c.loads) != 2 {
		t.Errorf("%d loads, want 2 (airline base and train; retail's bad split loads nothing)", len(c.loads))
	}
}

func TestCatalogConcurrentLoad(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "retail"))
	c, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() {
			d, err := c.Get("retail")
			if err != nil {
				t.Error(err)
			}
			got[i] = d
		})
	}
	wg.Wait()
	for _, d := range got[1:] {
		if d != got[0] {
			t.Fatal("concurrent callers got different copies of retail")
		}
	}
}

func TestCatalogIncompleteData(t *testing.T) {
	src := tau2test.Dir(t, "airline")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "airline"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"tasks.json", "split_tasks.json", "policy.md"} { // no db.json
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "airline", f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Names(); !slices.Equal(got, []string{"mock"}) {
		t.Errorf("Names() = %v: an incomplete domain is listed", got)
	}
	_, err = c.Get("airline")
	var missing *MissingDataError
	if !errors.As(err, &missing) || !slices.Equal(missing.Missing, []string{"db.json"}) ||
		!strings.Contains(err.Error(), filepath.Join(root, "airline")) || !strings.Contains(err.Error(), "db.json") {
		t.Errorf("Get(airline): %v", err)
	}
}

// TestCatalogRetrievalConfig: banking_knowledge loads once per retrieval
// configuration, refuses tau2's default and those it does not offer, and
// no other domain takes one.
func TestCatalogRetrievalConfig(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "banking_knowledge"))
	c, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	bm25 := load.Options{RetrievalConfig: "bm25"}
	d, split, err := c.GetWith("banking_knowledge", "", bm25)
	if err != nil || split != "base" || len(d.Tasks) != 97 || d.ToolNames()[0] != "KB_search" {
		t.Fatalf("GetWith(banking_knowledge, bm25) = %v, %q, %v", d, split, err)
	}
	if again, _, _ := c.GetWith("banking_knowledge", "base", bm25); again != d {
		t.Error("bm25 loaded twice")
	}
	grep, _, err := c.GetWith("banking_knowledge", "", load.Options{RetrievalConfig: "grep_only"})
	if err != nil || grep == d || grep.ToolNames()[0] != "grep" {
		t.Errorf("grep_only: %v, %v", grep, err)
	}
	for _, tt := range []struct {
		name string
		opts load.Options
		want string
	}{
		{"banking_knowledge", load.Options{}, "tau2's default, alltools"},
		{"banking_knowledge", load.Options{RetrievalConfig: "terminal_use"}, "shell sandbox"},
		{"airline", bm25, "only banking_knowledge has retrieval configurations"},
		{"mock", bm25, "only banking_knowledge has retrieval configurations"},
	} {
		if _, _, err := c.GetWith(tt.name, "", tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("GetWith(%s, %+v): %v, want %q", tt.name, tt.opts, err, tt.want)
		}
	}
}
