package scoring

import (
	"math"
	"testing"
)

// TestFleissKappa checks the statistic on the worked example of Fleiss
// (1971) as Wikipedia's "Fleiss' kappa" article gives it (10 items, 14
// raters, 5 categories: kappa 0.210) and on edge cases.
func TestFleissKappa(t *testing.T) {
	wikipedia := [][]int{
		{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7},
	}
	tests := []struct {
		name   string
		counts [][]int
		want   float64
		ok     bool
	}{
		{"Fleiss 1971", wikipedia, 0.20993070442195522, true},
		{"perfect agreement on both categories", [][]int{{3, 0}, {0, 3}, {3, 0}}, 1, true},
		{"systematic disagreement", [][]int{{1, 1}, {1, 1}}, -1, true},
		{"one category only", [][]int{{3, 0}, {3, 0}}, 0, false},
		{"one rater", [][]int{{1, 0}, {0, 1}}, 0, false},
		{"uneven raters", [][]int{{2, 0}, {1, 0}}, 0, false},
		{"no items", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FleissKappa(tt.counts)
			if ok != tt.ok || math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("FleissKappa = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestPairwiseAgreement(t *testing.T) {
	for _, tt := range []struct {
		counts []int
		want   float64
	}{
		{[]int{3, 0}, 1}, {[]int{2, 1}, 1.0 / 3}, {[]int{1, 1}, 0}, {[]int{0, 14, 0}, 1}, {[]int{1, 0}, 1},
	} {
		if got := PairwiseAgreement(tt.counts); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PairwiseAgreement(%v) = %v, want %v", tt.counts, got, tt.want)
		}
	}
}

func TestVarianceShares(t *testing.T) {
	tests := []struct {
		name          string
		outcomes      [][]float64
		agent, judges float64
	}{
		{"judges agree, conversations differ", [][]float64{{1, 1, 1}, {0, 0, 0}}, 1, 0},
		{"judges split every conversation alike", [][]float64{{1, 0}, {1, 0}}, 0, 1},
		// Grand mean 1/2, row means 2/3 and 1/3: between 2*3*(1/6)^2 = 1/6;
		// within each row 2*(1/3)^2 + (2/3)^2 = 2/3, 4/3 in all.
		{"mixed", [][]float64{{1, 1, 0}, {0, 0, 1}}, (1.0 / 6) / (1.0/6 + 4.0/3), (4.0 / 3) / (1.0/6 + 4.0/3)},
		{"no variance", [][]float64{{1, 1}, {1, 1}}, 0, 0},
		{"nothing", nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, j := VarianceShares(tt.outcomes)
			if math.Abs(a-tt.agent) > 1e-12 || math.Abs(j-tt.judges) > 1e-12 {
				t.Errorf("VarianceShares = %v, %v; want %v, %v", a, j, tt.agent, tt.judges)
			}
		})
	}
}
