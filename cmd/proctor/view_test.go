package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startCLI runs the program in the background until the test ends and
// returns the first URL it announces on stderr matching re.
func startCLI(t *testing.T, re string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &announceWriter{re: regexp.MustCompile(re), found: make(chan string, 1)}
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, io.Discard, stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != exitOK {
				t.Errorf("proctor %s exited %d after cancel\n%s", strings.Join(args, " "), code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Errorf("proctor %s did not stop when its context ended", strings.Join(args, " "))
		}
	})
	select {
	case url := <-stderr.found:
		return url
	case code := <-done:
		t.Fatalf("proctor %s exited %d before announcing its URL:\n%s", strings.Join(args, " "), code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("proctor %s did not announce its URL:\n%s", strings.Join(args, " "), stderr.String())
	}
	return ""
}

// fetch GETs url with an optional bearer token and returns the status and
// body.
func fetch(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// TestViewAndHTML runs an evaluation with --format html, shows it again
// from the database as HTML, browses it with `proctor view`, and through
// `proctor serve` at /ui/ behind a bearer token.
func TestViewAndHTML(t *testing.T) {
	db := tempDB(t)
	page := filepath.Join(t.TempDir(), "run.html")
	mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--db", db, "--task-ids", "mock-01,mock-02", "--num-trials", "2", "--format", "html", "--out", page)
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`id="eval-id">([0-9a-f-]{36})<`).FindStringSubmatch(string(html))
	if id == nil {
		t.Fatalf("run --format html: no evaluation id in the file:\n%s", clip(string(html)))
	}
	for _, want := range []string{"<style>", "pass^k", "mock-01", "mock-02", "1.000"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("run --format html lacks %q", want)
		}
	}
	r := mustCLI(t, exitOK, "results", id[1], "--db", db, "--format", "html")
	for _, want := range []string{id[1], "<style>", "latency of"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("results ID --format html lacks %q", want)
		}
	}
	mustCLI(t, exitUsage, "results", "--db", db, "--format", "html")
	mustCLI(t, exitUsage, "run", "--domain", "mock", "--agent", "builtin", "--db", db, "--format", "htm")
	mustCLI(t, exitUsage, "view", "--db", db, "--port", "70000")
	mustCLI(t, exitUsage, "view", "extra")

	t.Run("view", func(t *testing.T) {
		url := startCLI(t, `http://127\.0\.0\.1:\d+/`, "view", "--db", db, "--port", "0")
		for path, want := range map[string]string{"": id[1], "eval/" + id[1]: "mock-02", "eval/" + id[1] + "/sim?id=mock-01%231": "mock-01#1"} {
			code, body := fetch(t, url+path, "")
			if code != http.StatusOK || !strings.Contains(body, want) {
				t.Errorf("GET %s%s: status %d, want 200 with %q\n%s", url, path, code, want, clip(body))
			}
		}
		// view holds no lock between pages: a run stores its result meanwhile.
		r := mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--db", db, "--task-ids", "mock-03", "--format", "json")
		next := str(t, decodeObject(t, r.stdout), "id")
		if code, body := fetch(t, url, ""); code != http.StatusOK || !strings.Contains(body, next) {
			t.Errorf("GET %s after a run while view was open: status %d, want 200 listing %s", url, code, next)
		}
	})
	t.Run("serve /ui/", func(t *testing.T) {
		url := startCLI(t, `http://127\.0\.0\.1:\d+`, "serve", "--host", "127.0.0.1", "--port", "0", "--grpc-port", "-1", "--db", db, "--auth-token", "s3cret")
		if code, _ := fetch(t, url+"/ui/", ""); code != http.StatusUnauthorized {
			t.Errorf("GET /ui/ without a token: status %d, want 401", code)
		}
		code, body := fetch(t, url+"/ui/", "s3cret")
		if code != http.StatusOK || !strings.Contains(body, `href="/ui/eval/`+id[1]) {
			t.Errorf("GET /ui/ with the token: status %d, want 200 linking the evaluation under /ui/\n%s", code, clip(body))
		}
	})
}
