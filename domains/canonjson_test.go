package domains

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hashByRoundTrip is HashJSON as it was before canonicalJSON: the value
// encoded, decoded into generic values and encoded again. Stored hashes
// were made with it.
func hashByRoundTrip(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	canon, err := roundTripJSON(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// counterLike is a database shaped as the counter test domain's.
type counterLike struct {
	Count int      `json:"count"`
	Log   []string `json:"log"`
}

// unsorted has fields declared out of key order, one with a JSON tag that
// sorts differently from its Go name, an embedded struct and raw JSON.
type unsorted struct {
	Zeta  string          `json:"zeta"`
	Alpha float64         `json:"alpha"`
	Mid   map[string]any  `json:"mid,omitempty"`
	Raw   json.RawMessage `json:"raw,omitempty"`
	Inner
}

// Inner is embedded in unsorted.
type Inner struct {
	B []any `json:"b"`
	A *bool `json:"a"`
}

// dupKeys encodes itself with a key twice, which the decoder resolves to
// the last.
type dupKeys struct{}

func (dupKeys) MarshalJSON() ([]byte, error) { return []byte(`{"k":1,"j":2,"k":3}`), nil }

// TestHashJSONMatchesRoundTrip checks that HashJSON's one-pass
// canonicalization gives exactly the bytes (and so the hashes) of the
// decode-and-encode round trip, on hand-picked values and on many random
// databases and edits of them.
func TestHashJSONMatchesRoundTrip(t *testing.T) {
	yes := true
	values := []any{
		nil, 0, -1.5e-7, "", "plain", "<a&b>", "quote\" back\\slash \n\t\x01", "é ü \u2028 \u2029 😀",
		string([]byte{'a', 0xff, 'b', 0xc3}), []any{}, map[string]any{},
		counterLike{}, counterLike{Count: 3, Log: []string{"add 3"}},
		map[string]any{"b": 1, "a": []any{1, "x"}, "A": nil, "é": 2, "<": 3, "": 4},
		unsorted{Zeta: "z", Alpha: 1, Raw: json.RawMessage(`{"y":"\u0041\/","x":[1e5,-0.0,"\ud83d\ude00"]}`), Inner: Inner{A: &yes}},
		unsorted{Raw: json.RawMessage("\"bad \xff utf8 \u2028\"")}, unsorted{Raw: json.RawMessage("{\"\xfe\":\"\xff\",\"a\":1}")},
		dupKeys{}, map[string]any{"outer": dupKeys{}},
		json.Number("12345678901234567890"),
		deep(1001), deep(40),
	}
	for i, v := range values {
		t.Run(fmt.Sprint(i), func(t *testing.T) { compareHashes(t, v) })
	}
	rng := rand.New(rand.NewPCG(26, 1))
	for i := range 3000 {
		db := randomValue(rng, 0)
		compareHashes(t, db)
		compareHashes(t, edit(rng, db))
		c := counterLike{Count: rng.IntN(100)}
		for range rng.IntN(5) {
			c.Log = append(c.Log, fmt.Sprintf("add %d", rng.IntN(10)))
		}
		compareHashes(t, c)
		if t.Failed() {
			t.Fatalf("stopped at random value %d", i)
		}
	}
}

// TestCanonicalJSONHandlesDatabases checks that the usual databases take
// the one pass, not the round trip, so that the comparison above tests it.
func TestCanonicalJSONHandlesDatabases(t *testing.T) {
	for _, v := range []any{
		counterLike{Count: 3, Log: []string{"add 3"}},
		unsorted{Zeta: "<z>", Mid: map[string]any{"q": "é", "p": []any{1.5}}},
		map[string]any{"b": map[string]any{"z": 1, "y": 2}, "a": 1},
	} {
		raw, _ := json.Marshal(v)
		if _, ok := canonicalJSON(raw); !ok {
			t.Errorf("%s: left to the round trip", raw)
		}
	}
	for _, v := range []any{dupKeys{}, deep(maxCanonicalDepth + 1)} {
		raw, _ := json.Marshal(v)
		if _, ok := canonicalJSON(raw); ok {
			t.Errorf("%.40s: handled, want the round trip", raw)
		}
	}
}

func compareHashes(t *testing.T, v any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want, wantErr := hashByRoundTrip(v)
	got, gotErr := HashJSON(v)
	if diff := cmp.Diff(want, got); diff != "" || (wantErr == nil) != (gotErr == nil) {
		canon, _ := canonicalJSON(raw)
		ref, _ := roundTripJSON(raw)
		t.Errorf("HashJSON(%.200s) (-round trip +one pass):\n%s\nerrors %v, %v\ncanonical %.200s\nwant      %.200s", raw, diff, wantErr, gotErr, canon, ref)
	}
}

func deep(n int) any {
	var v any = "leaf"
	for i := range n {
		if i%2 == 0 {
			v = []any{v}
		} else {
			v = map[string]any{"k": v}
		}
	}
	return v
}

func randomString(rng *rand.Rand) string {
	keyPieces := []string{"a", "b", "B", "id", "name", "é", "<", "&", "\u2028", " ", "\\", "\"", "z", "_", "0", "😀"}
	var b strings.Builder
	for range rng.IntN(4) {
		b.WriteString(keyPieces[rng.IntN(len(keyPieces))])
	}
	if rng.IntN(20) == 0 {
		b.WriteByte(byte(rng.IntN(256))) // control bytes and invalid UTF-8 too
	}
	return b.String()
}

func randomValue(rng *rand.Rand, depth int) any {
	n := rng.IntN(9)
	if depth > 4 {
		n = rng.IntN(5)
	}
	switch n {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return rng.NormFloat64() * 1e6
	case 3:
		return rng.IntN(1000) - 500
	case 4:
		return randomString(rng)
	case 5, 6:
		m := map[string]any{}
		for range rng.IntN(6) {
			m[randomString(rng)] = randomValue(rng, depth+1)
		}
		return m
	case 7:
		s := make([]any, rng.IntN(5))
		for i := range s {
			s[i] = randomValue(rng, depth+1)
		}
		return s
	default:
		u := unsorted{Zeta: randomString(rng), Alpha: float64(rng.IntN(10)), Inner: Inner{B: []any{randomValue(rng, depth+1)}}}
		if rng.IntN(2) == 0 {
			u.Mid = map[string]any{randomString(rng): randomValue(rng, depth+1)}
		}
		if rng.IntN(3) == 0 {
			u.Raw, _ = json.Marshal(randomValue(rng, depth+1))
			u.Raw = bytes.ReplaceAll(u.Raw, []byte(`"a`), []byte(`"\u0061`))
		}
		return u
	}
}

// edit changes one thing in a copy of v's JSON form, as a tool call would.
func edit(rng *rand.Rand, v any) any {
	raw, _ := json.Marshal(v)
	var g any
	_ = json.Unmarshal(raw, &g)
	switch m := g.(type) {
	case map[string]any:
		m[randomString(rng)] = randomValue(rng, 3)
		return m
	case []any:
		return append(m, randomValue(rng, 3))
	default:
		return map[string]any{"was": g, "now": randomValue(rng, 3)}
	}
}
