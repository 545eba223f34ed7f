package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/domains/tau2/install"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

// tau2Mirror serves the tau2 test data the way raw.githubusercontent.com
// serves tau2-bench at the pinned commit, and returns the base URL to
// install from. override replaces the answer for some files (by their path
// in the installation, "airline/db.json").
func tau2Mirror(t *testing.T, override map[string]http.HandlerFunc) string {
	t.Helper()
	var root string
	for _, d := range install.Domains() {
		root = filepath.Dir(tau2test.Dir(t, d))
	}
	prefix := "/" + install.Repository + "/" + install.Commit + "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, prefix)
		file := ""
		if name, isGuideline := strings.CutPrefix(rest, "data/tau2/"+install.GuidelinesDir+"/"); isGuideline {
			// The shared test data has only data/tau2/domains: rollout's
			// embedded copies are tau2's bytes.
			rest, file = install.GuidelinesDir+"/"+name, filepath.Join("..", "..", "rollout", "tau2user", filepath.Base(name))
		} else if rest != install.LicenseFile {
			rest, ok = strings.CutPrefix(rest, "data/tau2/domains/")
		}
		if !ok || strings.Contains(rest, "..") {
			http.NotFound(w, r)
			return
		}
		if h := override[rest]; h != nil {
			h(w, r)
			return
		}
		if file == "" {
			file = filepath.Join(root, filepath.FromSlash(rest))
		}
		http.ServeFile(w, r, file)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + prefix + "data/tau2/domains"
}

// noTau2Data makes sure no tau2 data is found but what a test installs:
// no PROCTOR_TAU2_DATA, and a user data directory of the test's own.
func noTau2Data(t *testing.T) {
	t.Setenv(catalog.EnvTau2Data, "")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
}

func TestTau2WithoutData(t *testing.T) {
	noTau2Data(t)
	r := mustCLI(t, exitOK, "domains")
	if strings.Contains(r.stdout, "airline") || !strings.Contains(r.stdout, "mock") {
		t.Errorf("domains without tau2 data:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "proctor domains install tau2") {
		t.Errorf("no hint about tau2's data on stderr:\n%s", r.stderr)
	}
	list := decodeArray(t, mustCLI(t, exitOK, "domains", "--format", "json").stdout)
	if len(list) != 1 {
		t.Errorf("domains --format json: %v", list)
	}
	for _, args := range [][]string{
		{"domains", "airline"},
		{"run", "--domain", "retail", "--db", tempDB(t)},
	} {
		r := mustCLI(t, exitUsage, args...)
		for _, w := range []string{"tau2-bench", "proctor domains install tau2", "--tau2-data"} {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("proctor %s: stderr lacks %q:\n%s", strings.Join(args, " "), w, r.stderr)
			}
		}
	}
	r = mustCLI(t, exitUsage, "domains", "--tau2-data", filepath.Join(t.TempDir(), "nope"))
	if !strings.Contains(r.stderr, "--tau2-data") {
		t.Errorf("a --tau2-data that does not exist:\n%s", r.stderr)
	}
}

func TestTau2InstallAndUse(t *testing.T) {
	noTau2Data(t)
	base := tau2Mirror(t, nil)
	dir := filepath.Join(t.TempDir(), "tau2")

	r := mustCLI(t, exitOK, "domains", "install", "tau2", "--base-url", base, "--dir", dir)
	if !strings.Contains(r.stdout, "installed") || !strings.Contains(r.stdout, dir) || !strings.Contains(r.stdout, "--tau2-data "+dir) {
		t.Errorf("install said:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "airline/db.json") {
		t.Errorf("no progress on stderr for the large files:\n%s", r.stderr)
	}
	for _, name := range []string{"simulation_guidelines.md", "simulation_guidelines_tools.md"} {
		got, err := os.ReadFile(filepath.Join(dir, install.GuidelinesDir, name))
		if err != nil {
			t.Fatalf("the user simulator's guidelines are not installed: %v", err)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "rollout", "tau2user", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("installed %s differs from tau2's", name)
		}
	}

	r = mustCLI(t, exitOK, "domains", "--tau2-data", dir)
	// Columns are padded to the longest name: compare with runs of spaces
	// folded to one.
	folded := strings.Join(strings.Fields(r.stdout), " ")
	for _, w := range []string{
		"airline 50 (base 50, train 30, test 20)",
		"retail 114 (base 114, train 74, test 40)",
		"mock 17 ",
		"tau2-mock 10 (base 10)",
		"telecom 114 (base 114, train 74, test 40, full 2285, small 20)",
		"banking_knowledge 97 (base 97)",
	} {
		if !strings.Contains(folded, w) {
			t.Errorf("domains lacks %q:\n%s", w, r.stdout)
		}
	}
	list := decodeArray(t, mustCLI(t, exitOK, "domains", "--tau2-data", dir, "--format", "json").stdout)
	var names []string
	for _, d := range list {
		m := d.(map[string]any)
		names = append(names, str(t, m, "name"))
		if str(t, m, "name") == "retail" {
			if num(t, m, "num_tasks") != 114 || str(t, m, "default_split") != "base" || len(arr(t, m, "splits")) != 3 {
				t.Errorf("retail: %v", m)
			}
		}
	}
	if !slices.Equal(names, []string{"airline", "banking_knowledge", "mock", "retail", "tau2-mock", "telecom"}) {
		t.Errorf("domains %v", names)
	}
	r = mustCLI(t, exitOK, "domains", "airline", "--tau2-data", dir)
	if !strings.Contains(r.stdout, "splits: base 50, train 30, test 20") || !strings.Contains(r.stdout, "book_reservation") {
		t.Errorf("domains airline:\n%s", r.stdout)
	}

	// The scripted user cannot play tau2's tasks: a usage error, before the
	// database is even created.
	db := tempDB(t)
	for _, split := range []string{"", "train"} {
		args := []string{"run", "--domain", "airline", "--agent", "builtin", "--tau2-data", dir, "--db", db}
		want := "--domain airline (split base): the scripted user cannot play these tasks: none of the 50 has a script"
		if split != "" {
			args = append(args, "--split", split)
			want = "--domain airline (split train): the scripted user cannot play these tasks: none of the 30 has a script"
		}
		r = mustCLI(t, exitUsage, args...)
		if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "they need the LLM user simulator") {
			t.Errorf("proctor %s:\n%s", strings.Join(args, " "), r.stderr)
		}
	}
	// Telecom's too: its users act on their phones with tools.
	r = mustCLI(t, exitUsage, "run", "--domain", "telecom", "--agent", "builtin", "--tau2-data", dir, "--db", db)
	if !strings.Contains(r.stderr, "--domain telecom (split base): the scripted user cannot play these tasks: none of the 114 has a script") {
		t.Errorf("proctor run --domain telecom:\n%s", r.stderr)
	}
	r = mustCLI(t, exitOK, "domains", "telecom", "--tau2-data", dir)
	if !strings.Contains(r.stdout, "splits: base 114, train 74, test 40, full 2285, small 20") || !strings.Contains(r.stdout, "refuel_data") {
		t.Errorf("domains telecom:\n%s", r.stdout)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a rejected run created the database")
	}
	r = mustCLI(t, exitUsage, "run", "--domain", "mock", "--split", "train", "--db", db)
	if !strings.Contains(r.stderr, `--split "train": domain mock has no task splits`) {
		t.Errorf("mock with a split:\n%s", r.stderr)
	}
	r = mustCLI(t, exitUsage, "run", "--domain", "airline", "--split", "full", "--tau2-data", dir, "--db", db)
	if !strings.Contains(r.stderr, `--split "full": want one of base, train, test`) {
		t.Errorf("bad split:\n%s", r.stderr)
	}
	r = mustCLI(t, exitUsage, "agent", "--domain", "airline", "--tau2-data", dir)
	if !strings.Contains(r.stderr, "no rules for domain") {
		t.Errorf("agent --domain airline:\n%s", r.stderr)
	}

	// PROCTOR_TAU2_DATA finds it too.
	t.Setenv(catalog.EnvTau2Data, dir)
	if r := mustCLI(t, exitOK, "domains"); !strings.Contains(r.stdout, "retail") {
		t.Errorf("domains with %s set:\n%s", catalog.EnvTau2Data, r.stdout)
	}
}

func TestTau2InstallDefaultDir(t *testing.T) {
	noTau2Data(t)
	base := tau2Mirror(t, nil)
	r := mustCLI(t, exitOK, "domains", "install", "tau2", "--base-url", base)
	def, err := install.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.stdout, def) || strings.Contains(r.stdout, "--tau2-data") {
		t.Errorf("install to the default directory said:\n%s", r.stdout)
	}
	// Found without being told where.
	if r := mustCLI(t, exitOK, "domains"); !strings.Contains(r.stdout, "airline") || !strings.Contains(r.stdout, "retail") {
		t.Errorf("domains after install:\n%s", r.stdout)
	}
	// Installing again replaces the copy.
	if err := os.WriteFile(filepath.Join(def, "retail", "stray"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, exitOK, "domains", "install", "tau2", "--base-url", base)
	if _, err := os.Stat(filepath.Join(def, "retail", "stray")); err == nil {
		t.Error("reinstall kept a file of the previous copy")
	}
}

func TestTau2InstallFailures(t *testing.T) {
	noTau2Data(t)
	policy, err := os.ReadFile(filepath.Join(filepath.Dir(tau2test.Dir(t, "retail")), "retail", "policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	corrupt := []byte(strings.Replace(string(policy), "a", "A", 1))
	base := tau2Mirror(t, map[string]http.HandlerFunc{
		"retail/policy.md": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(corrupt)))
			_, _ = w.Write(corrupt)
		},
		"airline/db.json": http.NotFound,
	})
	dir := t.TempDir()
	r := mustCLI(t, exitFailure, "domains", "install", "tau2", "--base-url", base, "--dir", dir)
	for _, w := range []string{"retail/policy.md: SHA-256 mismatch: expected 2c9652afbce5", "airline/db.json: GET", "HTTP 404", "nothing was changed"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("a failed install left %v", es)
	}
	for _, args := range [][]string{
		{"domains", "install", "tau3"},
		{"domains", "install"},
		{"domains", "install", "tau2", "--base-url", "ftp://example.com/x"},
	} {
		mustCLI(t, exitUsage, args...)
	}
}
