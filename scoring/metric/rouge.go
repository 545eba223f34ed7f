package metric

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
)

// rougeScore is a ROUGE precision, recall and F-measure.
type rougeScore struct{ precision, recall, f float64 }

func newRougeScore(hits, predicted, reference int) rougeScore {
	p := float64(hits) / float64(max(predicted, 1))
	r := float64(hits) / float64(max(reference, 1))
	s := rougeScore{precision: p, recall: r}
	if p+r > 0 {
		s.f = 2 * p * r / (p + r)
	}
	return s
}

// rougeTokens tokenizes as Google's rouge_score does (and tRPC-Agent-Go
// after it): lower case, runs of ASCII letters and digits, tokens longer
// than three letters Porter-stemmed when asked.
func rougeTokens(text string, stem bool) []string {
	text = strings.ToLower(text)
	var tokens []string
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && isAlnum(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			tok := text[start:i]
			if stem && len(tok) > 3 {
				tok = porterStem(tok)
			}
			if tok != "" {
				tokens = append(tokens, tok)
			}
			start = -1
		}
	}
	return tokens
}

func isAlnum(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

// rougeN scores the n-gram overlap of a prediction with a reference.
func rougeN(reference, prediction []string, n int) rougeScore {
	if len(reference) == 0 || len(prediction) == 0 {
		return rougeScore{}
	}
	ref, refTotal := ngrams(reference, n)
	pred, predTotal := ngrams(prediction, n)
	hits := 0
	for g, c := range ref {
		hits += min(c, pred[g])
	}
	return newRougeScore(hits, predTotal, refTotal)
}

func ngrams(tokens []string, n int) (map[string]int, int) {
	out := map[string]int{}
	total := 0
	for i := 0; i+n <= len(tokens); i++ {
		out[strings.Join(tokens[i:i+n], "\x00")]++
		total++
	}
	return out, total
}

// rougeL scores the longest common subsequence of the token lists.
func rougeL(reference, prediction []string) rougeScore {
	if len(reference) == 0 || len(prediction) == 0 {
		return rougeScore{}
	}
	return newRougeScore(lcsTable(reference, prediction)[len(reference)][len(prediction)], len(prediction), len(reference))
}

// lcsTable is the dynamic-programming table of longest common subsequence
// lengths of every prefix pair.
func lcsTable(a, b []string) [][]int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				t[i][j] = t[i-1][j-1] + 1
			case t[i-1][j] >= t[i][j-1]:
				t[i][j] = t[i-1][j]
			default:
				t[i][j] = t[i][j-1]
			}
		}
	}
	return t
}

// lcsIndices returns the indices into a of one longest common subsequence,
// walking back as rouge_score does.
func lcsIndices(a, b []string) []int {
	t := lcsTable(a, b)
	var idx []int
	for i, j := len(a), len(b); i > 0 && j > 0; {
		switch {
		case a[i-1] == b[j-1]:
			idx = append(idx, i-1)
			i, j = i-1, j-1
		case t[i][j-1] > t[i-1][j]:
			j--
		default:
			i--
		}
	}
	sort.Ints(idx)
	return idx
}

// rougeLsum scores summary-level LCS: each reference sentence's union LCS
// with the prediction's sentences, each token counted at most as often as
// it occurs on both sides.
func rougeLsum(reference, prediction [][]string) rougeScore {
	m, n := 0, 0
	refCount, predCount := map[string]int{}, map[string]int{}
	for _, s := range reference {
		m += len(s)
		for _, t := range s {
			refCount[t]++
		}
	}
	for _, s := range prediction {
		n += len(s)
		for _, t := range s {
			predCount[t]++
		}
	}
	if m == 0 || n == 0 {
		return rougeScore{}
	}
	hits := 0
	for _, r := range reference {
		union := map[int]bool{}
		for _, p := range prediction {
			for _, i := range lcsIndices(r, p) {
				union[i] = true
			}
		}
		idx := make([]int, 0, len(union))
		for i := range union {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			if t := r[i]; refCount[t] > 0 && predCount[t] > 0 {
				hits++
				refCount[t]--
				predCount[t]--
			}
		}
	}
	return newRougeScore(hits, n, m)
}

// summarySentences splits a summary into its non-empty lines (rougeLsum
// without splitSummaries), tokenized.
func summarySentences(text string, stem bool) [][]string {
	var out [][]string
	for _, line := range strings.Split(text, "\n") {
		if line != "" {
			out = append(out, rougeTokens(line, stem))
		}
	}
	return out
}

// parseRougeType returns n for "rougeN", 0 for rougeL and -1 for rougeLsum.
func parseRougeType(t string) (int, error) {
	switch t {
	case "rougeL":
		return 0, nil
	case "rougeLsum":
		return -1, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(t, "rouge"))
	if !strings.HasPrefix(t, "rouge") || err != nil || n <= 0 || strings.TrimPrefix(t, "rouge") != strconv.Itoa(n) {
		return 0, fmt.Errorf("rougeType %q is not rouge1..rougeN, rougeL or rougeLsum", t)
	}
	return n, nil
}

// computeRouge scores a prediction against a reference by one ROUGE type.
func computeRouge(rougeType string, reference, prediction string, stem bool) (rougeScore, error) {
	n, err := parseRougeType(rougeType)
	if err != nil {
		return rougeScore{}, err
	}
	switch {
	case n > 0:
		return rougeN(rougeTokens(reference, stem), rougeTokens(prediction, stem), n), nil
	case n == 0:
		return rougeL(rougeTokens(reference, stem), rougeTokens(prediction, stem)), nil
	}
	return rougeLsum(summarySentences(reference, stem), summarySentences(prediction, stem)), nil
}

// matchRouge applies a ROUGE criterion: every threshold (precision, recall,
// F1) must be reached. It returns "" on a match, else the scores.
func matchRouge(c *evalset.RougeCriterion, expected, actual string) string {
	if c.Ignore {
		return ""
	}
	s, err := computeRouge(c.RougeType, expected, actual, c.UseStemmer)
	if err != nil {
		return err.Error()
	}
	if s.precision >= c.Threshold.Precision && s.recall >= c.Threshold.Recall && s.f >= c.Threshold.F1 {
		return ""
	}
	measure := c.Measure
	if measure == "" {
		measure = evalset.RougeF1
	}
	value := map[evalset.RougeMeasure]float64{evalset.RougeF1: s.f, evalset.RougePrecision: s.precision, evalset.RougeRecall: s.recall}[measure]
	return fmt.Sprintf("%s %s=%.6f precision=%.6f recall=%.6f f1=%.6f", c.RougeType, measure, value, s.precision, s.recall, s.f)
}

// checkRouge validates a ROUGE criterion.
func checkRouge(c *evalset.RougeCriterion) error {
	if c == nil || c.Ignore {
		return nil
	}
	if c.RougeType == "" {
		return fmt.Errorf("rouge: set rougeType (rouge1, rouge2, rougeL or rougeLsum)")
	}
	if _, err := parseRougeType(c.RougeType); err != nil {
		return fmt.Errorf("rouge: %w", err)
	}
	switch c.Measure {
	case "", evalset.RougeF1, evalset.RougePrecision, evalset.RougeRecall:
	default:
		return fmt.Errorf("rouge: measure %q is not one of f1, precision, recall", c.Measure)
	}
	if c.TokenizerName != "" {
		return fmt.Errorf("rouge: tokenizerName %q names a Go tokenizer registered in tRPC-Agent-Go code; proctor cannot run it: remove it", c.TokenizerName)
	}
	if c.SplitSummaries && c.RougeType == "rougeLsum" {
		return fmt.Errorf("rouge: splitSummaries (Punkt sentence splitting) is not supported: split the summaries by newlines instead")
	}
	return nil
}
