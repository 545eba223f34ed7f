// Package tau2test finds tau2-bench's domain data for tests. The data is
// never part of proctor: CI and developers have it in shared/tau2 beside the
// checkout, wherever PROCTOR_TAU2_DATA points, or where `proctor domains
// install tau2` put it.
//
// Usage:
//
//	dir := tau2test.Dir(t, "airline") // skips the test when there is no data, fails under CI
package tau2test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proctor-eval/proctor/domains/tau2/install"
)

// SkipsEnvVar names a file to which each test skipped for want of data
// adds a line (its name and the domain), so that `make test` can say at
// its end how many were skipped and how to get the data.
const SkipsEnvVar = "PROCTOR_TAU2_SKIPS"

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
		noteSkip(tb.Name(), domain)
		tb.Skip(msg)
	}
	return dir
}

// noteSkip adds a line to the file SkipsEnvVar names, if it names one.
// Test processes run in parallel: each line is one append.
func noteSkip(test, domain string) {
	path := os.Getenv(SkipsEnvVar)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(test + "\t" + domain + "\n")
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
// callers that can do without the data (a fuzz target's seed corpus): under
// PROCTOR_TAU2_DATA when set, else in shared/tau2 beside the checkout, else
// in the copy `proctor domains install tau2` made.
func Find(domain string) (string, bool) {
	if root := os.Getenv(EnvVar); root != "" {
		return exists(filepath.Join(root, domain))
	}
	dir, ok := exists(filepath.Join(besideCheckout(), domain))
	if ok {
		return dir, true
	}
	if root, err := install.DefaultDir(); err == nil {
		if installed, ok := exists(filepath.Join(root, domain)); ok {
			return installed, true
		}
	}
	return dir, false
}

// exists returns dir and whether it exists.
func exists(dir string) (string, bool) {
	_, err := os.Stat(dir)
	return dir, err == nil
}
