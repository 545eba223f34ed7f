package report

import "testing"

// TestReadableReason: empty invocation reasons in tRPC-Agent-Go's joined
// reason are left out when shown.
func TestReadableReason(t *testing.T) {
	for in, want := range map[string]string{
		"0 tool calls, expected 1;;": "0 tool calls, expected 1",
		";a;;b;":                     "a; b",
		"":                           "",
		"one":                        "one",
	} {
		if got := readableReason(in); got != want {
			t.Errorf("ReadableReason(%q) = %q, want %q", in, got, want)
		}
	}
}
