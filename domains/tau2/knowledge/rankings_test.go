package knowledge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/tau2test"
)

// testdata/rankings.json holds the rankings tau2's retrievers give over
// the real 698 documents (ids and scores only), made outside the repository
// by gen_fixture.py with the real rank_bm25 and Python's re:
//
//	git --git-dir=<mirror of dorianbrown/rank_bm25> archive 47aa3dd | tar -x -C rank_bm25
//	PYTHONPATH=rank_bm25 /usr/bin/python3 gen_fixture.py \
//	    ../shared/tau2/banking_knowledge/documents rankings.json
//
// with Debian 12's python3 3.11 and python3-numpy 1.24.2. The script reads
// the documents in sorted file-name order, builds BM25Okapi on
// [d["content"].lower().split() for d in docs], and runs, copied verbatim
// from tau2 a2c0247, BM25Retriever.retrieve (stable sorted(...,
// reverse=True)[:min(top_k, n)]), GrepRetriever.retrieve (re.compile with
// IGNORECASE, re.escape on re.error, len(findall) per document, stable
// sort, [:top_k]) and RetrievalPipeline.retrieve's merge, re-sort and
// [:k]. Each case records its query (or pattern), top_k, k and the hits:
// id, f"{score:.4f}" and the float itself ("raw"). Its 36 BM25 cases cover
// common words (negative idf floored at 0.25 x average idf: "the", "##",
// "account"), rare terms (a df=1 term fills the rest of the top 10 with
// score-0 documents), queries matching nothing, blank queries, Python's
// lower() and split() (İ, U+001C, NBSP), repeated tokens, k above, below
// and at zero, a negative k, and top_k overrides; its 29 grep cases
// Python-only syntax and invalid patterns.
type rankingsFixture struct {
	Documents  int        `json:"documents"`
	AverageIDF float64    `json:"average_idf"`
	BM25       []bm25Case `json:"bm25"`
	Grep       []grepCase `json:"grep"`
}

type bm25Case struct {
	Query string       `json:"query"`
	TopK  int          `json:"top_k"`
	K     *int         `json:"k"`
	Hits  []fixtureHit `json:"hits"`
}

type grepCase struct {
	Pattern       string       `json:"pattern"`
	CaseSensitive bool         `json:"case_sensitive"`
	Hits          []fixtureHit `json:"hits"`
}

type fixtureHit struct {
	ID    string  `json:"id"`
	Score string  `json:"score"`
	Raw   float64 `json:"raw"`
}

func loadRankings(t *testing.T) rankingsFixture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "rankings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f rankingsFixture
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// realBase loads the real documents once for the package's tests.
var realBase = sync.OnceValues(func() (*Base, error) {
	dir, _ := tau2test.Find("banking_knowledge")
	return Load(filepath.Join(dir, "documents"))
})

func testBase(t testing.TB) *Base {
	t.Helper()
	tau2test.Dir(t, "banking_knowledge")
	b, err := realBase()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// printed drops the raw floats: tau2's tools show scores to 4 decimals.
func printed(hits []fixtureHit) []fixtureHit {
	out := make([]fixtureHit, len(hits))
	for i, h := range hits {
		out[i] = fixtureHit{ID: h.ID, Score: h.Score}
	}
	return out
}

func asFixture(hits []Hit) []fixtureHit {
	out := make([]fixtureHit, len(hits))
	for i, h := range hits {
		out[i] = fixtureHit{ID: h.ID, Score: FormatScore(h.Score), Raw: h.Score}
	}
	return out
}

func TestBM25MatchesRankBM25(t *testing.T) {
	b := testBase(t)
	f := loadRankings(t)
	if b.Len() != f.Documents {
		t.Fatalf("%d documents, the fixture was made from %d", b.Len(), f.Documents)
	}
	if b.bm25.average != f.AverageIDF {
		t.Errorf("average idf %v, rank_bm25 %v", b.bm25.average, f.AverageIDF)
	}
	for _, c := range f.BM25 {
		hits := b.BM25(c.Query, c.TopK)
		if c.K != nil {
			hits = hits[:pySliceEnd(len(hits), *c.K)]
		}
		// The floats too: ties and near-ties order by them, so they must be
		// numpy's bit for bit (rank_bm25's operations, correctly rounded logs).
		if diff := gocmp.Diff(c.Hits, asFixture(hits)); diff != "" {
			t.Errorf("BM25(%q, top_k %d, k %v) (-rank_bm25 +proctor):\n%s", c.Query, c.TopK, c.K, diff)
		}
	}
}

func TestGrepMatchesPythonRe(t *testing.T) {
	b := testBase(t)
	for _, c := range loadRankings(t).Grep {
		hits, err := b.Grep(c.Pattern, 10, c.CaseSensitive)
		if err != nil {
			t.Errorf("Grep(%q): %v", c.Pattern, err)
			continue
		}
		if diff := gocmp.Diff(printed(c.Hits), printed(asFixture(hits))); diff != "" {
			t.Errorf("Grep(%q, case sensitive %v) (-python re +proctor):\n%s", c.Pattern, c.CaseSensitive, diff)
		}
	}
}
