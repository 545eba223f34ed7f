package knowledge

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BM25Okapi's parameters, as tau2 leaves them (rank_bm25's defaults).
const (
	bm25K1      = 1.5
	bm25B       = 0.75
	bm25Epsilon = 0.25
)

// bm25Index is rank_bm25's BM25Okapi over the documents' content,
// tokenized as tau2 does: text.lower().split(). Every floating-point
// operation is rank_bm25's, in its order, each rounded on its own (no
// fused multiply-add), so that scores and ties equal numpy's.
type bm25Index struct {
	terms    map[string]int32 // term -> index into idf and postings
	idf      []float64
	postings [][]posting
	norm     []float64 // per document: k1 * (1 - b + b * len / avgdl)
	average  float64   // rank_bm25's average_idf
}

// posting is one document holding a term, and how often.
type posting struct {
	doc int32
	tf  float64
}

func newBM25(docs []Document) *bm25Index {
	ix := &bm25Index{terms: make(map[string]int32)}
	lengths := make([]int, len(docs))
	df := []int{} // documents per term, in order of first appearance (rank_bm25's nd)
	total := 0
	for d, doc := range docs {
		tokens := pyFields(pyLower(doc.Content))
		lengths[d] = len(tokens)
		total += len(tokens)
		for _, tp := range termFrequencies(tokens) {
			t, ok := ix.terms[tp.term]
			if !ok {
				t = int32(len(df))
				ix.terms[tp.term] = t
				df = append(df, 0)
				ix.postings = append(ix.postings, nil)
			}
			df[t]++
			ix.postings[t] = append(ix.postings[t], posting{doc: int32(d), tf: float64(tp.n)})
		}
	}
	ix.setIDF(len(docs), df)
	avgdl := float64(total) / float64(len(docs))
	ix.norm = make([]float64, len(docs))
	for d, n := range lengths {
		ix.norm[d] = bm25K1 * float64(float64(1-bm25B)+float64(float64(bm25B*float64(n))/avgdl))
	}
	return ix
}

// setIDF is BM25Okapi._calc_idf: log(N - df + 0.5) - log(df + 0.5), summed
// in first-appearance order for the average; a negative idf (a term in
// more than half the documents) becomes epsilon times the average.
func (ix *bm25Index) setIDF(n int, df []int) {
	ix.idf = make([]float64, len(df))
	logs := make(map[float64]float64) // crLog memo: few distinct arguments
	log := func(x float64) float64 {
		if y, ok := logs[x]; ok {
			return y
		}
		y := crLog(x)
		logs[x] = y
		return y
	}
	sum := 0.0
	var negative []int
	for t, f := range df {
		idf := log(float64(n-f)+0.5) - log(float64(f)+0.5)
		ix.idf[t] = idf
		sum += idf
		if idf < 0 {
			negative = append(negative, t)
		}
	}
	ix.average = sum / float64(len(df))
	eps := float64(bm25Epsilon * ix.average)
	for _, t := range negative {
		ix.idf[t] = eps
	}
}

type termCount struct {
	term string
	n    int
}

// termFrequencies counts a document's tokens, in order of first appearance.
func termFrequencies(tokens []string) []termCount {
	at := make(map[string]int, len(tokens))
	var out []termCount
	for _, tok := range tokens {
		i, ok := at[tok]
		if !ok {
			i = len(out)
			at[tok] = i
			out = append(out, termCount{term: tok})
		}
		out[i].n++
	}
	return out
}

// scores is BM25Okapi.get_scores of a tokenized query: each token, repeats
// included, adds idf * tf*(k1+1) / (tf + norm) to the documents holding it
// (the others gain an exact zero, which changes nothing).
func (ix *bm25Index) scores(tokens []string, out []float64) {
	for _, tok := range tokens {
		t, ok := ix.terms[tok]
		if !ok || ix.idf[t] == 0 {
			continue
		}
		idf := ix.idf[t]
		for _, p := range ix.postings[t] {
			frac := float64(float64(p.tf*(bm25K1+1)) / float64(p.tf+ix.norm[p.doc]))
			out[p.doc] += float64(idf * frac)
		}
	}
}

// Hit is one ranked document: its id and score.
type Hit struct {
	ID    string
	Score float64
}

// BM25 ranks the documents for query as tau2's BM25Retriever does: an
// empty or blank query finds nothing; otherwise the top min(topK, n)
// documents by score, ties in the base's order, zero scores included.
func (b *Base) BM25(query string, topK int) []Hit {
	if strings.TrimFunc(query, pyIsSpace) == "" {
		return nil
	}
	scores := make([]float64, len(b.docs))
	b.bm25.scores(pyFields(pyLower(query)), scores)
	return b.top(scores, min(topK, len(b.docs)))
}

// top returns the n best documents by score, as Python's stable
// sorted(..., reverse=True)[:n] orders them (ties by position). A negative
// n is Python's slice end: all but the last -n.
func (b *Base) top(scores []float64, n int) []Hit {
	n = pySliceEnd(len(scores), n)
	var order []int32
	if n <= 16 {
		order = topFew(scores, n)
	} else {
		order = make([]int32, len(scores))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(x, y int32) int { return compareScores(scores, x, y) })
		order = order[:n]
	}
	hits := make([]Hit, len(order))
	for i, d := range order {
		hits[i] = Hit{ID: b.docs[d].ID, Score: scores[d]}
	}
	return hits
}

// compareScores orders documents by descending score, then position.
func compareScores(scores []float64, x, y int32) int {
	switch {
	case scores[x] > scores[y]:
		return -1
	case scores[x] < scores[y]:
		return 1
	}
	return int(x - y)
}

// topFew selects the n best documents by insertion into a short sorted
// list: a document enters only if it beats the last, so ties keep their
// positions' order.
func topFew(scores []float64, n int) []int32 {
	best := make([]int32, 0, n+1)
	for d := range scores {
		doc := int32(d)
		if len(best) == n && (n == 0 || compareScores(scores, doc, best[n-1]) >= 0) {
			continue
		}
		i, _ := slices.BinarySearchFunc(best, doc, func(e, t int32) int { return compareScores(scores, e, t) })
		best = slices.Insert(best, i, doc)
		if len(best) > n {
			best = best[:n]
		}
	}
	return best
}

// pySliceEnd is where Python's seq[:n] ends for a sequence of length l.
func pySliceEnd(l, n int) int {
	if n < 0 {
		n += l
	}
	return max(0, min(n, l))
}

// pyIsSpace is Python's str.isspace for one character: Go's unicode.IsSpace
// plus the separators U+001C..U+001F.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyFields is Python's str.split() without arguments.
func pyFields(s string) []string { return strings.FieldsFunc(s, pyIsSpace) }

// pyLower is Python's str.lower(): Unicode lowercase with its one
// unconditional multi-character mapping (İ to i + combining dot) and the
// final sigma rule.
func pyLower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var sb strings.Builder
	sb.Grow(len(s))
	for i, r := range rs {
		switch r {
		case 'İ':
			sb.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(rs, i) {
				sb.WriteRune('ς')
			} else {
				sb.WriteRune('σ')
			}
		default:
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}

// finalSigma is Unicode's Final_Sigma condition, as CPython applies it: a
// cased letter before (case-ignorable characters skipped) and none after.
func finalSigma(rs []rune, i int) bool {
	before := false
	for j := i - 1; j >= 0; j-- {
		if !caseIgnorable(rs[j]) {
			before = cased(rs[j])
			break
		}
	}
	if !before {
		return false
	}
	for j := i + 1; j < len(rs); j++ {
		if !caseIgnorable(rs[j]) {
			return !cased(rs[j])
		}
	}
	return true
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

func caseIgnorable(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) ||
		r == '\'' || r == '.' || r == ':' || r == '·' || r == '\u2019'
}
