package knowledge

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/internal/llmtest"
)

// fixtureVector is the fake embeddings endpoint's vector for the dense
// fixture, by model: "*-wide" spreads llmtest.Embedding over 3072
// dimensions (text-embedding-3-large's), exactly in float32, so norms take
// numpy's pairwise path; any other model is llmtest.Embedding.
func fixtureVector(model, text string) []float64 {
	v := llmtest.Embedding(text)
	if !strings.HasSuffix(model, "-wide") {
		return v
	}
	wide := make([]float64, 3072)
	for j := range wide {
		wide[j] = v[j%len(v)] * (1 + float64(j/len(v))/64)
	}
	return wide
}

// fixtureScript answers embeddings requests with fixtureVector.
func fixtureScript(r llmtest.Request) llmtest.Reply {
	vs := make([][]float64, len(r.Input))
	for i, text := range r.Input {
		vs[i] = fixtureVector(r.Model, text)
	}
	return llmtest.Reply{Embeddings: vs}
}

// TestServeFakeEmbeddings is not a test: gen_dense_fixture.py runs it to
// point tau2's embedders at the same fake endpoint the tests use. With
// KNOWLEDGE_FAKE_EMBEDDINGS set to a file name it serves until that file
// is removed (at most ten minutes), having written its base URL there.
func TestServeFakeEmbeddings(t *testing.T) {
	path := os.Getenv("KNOWLEDGE_FAKE_EMBEDDINGS")
	if path == "" {
		t.Skip("serves the fake embeddings endpoint for gen_dense_fixture.py only")
	}
	srv := llmtest.NewOpenAI(t, fixtureScript)
	if err := os.WriteFile(path, []byte(srv.URL), 0o600); err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Minute)
	for {
		select {
		case <-deadline:
			t.Fatal("gen_dense_fixture.py did not finish in ten minutes")
		case <-tick.C:
		}
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return
		}
	}
}
