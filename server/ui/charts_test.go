package ui

import (
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/result"
)

// TestPassCurvesEqualStayVisible draws pass^k and pass@k when they are
// equal at every k: pass@k goes underneath, wide with open rings, and
// pass^k over it, thin with dots, so that neither hides the other.
func TestPassCurvesEqualStayVisible(t *testing.T) {
	same := map[string]float64{"1": 0.5, "2": 0.5, "3": 0.5}
	tests := []struct {
		name   string
		trials int
		want   []string // in this order
	}{
		{"several k", 3, []string{`<circle class="pass-at" cx="44.0" cy="99.0" r="5">`, `<polyline class="pass-at"`, `<circle class="pass-hat" cx="44.0" cy="99.0" r="3">`, `<polyline class="pass-hat"`}},
		{"one trial: one point each", 1, []string{`<circle class="pass-at" cx="256.0" cy="99.0" r="5">`, `<circle class="pass-hat" cx="256.0" cy="99.0" r="3">`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svg := string(passCurves(result.Summary{NumTrials: tt.trials, PassHatK: same, PassAtK: same}))
			at := 0
			for _, w := range tt.want {
				i := strings.Index(svg[at:], w)
				if i < 0 {
					t.Fatalf("the chart lacks %q after offset %d (pass@k must be drawn first, pass^k over it):\n%s", w, at, svg)
				}
				at += i + len(w)
			}
		})
	}
}
