package scoring

// FleissKappa is Fleiss' kappa of a set of ratings: counts[i][k] is how
// many raters put item i in category k, and every item has the same number
// of raters, at least 2. It measures how far the raters agree beyond what
// chance would give from how often each category is used: 1 is perfect
// agreement, 0 no better than chance. ok is false when kappa is undefined:
// no items, fewer than 2 raters, items with different numbers of raters,
// or every rating in one category (chance agreement is then 1).
func FleissKappa(counts [][]int) (kappa float64, ok bool) {
	if len(counts) == 0 {
		return 0, false
	}
	raters := 0
	for _, c := range counts[0] {
		raters += c
	}
	if raters < 2 {
		return 0, false
	}
	totals := make([]float64, len(counts[0]))
	var observed float64
	for _, item := range counts {
		n := 0
		var pairs float64
		for k, c := range item {
			if k >= len(totals) || c < 0 {
				return 0, false
			}
			n += c
			totals[k] += float64(c)
			pairs += float64(c * (c - 1))
		}
		if n != raters {
			return 0, false
		}
		observed += pairs / float64(raters*(raters-1))
	}
	items := float64(len(counts))
	observed /= items
	var chance float64
	for _, t := range totals {
		p := t / (items * float64(raters))
		chance += p * p
	}
	if chance >= 1 {
		return 0, false
	}
	return (observed - chance) / (1 - chance), true
}

// PairwiseAgreement is the share of rater pairs that agree on an item
// whose ratings fall in categories as counts says (Fleiss' P_i): 1 when
// all agree. It is 1 for fewer than 2 raters.
func PairwiseAgreement(counts []int) float64 {
	n, pairs := 0, 0
	for _, c := range counts {
		n += c
		pairs += c * (c - 1)
	}
	if n < 2 {
		return 1
	}
	return float64(pairs) / float64(n*(n-1))
}

// VarianceShares splits the variance of outcomes[s][j], the outcome of
// conversation s under judge j (every row as long), into the share that
// lies between conversations (the agent's: its conversations differ) and
// the share within a conversation across judges (the judges': the same
// conversation graded differently). The shares sum to 1, or are both 0
// when the outcomes do not vary at all.
func VarianceShares(outcomes [][]float64) (agent, judge float64) {
	var sum float64
	n := 0
	for _, row := range outcomes {
		for _, y := range row {
			sum += y
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	mean := sum / float64(n)
	var between, within float64
	for _, row := range outcomes {
		if len(row) == 0 {
			continue
		}
		var rs float64
		for _, y := range row {
			rs += y
		}
		rm := rs / float64(len(row))
		between += float64(len(row)) * (rm - mean) * (rm - mean)
		for _, y := range row {
			within += (y - rm) * (y - rm)
		}
	}
	total := between + within
	if total == 0 {
		return 0, 0
	}
	return between / total, within / total
}
