package install_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/domains/tau2/install"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

// dataRoot is the directory holding the tau2 test data (airline/, retail/...).
func dataRoot(t *testing.T) string {
	t.Helper()
	var root string
	for _, d := range install.Domains() {
		root = filepath.Dir(tau2test.Dir(t, d))
	}
	return root
}

// embeddedGuidelines is rollout's copy of tau2's user simulator guidelines,
// the same bytes as tau2's (TestGuidelinesMatchEmbedded): the shared test
// data holds only data/tau2/domains.
var embeddedGuidelines = filepath.Join("..", "..", "..", "rollout", "tau2user")

// mirror serves the test data the way raw.githubusercontent.com serves
// tau2-bench at the pinned commit; override replaces the answer for some
// files (by their installation path). It returns the base URL to install
// from and a count of the requests served.
func mirror(t *testing.T, override map[string]http.HandlerFunc) (string, *atomic.Int64) {
	t.Helper()
	root := dataRoot(t)
	prefix := "/" + install.Repository + "/" + install.Commit + "/"
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		rest, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		path, file := rest, ""
		if name, ok := strings.CutPrefix(rest, "data/tau2/"+install.GuidelinesDir+"/"); ok {
			path, file = install.GuidelinesDir+"/"+name, filepath.Join(embeddedGuidelines, filepath.Base(name))
		} else if rest != install.LicenseFile {
			if path, ok = strings.CutPrefix(rest, "data/tau2/domains/"); !ok {
				http.NotFound(w, r)
				return
			}
		}
		if h := override[path]; h != nil {
			h(w, r)
			return
		}
		if strings.Contains(path, "..") {
			http.NotFound(w, r)
			return
		}
		if file == "" {
			file = filepath.Join(root, filepath.FromSlash(path))
		}
		http.ServeFile(w, r, file)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + prefix + "data/tau2/domains", &requests
}

// content returns the test data's copy of a file.
func content(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataRoot(t), filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func serveBytes(b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	}
}

func installTo(t *testing.T, base, dir string) (*install.Result, string, error) {
	t.Helper()
	var progress bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := install.Install(ctx, install.Options{BaseURL: base, Dir: dir, Progress: &progress, StallTimeout: 10 * time.Second})
	return res, progress.String(), err
}

// checkInstalled verifies every installed file against the built-in table
// and that nothing else (no staging directory) is left in dir.
func checkInstalled(t *testing.T, dir string) {
	t.Helper()
	for _, f := range install.Files() {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 || int64(len(b)) != f.Size {
			t.Errorf("%s: %d bytes sha256 %s, want %d bytes %s", f.Path, len(b), got, f.Size, f.SHA256)
		}
	}
	want := append([]string{install.LicenseFile, install.ManifestFile, install.GuidelinesDir}, install.Domains()...)
	slices.Sort(want)
	if got := entries(t, dir); !slices.Equal(got, want) {
		t.Errorf("%s holds %v, want %v", dir, got, want)
	}
	for _, d := range install.Domains() {
		top := map[string]bool{} // files, and banking_knowledge's directories
		for _, f := range install.Files() {
			if rest, ok := strings.CutPrefix(f.Path, d+"/"); ok {
				first, _, _ := strings.Cut(rest, "/")
				top[first] = true
			}
		}
		if got := entries(t, filepath.Join(dir, d)); len(got) != len(top) {
			t.Errorf("%s holds %v, want %d entries", d, got, len(top))
		}
	}
	var m struct {
		Commit string `json:"commit"`
		Files  []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	b, err := os.ReadFile(filepath.Join(dir, install.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Commit != install.Commit || len(m.Files) != len(install.Files()) {
		t.Errorf("%s: %v\n%s", install.ManifestFile, err, b)
	}
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// failure checks that an installation failed with an *install.Error naming
// path, and returns that file's error.
func failure(t *testing.T, err error, path string) (*install.Error, *install.FileError) {
	t.Helper()
	var ie *install.Error
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T), want *install.Error", err, err)
	}
	for _, fe := range ie.Failed {
		if fe.Path == path {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("message does not name %s: %v", path, err)
			}
			return ie, fe
		}
	}
	t.Fatalf("failed files %v, want %s among them: %v", ie.Failed, path, err)
	return nil, nil
}

func TestInstall(t *testing.T) {
	base, _ := mirror(t, nil)
	dir := filepath.Join(t.TempDir(), "tau2")
	res, progress, err := installTo(t, base, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Domains, install.Domains()) || res.Files != len(install.Files()) || res.Dir != dir {
		t.Errorf("result %+v", res)
	}
	checkInstalled(t, dir)
	for _, w := range []string{"airline/db.json", "telecom/tasks.json", "verified"} {
		if !strings.Contains(progress, w) {
			t.Errorf("progress does not mention %q:\n%s", w, progress)
		}
	}
}

func TestCorruptedFile(t *testing.T) {
	b := bytes.Clone(content(t, "retail/policy.md"))
	b[len(b)/2] ^= 0x20 // same size, one byte off
	base, _ := mirror(t, map[string]http.HandlerFunc{"retail/policy.md": serveBytes(b)})
	dir := t.TempDir()
	_, _, err := installTo(t, base, dir)
	ie, fe := failure(t, err, "retail/policy.md")
	sum := sha256.Sum256(b)
	if fe.Want != "2c9652afbce57d6e087768d37cda64d31c53d50b3e3225cfdb791bac66466467" || fe.Got != hex.EncodeToString(sum[:]) {
		t.Errorf("want %s got %s", fe.Want, fe.Got)
	}
	for _, w := range []string{fe.Want, fe.Got, "SHA-256 mismatch"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q: %v", w, err)
		}
	}
	if len(ie.Failed) != 1 || ie.NotTried != 0 {
		t.Errorf("failed %v, not tried %d: a wrong file must not stop the others being checked", ie.Failed, ie.NotTried)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("a failed install left %v", got)
	}
}

func TestInterruptedDownload(t *testing.T) {
	b := content(t, "airline/db.json")
	half := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b[:len(b)/2])
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler) // closes the connection mid-body
	}
	base, _ := mirror(t, map[string]http.HandlerFunc{"airline/db.json": half})
	dir := t.TempDir()
	_, _, err := installTo(t, base, dir)
	ie, _ := failure(t, err, "airline/db.json")
	if !strings.Contains(err.Error(), "interrupted after") {
		t.Errorf("message does not say the download was interrupted: %v", err)
	}
	if ie.NotTried == 0 {
		t.Errorf("the install went on after a broken download")
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("a failed install left %v", got)
	}
}

func TestMissingFile(t *testing.T) {
	base, _ := mirror(t, map[string]http.HandlerFunc{"telecom/tasks.json": http.NotFound})
	dir := t.TempDir()
	_, _, err := installTo(t, base, dir)
	_, fe := failure(t, err, "telecom/tasks.json")
	if fe.Status != http.StatusNotFound {
		t.Errorf("status %d", fe.Status)
	}
	for _, w := range []string{"HTTP 404", fe.URL, "nothing was changed", "mirrors"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q: %v", w, err)
		}
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("a failed install left %v", got)
	}
}

func TestStalledDownload(t *testing.T) {
	b := content(t, "mock/tasks.json")
	stall := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b[:100])
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	}
	base, _ := mirror(t, map[string]http.HandlerFunc{"mock/tasks.json": stall})
	dir := t.TempDir()
	_, err := install.Install(context.Background(), install.Options{BaseURL: base, Dir: dir, StallTimeout: 300 * time.Millisecond})
	failure(t, err, "mock/tasks.json")
	if !strings.Contains(err.Error(), "nothing received for 300ms") {
		t.Errorf("message does not say the download stalled: %v", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("a failed install left %v", got)
	}
}

func TestOversizedFile(t *testing.T) {
	b := append(bytes.Clone(content(t, "mock/policy.md")), "and more\n"...)
	chunked := func(w http.ResponseWriter, _ *http.Request) { // no Content-Length
		_, _ = w.Write(b[:10])
		http.NewResponseController(w).Flush()
		_, _ = w.Write(b[10:])
	}
	base, _ := mirror(t, map[string]http.HandlerFunc{"mock/policy.md": chunked})
	dir := t.TempDir()
	_, _, err := installTo(t, base, dir)
	failure(t, err, "mock/policy.md")
	if !strings.Contains(err.Error(), "more than the expected 278 bytes") {
		t.Errorf("message: %v", err)
	}

	// A file above the size limit is refused on its announced length.
	base, _ = mirror(t, nil)
	_, err = install.Install(context.Background(), install.Options{BaseURL: base, Dir: t.TempDir(), MaxFileBytes: 1 << 20})
	failure(t, err, "airline/db.json")
	if !strings.Contains(err.Error(), "over the limit of 1048576") {
		t.Errorf("message: %v", err)
	}
}

func TestReinstall(t *testing.T) {
	base, _ := mirror(t, nil)
	dir := t.TempDir()
	if _, _, err := installTo(t, base, dir); err != nil {
		t.Fatal(err)
	}
	// Damage the installation: a stray file and an edited one.
	if err := os.WriteFile(filepath.Join(dir, "airline", "stray.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mock", "policy.md"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := installTo(t, base, dir); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir) // the stray file went with the old copy

	// A failed reinstall leaves the working installation alone.
	bad, _ := mirror(t, map[string]http.HandlerFunc{"retail/db.json": http.NotFound})
	_, _, err := installTo(t, bad, dir)
	failure(t, err, "retail/db.json")
	checkInstalled(t, dir)
}

func TestBadBaseURL(t *testing.T) {
	for _, u := range []string{"ftp://example.com/x", "example.com/data", "http://"} {
		if _, err := install.Install(context.Background(), install.Options{BaseURL: u, Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "base URL") {
			t.Errorf("base URL %q: %v", u, err)
		}
	}
}

func TestFileURL(t *testing.T) {
	for _, c := range []struct{ base, path, want string }{
		{install.DefaultBaseURL, "airline/db.json", "https://raw.githubusercontent.com/sierra-research/tau2-bench/" + install.Commit + "/data/tau2/domains/airline/db.json"},
		{install.DefaultBaseURL, "LICENSE", "https://raw.githubusercontent.com/sierra-research/tau2-bench/" + install.Commit + "/LICENSE"},
		{"https://mirror.example/tau2/", "retail/tasks.json", "https://mirror.example/tau2/retail/tasks.json"},
		{"https://mirror.example/tau2", "LICENSE", "https://mirror.example/tau2/LICENSE"},
		{install.DefaultBaseURL, "user_simulator/simulation_guidelines.md", "https://raw.githubusercontent.com/sierra-research/tau2-bench/" + install.Commit + "/data/tau2/user_simulator/simulation_guidelines.md"},
		{"https://mirror.example/tau2", "user_simulator/simulation_guidelines.md", "https://mirror.example/tau2/user_simulator/simulation_guidelines.md"},
	} {
		if got := install.FileURL(c.base, c.path); got != c.want {
			t.Errorf("FileURL(%q, %q) = %q, want %q", c.base, c.path, got, c.want)
		}
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if d, err := install.DefaultDir(); err != nil || d != filepath.Join("/xdg", "proctor", "tau2") {
		t.Errorf("DefaultDir() = %q, %v", d, err)
	}
}

// TestTableMatchesManifest checks the built-in table against the data's
// manifest: every file it lists but the derived fixtures, with its size and
// SHA-256.
func TestTableMatchesManifest(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(dataRoot(t), "MANIFEST.md"))
	if err != nil {
		t.Skip(err)
	}
	want := bankingManifest(t)
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 7 { // | path | size | sha256 | blob | source |
			continue
		}
		path := strings.TrimSpace(cells[1])
		size, err := strconv.ParseInt(strings.TrimSpace(cells[2]), 10, 64)
		if err != nil || strings.HasPrefix(strings.TrimSpace(cells[5]), "derived fixture") {
			continue // proctor's test fixtures, not tau2's files
		}
		want = append(want, install.File{Path: path, Size: size, SHA256: strings.TrimSpace(cells[3])})
	}
	var got []install.File
	for _, f := range install.Files() {
		if !strings.HasPrefix(f.Path, install.GuidelinesDir+"/") { // not in data/tau2/domains: TestGuidelinesMatchEmbedded
			got = append(got, f)
		}
	}
	sortFiles := func(fs []install.File) {
		slices.SortFunc(fs, func(a, b install.File) int { return strings.Compare(a.Path, b.Path) })
	}
	sortFiles(want)
	sortFiles(got)
	if !slices.Equal(got, want) {
		t.Errorf("built-in table:\n%v\nmanifest:\n%v", got, want)
	}
}

// bankingManifest reads banking_knowledge's own manifest (| file | bytes |
// sha256 | git blob |): every file but the combined task lists, which
// tau2 does not read (it reads tasks/task_*.json).
func bankingManifest(t *testing.T) []install.File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataRoot(t), "banking_knowledge", "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []install.File
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 6 {
			continue
		}
		path := strings.TrimSpace(cells[1])
		size, err := strconv.ParseInt(strings.TrimSpace(cells[2]), 10, 64)
		if err != nil || path == "tasks.json" || path == "tasks_voice.json" {
			continue
		}
		out = append(out, install.File{Path: "banking_knowledge/" + path, Size: size, SHA256: strings.TrimSpace(cells[3])})
	}
	return out
}

// TestGuidelinesMatchEmbedded checks the table's user simulator guidelines
// against rollout's embedded copies, which are tau2-bench's bytes at Commit.
func TestGuidelinesMatchEmbedded(t *testing.T) {
	var n int
	for _, f := range install.Files() {
		name, ok := strings.CutPrefix(f.Path, install.GuidelinesDir+"/")
		if !ok {
			continue
		}
		n++
		b, err := os.ReadFile(filepath.Join(embeddedGuidelines, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 || int64(len(b)) != f.Size {
			t.Errorf("%s: embedded copy has %d bytes sha256 %s, table %d bytes %s", f.Path, len(b), got, f.Size, f.SHA256)
		}
	}
	if n != 2 {
		t.Errorf("table lists %d guideline files, want 2", n)
	}
}
