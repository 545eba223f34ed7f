package metric

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRougeMatchesReference compares every score with the one
// tRPC-Agent-Go's ROUGE criterion (v1.10.0) gave for the same texts:
// testdata/rouge_reference.json was written by running it on word families
// that exercise each Porter rule and on random sentences, for rouge1..3,
// rougeL and rougeLsum, stemmed and not.
func TestRougeMatchesReference(t *testing.T) {
	raw, err := os.ReadFile("testdata/rouge_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Type, Target, Pred string
		Stem               bool
		P, R, F            float64
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, c := range cases {
		got, err := computeRouge(c.Type, c.Target, c.Pred, c.Stem)
		if err != nil {
			t.Fatalf("%s(%q, %q): %v", c.Type, c.Target, c.Pred, err)
		}
		if math.Abs(got.precision-c.P) > 1e-12 || math.Abs(got.recall-c.R) > 1e-12 || math.Abs(got.f-c.F) > 1e-12 {
			if bad++; bad <= 10 {
				t.Errorf("%s stem=%v target %q pred %q: got p=%v r=%v f=%v, reference p=%v r=%v f=%v",
					c.Type, c.Stem, c.Target, c.Pred, got.precision, got.recall, got.f, c.P, c.R, c.F)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d scores differ from the reference", bad, len(cases))
	}
}

func TestPorterStem(t *testing.T) {
	// Stems NLTK's PorterStemmer gives (NLTK_EXTENSIONS mode).
	want := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "tie", "cats": "cat", "feed": "feed", "agreed": "agre",
		"plastered": "plaster", "motoring": "motor", "sing": "sing", "conflated": "conflat", "troubled": "troubl",
		"sized": "size", "hopping": "hop", "falling": "fall", "hissing": "hiss", "filing": "file", "happy": "happi",
		"relational": "relat", "conditional": "condit", "generalization": "gener", "electrical": "electr",
		"hopeful": "hope", "goodness": "good", "adjustment": "adjust", "adoption": "adopt", "controlling": "control",
		"skies": "sky", "dying": "die", "news": "news", "running": "run", "cries": "cri", "spied": "spi",
		"archaeology": "archaeolog", "generously": "gener", "computational": "comput",
	}
	got := map[string]string{}
	for w := range want {
		got[w] = porterStem(w)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stems (-want +got):\n%s", d)
	}
}
