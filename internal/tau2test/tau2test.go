// Package tau2test finds tau2-bench's domain data for tests. The data is
// never part of proctor: CI and developers have it in shared/tau2 beside the
// checkout, or wherever PROCTOR_TAU2_DATA points.
//
// Usage:
//
//	dir := tau2test.Dir(t, "airline") // skips the test when there is no data, fails under CI
package tau2test

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the directory that holds the domains' data (its airline/,
// retail/... subdirectories), as proctor itself reads it.
const EnvVar = "PROCTOR_TAU2_DATA"

// Dir returns the data directory of a domain. Without data the test is
// skipped, except when the CI environment variable is set: CI must run it.
func Dir(tb testing.TB, domain string) string {
	tb.Helper()
	dir, ok := Find(domain)
	if !ok {
		msg := "tau2 " + domain + " data not found at " + dir + "; set " + EnvVar + " to the directory holding " + domain + "/"
		if os.Getenv("CI") != "" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return dir
}

// besideCheckout is shared/tau2 next to the module root, found by walking
// up from the test's directory to go.mod.
func besideCheckout() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "tau2")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Find returns the data directory of a domain and whether it exists, for
// callers that can do without the data (a fuzz target's seed corpus).
func Find(domain string) (string, bool) {
	root := os.Getenv(EnvVar)
	if root == "" {
		root = besideCheckout()
	}
	dir := filepath.Join(root, domain)
	_, err := os.Stat(dir)
	return dir, err == nil
}
