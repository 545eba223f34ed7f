package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParsePrefixes reads --trusted-proxy values: addresses as prefixes of
// themselves alone, CIDR prefixes masked, anything else refused.
func TestParsePrefixes(t *testing.T) {
	got, err := parsePrefixes([]string{"10.0.0.7", " 10.1.2.3/8", "::1", "::ffff:192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.7/32", "10.0.0.0/8", "::1/128", "192.0.2.1/32"}
	var strs []string
	for _, p := range got {
		strs = append(strs, p.String())
	}
	if diff := cmp.Diff(want, strs); diff != "" {
		t.Errorf("prefixes (-want +got):\n%s", diff)
	}
	if _, err := parsePrefixes([]string{"proxy.internal"}); err == nil {
		t.Error("a host name was taken as a prefix")
	}
}
