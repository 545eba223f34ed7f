package rollout

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// TestFaultsAlter: how a result is corrupted, kind by kind.
func TestFaultsAlter(t *testing.T) {
	record := domains.ToolResult{Content: `{"user_id": "user_17", "balance": 250, "name": "Ada"}`}
	tests := []struct {
		name string
		out  domains.ToolResult
		kind result.FaultKind
		want domains.ToolResult
	}{
		{"stale", record, result.FaultStale, domains.ToolResult{Content: `{"balance":225,"name":"Ada","user_id":"user_17"}`}},
		{"wrong record", record, result.FaultWrongRecord, domains.ToolResult{Content: `{"balance":250,"name":"Ada","user_id":"user_18"}`}},
		{"stale without a number is cut", domains.ToolResult{Content: "Transfer done"}, result.FaultStale, domains.ToolResult{Content: "Transf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content, ok := alterJSON(tt.out.Content, tt.kind)
			if !ok {
				content = truncate(tt.out.Content)
			}
			got := domains.ToolResult{Content: content}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFaultsDraw: no rate corrupts nothing, a rate of 1 everything but
// failed calls, and the same seed, task, trial and call draw the same
// corruption while another seed draws others.
func TestFaultsDraw(t *testing.T) {
	out := domains.ToolResult{Content: `{"id": "r1", "n": 3}`}
	draw := func(f Faults) []result.FaultKind {
		var kinds []result.FaultKind
		for n := range 40 {
			_, k := f.corrupt("task-1", 0, n, out)
			kinds = append(kinds, k)
		}
		return kinds
	}
	for _, k := range draw(Faults{}) {
		if k != "" {
			t.Fatalf("rate 0 corrupted a result: %s", k)
		}
	}
	all := draw(Faults{Rate: 1, Seed: 3})
	seen := map[result.FaultKind]bool{}
	for _, k := range all {
		if k == "" {
			t.Fatal("rate 1 left a result alone")
		}
		seen[k] = true
	}
	if len(seen) != 4 {
		t.Errorf("kinds drawn in 40 calls: %v; want all four", seen)
	}
	if diff := cmp.Diff(all, draw(Faults{Rate: 1, Seed: 3})); diff != "" {
		t.Errorf("the same seed drew differently:\n%s", diff)
	}
	if cmp.Equal(all, draw(Faults{Rate: 1, Seed: 4})) {
		t.Error("another seed drew the same kinds")
	}
	half := draw(Faults{Rate: 0.5, Seed: 3})
	n := 0
	for _, k := range half {
		if k != "" {
			n++
		}
	}
	if n < 10 || n > 30 {
		t.Errorf("rate 0.5 corrupted %d of 40", n)
	}
	if _, k := (Faults{Rate: 1}).corrupt("t", 0, 0, domains.ToolResult{Content: "no", Error: true}); k != "" {
		t.Errorf("a failed call was corrupted: %s", k)
	}
}
