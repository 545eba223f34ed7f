package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds the browser: $PROCTOR_CHROMIUM, else chromium or
// chromium-browser on PATH. With CI set, a missing browser fails the test;
// elsewhere the test is skipped saying how to install one.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PROCTOR_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set but no chromium is installed: .ci/run installs Debian's chromium package (apt-get install -y chromium)")
	}
	t.Skip("no chromium on PATH (install Debian's chromium package, or set PROCTOR_CHROMIUM): the browser tests are skipped")
	return ""
}

// screenshotDir is where the browser tests leave their screenshots:
// $PROCTOR_TEST_OUTPUT/ui, else testdata/out (ignored by git). CI keeps
// the folder as an artifact.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("testdata", "out")
	if out := os.Getenv("PROCTOR_TEST_OUTPUT"); out != "" {
		dir = filepath.Join(out, "ui")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser starts a headless Chromium of its own, talking to it over a
// pipe (no debugging port), and returns a tab's context. Cleanup kills
// the browser's whole process group. Any JavaScript dialog fails the
// test: the pages have no script, so one means injected markup ran.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath(t)
	var mu sync.Mutex
	var cmd *exec.Cmd
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.ModifyCmdFunc(func(c *exec.Cmd) {
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
			mu.Lock()
			cmd = c
			mu.Unlock()
		}),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	tctx, tcancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		tcancel()
		mu.Lock()
		if cmd != nil && cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		mu.Unlock()
		acancel() // waits for the browser to exit
		cancel()
	})
	var dialogs sync.Map
	if err := chromedp.Listen(tctx, func(ev any) {
		if d, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			dialogs.Store(d.Message, true)
		}
	}); err != nil {
		t.Fatalf("start chromium %s: %v", path, err)
	}
	t.Cleanup(func() {
		dialogs.Range(func(k, _ any) bool {
			t.Errorf("a JavaScript dialog opened (%q): hostile markup ran", k)
			return true
		})
	})
	return tctx
}

// viewport is a screen size pages are checked at.
type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

func viewports() []viewport {
	return []viewport{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}}
}

func TestBrowserPages(t *testing.T) {
	ctx := browser(t)
	out := screenshotDir(t)
	s := seed(t)
	h, err := New(s.db, s.options(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	pages := []struct {
		name, path string
		// texts maps a CSS selector to the text it must contain.
		texts map[string][]string
	}{
		{"evaluations", "/", map[string][]string{"#evaluations": {shortID(s.evalID), "airline", "retail", "0.667", "Hostile <script>"}}},
		{"evaluation", s.eval, map[string][]string{
			"#eval-id": {s.evalID}, "#pass1": {"0.667"}, "#baseline": {"0.000"}, "#tasks": {failingTask, "task-pass", "1/3", "3/3", "missing action book_flight"},
			"#terminations": {"user_stop"}, "#status-codes": {"200", "503"}, "#tokens": {"judge", "$0.0"}, "#curves": {"pass^k"}, "#latency": {"requests"},
		}},
		{"evaluation-search", s.eval + "?check=ACTION&q=" + url.QueryEscape("<script>"), map[string][]string{
			"#sim-matches": {"2 simulations of 6 match"}, "#tasks": {failingTask, "#1", "#2", "missing action book_flight"}, "#sim-filter": {"Failed check"}}},
		{"evaluation-same-curves", "/eval/" + s.betterID, map[string][]string{"#curves-same": {"pass^k equals pass@k"}}},
		{"simulation", s.failSim, map[string][]string{
			"#sim-id": {failingSim}, "#reward": {"0.000"}, "#conversation": {"book_flight", "I want to book <script>", "toggle_airplane_mode", "requested by the user", "private thought", "interim (not the answer"},
			"#expected-actions": {"book_flight", "not performed", missingInfo}, "#breakdown": {"final database differs", "expectedhash0123", expectedFlight, actualFlight, missingInfo, "judge votes 1/3", "The agent confirms <script>"},
		}},
		{"simulation-db-records", s.mockSim, map[string][]string{
			"#db-records":        {"tasks", "T-1022", "missing", "Order catering", "next_task_number", "1023", "1022"},
			"#wire-trace":        {"SendMessage", "503", "agent unavailable", "Authorization: [redacted]", "<script>alert"},
			"#user-instructions": {"Jane Park", "Order catering"}, "#expected-actions": {"find_user_by_email", "create_task"}}},
		{"evalsets", "/evalsets", map[string][]string{"#evalset-runs": {shortID(s.runID), "math"}}},
		{"evalset", s.evalSetPath, map[string][]string{"#run-id": {s.runID}, "#cases": {"divide", "response_match_score 0.200"}}},
		{"evalset-case", s.evalSetPath + "/case?id=math/divide", map[string][]string{"#case-id": {"math/divide"},
			"#case-runs": {"Run 1", "Invocation 1", caseQuestion, caseWant, "3.33 <script>", "threshold 0.800", "response differs"}}},
		{"conformances", "/conformance", map[string][]string{"#conformance-runs": {shortID(s.confID), "non-conformant"}}},
		{"conformance", s.confPath, map[string][]string{"#level": {"non-conformant"}, "#failures": {"card-well-known", "Serve the card at"}}},
		{"leaderboard", "/leaderboard", map[string][]string{
			"#lb-airline": {betterAgentName, "Hostile <script>", "1.000", "0.667", "do-nothing baseline"}, "nav a.active": {"Leaderboard"}}},
		{"compare", "/compare?a=" + url.QueryEscape(s.betterID) + "&b=" + url.QueryEscape(s.evalID), map[string][]string{
			"#cmp-tasks": {failingTask, "regressed", "3/3", "1/3", "A #0 #1 #2 · B #0 #1 #2"}, "#cmp-regressions": {failingTask}, "#cmp-delta": {"-0.333"}}},
		{"evalset-matrix", "/evalsets/matrix?id=" + url.QueryEscape(s.runID) + "&id=" + url.QueryEscape(s.laterRunID), map[string][]string{
			"#case-matrix": {"math/add", "math/divide", "differs", "pass 1/1", "fail 0/1", "response_match_score 0.200"}}},
	}
	for _, vp := range viewports() {
		for _, p := range pages {
			t.Run(vp.name+"/"+p.name, func(t *testing.T) {
				checkPage(t, ctx, srv.URL+p.path, vp, p.texts, filepath.Join(out, fmt.Sprintf("%s-%s.png", p.name, vp.name)))
			})
		}
	}
	t.Run("tick two evaluations and compare them", func(t *testing.T) {
		err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"),
			chromedp.Click(chromedp.CSS(`input[name="id"][value="`+s.evalID+`"]`)),
			chromedp.Click(chromedp.CSS(`input[name="id"][value="`+s.betterID+`"]`)),
			chromedp.Click(chromedp.CSS(`#pick button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#cmp-tasks`)))
		if err != nil {
			t.Fatalf("ticking two evaluations did not lead to their comparison: %v", err)
		}
	})
	t.Logf("screenshots in %s", out)
}

// checkPage loads url at viewport vp, checks that each selector's text
// holds the wanted strings, that the stylesheet applied, and that the page
// is no wider than the screen; then saves a full-page screenshot to png.
func checkPage(t *testing.T, ctx context.Context, url string, vp viewport, texts map[string][]string, png string) {
	t.Helper()
	var vopts []chromedp.EmulateViewportOption
	if vp.mobile {
		vopts = append(vopts, chromedp.EmulateMobile, chromedp.EmulatePortrait)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.width, vp.height, vopts...), chromedp.Navigate(url)); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	for sel, wants := range texts {
		text, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: read %s: %v", url, sel, err)
		}
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %s lacks %q; it reads:\n%.600s", url, sel, w, text)
			}
		}
	}
	styled, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("header.top")).display`))
	if err != nil || styled != "flex" {
		t.Errorf("%s: the stylesheet did not apply (header display %q, %v)", url, styled, err)
	}
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
	if err != nil || overflow {
		t.Errorf("%s at %dx%d: the page is wider than the screen (%v)", url, vp.width, vp.height, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("%s: screenshot: %v", url, err)
	}
	if err := os.WriteFile(png, shot, 0o644); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}
