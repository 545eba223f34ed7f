package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// importedID is the evaluation id proctor import announces on stderr.
func importedID(t *testing.T, r cliResult) string {
	t.Helper()
	m := regexp.MustCompile(`into evaluation (\S+)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no evaluation id in stderr:\n%s", r.stderr)
	}
	return m[1]
}

func wantIn(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s has no %q:\n%s", what, w, clip(out))
		}
	}
}

// TestImportTauBench imports tau-bench's published gpt-4o airline run and
// finds its noise floor (tau-bench #57's figures) in every view: the
// import's own output, proctor results, show, and the viewer's page.
func TestImportTauBench(t *testing.T) {
	db := tempDB(t)
	fixture := filepath.Join("..", "..", "importer", "testdata", "tau-bench", "gpt-4o-airline.json.gz")
	r := mustCLI(t, exitOK, "import", "--db", db, fixture)
	id := importedID(t, r)
	figures := []string{"26 of 50 tasks (52%) neither always pass nor always fail; ICC(1) 0.405", "pass^1 0.420 0.440 0.400 0.420 (spread 0.040)",
		"k=1 0.420  k=2 0.273  k=3 0.220  k=4 0.200"}
	wantIn(t, "import output", r.stdout, append(figures, "imported  ", "tau-bench: "+fixture)...)
	wantIn(t, "results list", mustCLI(t, exitOK, "results", "--db", db).stdout, "import", "gpt-4o-airline")
	wantIn(t, "show", mustCLI(t, exitOK, "show", "--db", db, id).stdout, figures...)
	wantIn(t, "markdown", mustCLI(t, exitOK, "results", "--db", db, id, "--format", "markdown").stdout,
		"| flips | 26 of 50 tasks (52%)", "Imported from tau-bench")
	wantIn(t, "viewer page", mustCLI(t, exitOK, "results", "--db", db, id, "--format", "html").stdout,
		`id="reliability"`, "ICC(1) 0.405", `id="imported"`)
	var eval map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, exitOK, "results", "--db", db, id, "--format", "json").stdout), &eval); err != nil {
		t.Fatal(err)
	}
	if got := num(t, eval, "summary.reliability.icc1"); got != 0.404584 {
		t.Errorf("results JSON summary.reliability.icc1 = %v, want 0.404584", got)
	}
}

// TestImportCompareInconclusive exports an import as tau2's results.json,
// takes one pass away, imports that, and compares: the drop of 0.005 is
// beyond a tolerance of 0.001 but far below what 50 tasks x 4 trials can
// detect, so the gate says inconclusive (exit 6), not regression.
func TestImportCompareInconclusive(t *testing.T) {
	db := tempDB(t)
	fixture := filepath.Join("..", "..", "importer", "testdata", "tau-bench", "gpt-4o-airline.json.gz")
	a := importedID(t, mustCLI(t, exitOK, "import", "--db", db, fixture))
	var res map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, exitOK, "results", "--db", db, a, "--format", "tau2").stdout), &res); err != nil {
		t.Fatal(err)
	}
	for _, s := range res["simulations"].([]any) {
		ri := s.(map[string]any)["reward_info"].(map[string]any)
		if ri["reward"] == 1.0 {
			ri["reward"] = 0.0
			break
		}
	}
	worse := filepath.Join(t.TempDir(), "results.json")
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(worse, data, 0o600); err != nil {
		t.Fatal(err)
	}
	b := importedID(t, mustCLI(t, exitOK, "import", "--db", db, worse))
	r := mustCLI(t, exitInconclusive, "compare", "--db", db, a, b, "--fail-on-regression", "0.001")
	wantIn(t, "compare", r.stdout, "INCONCLUSIVE", "minimum detectable difference", "inconclusive: delta pass^1 -0.005")
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "x.json")
	if err := os.WriteFile(notJSON, []byte(`"runs"`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{filepath.Join(dir, "none.json")}, "no such file"},
		{"neither format", []string{notJSON}, "not a tau2-bench results.json"},
		{"directory without results.json", []string{dir}, "a directory must hold tau2's results.json"},
		{"bad format", []string{notJSON, "--format", "html"}, "--format \"html\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustCLI(t, exitUsage, append([]string{"import", "--db", tempDB(t)}, tt.args...)...)
			wantIn(t, "stderr", r.stderr, tt.want)
		})
	}
}
