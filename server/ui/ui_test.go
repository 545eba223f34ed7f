package ui

import (
	"bytes"
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// seeded is a store holding one of each kind of record.
type seeded struct {
	db                       *store.DB
	evalID, runID, confID    string
	eval                     string // the evaluation's page path
	failSim, passSim         string // simulation page paths
	evalSetPath, confPath    string
	otherDomainID, runningID string
	betterID                 string // evalID's domain and tasks, every trial passed
	mockSim                  string // a mock-domain simulation page whose DB check failed
	wireDir                  string // the wire trace of mockSim's evaluation, as proctor run --trace-wire DIR leaves it
	laterRunID               string // runID's sets run again later: divide passed, add failed
}

// options are the handler's options over s: the mock domain to list a
// failed DB check's records, and the wire traces in s.wireDir.
func (s seeded) options(t testing.TB) Options {
	return Options{DBDiff: mockDiffer(t), Task: mockTasks(t), WireTrace: func(id string) string { return filepath.Join(s.wireDir, id+".wire.jsonl") }}
}

func seed(t testing.TB) seeded {
	t.Helper()
	db := openStore(t)
	s := seeded{db: db}
	other := fixtureEval(store.NewID(), 1, 1)
	other.Domain = "retail"
	putEval(t, db, other)
	s.otherDomainID = other.ID
	mockEval := fixtureMockEval(store.NewID())
	putEval(t, db, mockEval)
	s.mockSim = "/eval/" + mockEval.ID + "/sim?id=" + url.QueryEscape(mockEval.Simulations[0].ID)
	s.wireDir = t.TempDir()
	if err := os.WriteFile(filepath.Join(s.wireDir, mockEval.ID+".wire.jsonl"), []byte(fixtureWireTrace(t, mockEval.Simulations[0].ContextID)), 0o600); err != nil {
		t.Fatal(err)
	}
	running := fixtureEval(store.NewID(), 1, 1)
	running.Status = "running"
	putEval(t, db, running)
	s.runningID = running.ID
	better := fixtureEval(store.NewID(), 3, 4)
	for i := range better.Simulations {
		better.Simulations[i].Reward, better.Simulations[i].RewardInfo.Reward = 1, 1
	}
	better.Summary = scoring.Summarize(better.Simulations, nil)
	better.Agent = result.AgentInfo{URL: "http://127.0.0.1:9/better", Name: betterAgentName}
	putEval(t, db, better)
	s.betterID = better.ID
	eval := fixtureEval(store.NewID(), 3, 4)
	putEval(t, db, eval)
	s.evalID = eval.ID
	run, cases := fixtureEvalSetRun(store.NewID())
	putEvalSetRun(t, db, run, cases)
	s.runID = run.ID
	later, laterCases := fixtureEvalSetRun(store.NewID())
	later.CreatedAt = later.CreatedAt.Add(time.Hour)
	later.Summary.Cases[0].Status, later.Summary.Cases[0].Passed = result.EvalFailed, 0
	later.Summary.Cases[1].Status, later.Summary.Cases[1].Passed = result.EvalPassed, 1
	putEvalSetRun(t, db, later, laterCases)
	s.laterRunID = later.ID
	rep := fixtureConformance(store.NewID())
	putConformance(t, db, rep)
	s.confID = rep.ID
	s.eval = "/eval/" + s.evalID
	s.failSim = s.eval + "/sim?id=" + url.QueryEscape(failingSim)
	s.passSim = s.eval + "/sim?id=" + url.QueryEscape(passingSim)
	s.evalSetPath = "/evalset/" + s.runID
	s.confPath = "/conformance/" + s.confID
	return s
}

func get(t *testing.T, h http.Handler, path string) (int, string, http.Header) {
	t.Helper()
	req := httptest.NewRequestWithContext(context.Background(), http.MethodGet, "http://proctor.test"+path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body), rec.Result().Header
}

// escapedXSS is how the hostile text must appear: as escaped text.
func escapedXSS() string { return html.EscapeString(`<script>alert(`) }

func TestPages(t *testing.T) {
	s := seed(t)
	h, err := New(s.db, s.options(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		status     int
		want       []string
		notWant    []string
	}{
		{"list", "/", 200, []string{s.evalID, s.otherDomainID, "airline", "retail", "0.667", escapedXSS()}, []string{s.runID}},
		{"list by domain", "/?domain=retail", 200, []string{s.otherDomainID}, []string{s.evalID}},
		{"list by status", "/?status=running", 200, []string{s.runningID}, []string{s.evalID}},
		{"list by agent", "/?agent=" + url.QueryEscape("http://127.0.0.1:9/agent?x="+xss), 200, []string{s.evalID}, nil},
		{"list by unknown agent", "/?agent=nobody", 200, []string{"No evaluations match"}, []string{s.evalID}},
		{"list paged", "/?limit=1", 200, []string{s.evalID, `id="next"`}, []string{s.otherDomainID}},
		{"list cursor past everything", "/?before=00000000", 200, []string{"No evaluations match"}, nil},
		{"list cursor huge", "/?before=" + strings.Repeat("z", 400), 200, []string{s.evalID}, nil},
		{"list limit huge", "/?limit=99999999999999999999999", 400, []string{"limit"}, nil},
		{"list limit negative", "/?limit=-5", 400, []string{"limit"}, nil},
		{"list param too long", "/?domain=" + strings.Repeat("a", 600), 400, []string{"at most 512"}, nil},
		{"evaluation", s.eval, 200, []string{s.evalID, "pass^k", "<svg", "polyline", failingTask, "task-pass", "user_stop", "503", "judge", "$0.0", "do-nothing", escapedXSS()}, nil},
		{"list shows short ids", "/", 200, []string{">" + shortID(s.evalID) + "<", `title="` + s.evalID + `"`, `class="oneline"`}, []string{">" + s.evalID + "<"}},
		{"evaluation says why tasks failed", s.eval, 200, []string{`id="sim-filter"`, "database differs from the expected state; missing action book_flight",
			`did not tell the user &#34;` + missingInfo}, []string{`id="sim-matches"`}},
		{"evaluation's passed simulations", s.eval + "?outcome=passed", 200, []string{"task-pass%230", "task-fail%230", `id="sim-matches"`, "4 simulations of 6 match"},
			[]string{"task-fail%231"}},
		{"evaluation's failed ACTION checks", s.eval + "?check=ACTION", 200, []string{"task-fail%231", "task-fail%232", "2 simulations of 6 match", `<option value="ACTION" selected>`},
			[]string{"task-pass%230", "task-fail%230"}},
		{"evaluation's simulations by termination", s.eval + "?termination=user_stop&outcome=failed", 200, []string{"task-fail%231", "2 simulations of 6"}, []string{"task-pass%230"}},
		{"evaluation's simulations by text", s.eval + "?q=AIRPLANE", 200, []string{"task-fail%230", "3 simulations of 6"}, []string{"task-pass%230"}},
		{"evaluation's simulations by hostile text", s.eval + "?q=" + url.QueryEscape(xss), 200, []string{"task-fail%230", `value="` + escapedXSS()}, []string{"task-pass%230"}},
		{"evaluation's simulations matching nothing", s.eval + "?q=no-such-words", 200, []string{"No simulation matches", "0 simulations of 6"}, []string{"task-pass%230"}},
		{"evaluation's simulations by unknown outcome", s.eval + "?outcome=maybe", 400, []string{"want passed or failed"}, nil},
		{"evaluation's simulations by unknown check", s.eval + "?check=VIBES", 400, []string{"want one of DB"}, nil},
		{"evaluation whose pass^k equals pass@k", "/eval/" + s.betterID, 200, []string{`id="curves-same"`}, nil},
		{"evaluation whose pass^k differs from pass@k", s.eval, 200, nil, []string{`id="curves-same"`}},
		{"evaluation by prefix", "/eval/" + s.evalID[:13], 200, []string{s.evalID}, nil},
		{"evaluation missing", "/eval/01234567-nope", 404, []string{"not found"}, nil},
		{"evaluation ambiguous", "/eval/" + s.evalID[:8], 404, []string{"ambiguous"}, nil},
		{"evaluation id xss", "/eval/" + url.PathEscape(xss), 404, []string{escapedXSS()}, nil},
		{"evaluation id huge", "/eval/" + strings.Repeat("9", 2000), 400, []string{"id of 1 to 512"}, nil},
		{"eval-set run via evaluation", "/eval/" + s.runID, 302, nil, nil},
		{"simulation failing", s.failSim, 200, []string{failingSim, "book_flight", expectedFlight, actualFlight, missingInfo, judgeReasoning, "votes 1/3",
			"expectedhash0123", "actualhash4567", "private thought", "interim (not the answer", "requested by the user", "toggle_airplane_mode", escapedXSS()}, nil},
		{"simulation's differing records", s.mockSim, 200, []string{`id="db-records"`, "<code>tasks</code>", "<code>T-1022</code>", "missing", "Order catering",
			"<code>next_task_number</code>", "1023", "1022", `id="wire-trace"`, "SendMessage", "agent unavailable", "Authorization: " + a2aclient.Redacted, escapedXSS()},
			[]string{"raw-secret-value", "/other", `id="wire-note"`}},
		{"simulation's task beside it", s.mockSim, 200, []string{`id="user-instructions"`, "Jane Park, an event planner", "titled exactly &#39;Order catering&#39;",
			"Script (said in order)", `id="expected-actions"`, "<code>find_user_by_email</code>", "<code>create_task</code>", "jane.park@example.com"}, []string{`id="task-note"`}},
		{"simulation's task without its domain", s.failSim, 200, []string{`id="expected-actions"`, "<code>book_flight</code>", `id="task-note"`, "domain airline is not available here",
			"not performed", missingInfo}, []string{`id="user-instructions"`}},
		{"simulation without a domain to diff", s.failSim, 200, []string{"the domain is not available here", "no A2A context id"}, nil},
		{"simulation passing", s.passSim, 200, []string{passingSim, "1.000"}, nil},
		{"simulation missing", s.eval + "/sim?id=nope%231", 404, []string{"not found"}, nil},
		{"simulation without id", s.eval + "/sim", 400, []string{"?id="}, nil},
		{"simulation of missing evaluation", "/eval/nope/sim?id=x", 404, nil, nil},
		{"eval-set runs", "/evalsets", 200, []string{s.runID, "math"}, []string{s.evalID}},
		{"eval-set run", s.evalSetPath, 200, []string{s.runID, "divide", "response_match_score", "0.200", escapedXSS()}, nil},
		{"evaluation via eval-set run", "/evalset/" + s.evalID, 302, nil, nil},
		{"eval-set run links its cases", s.evalSetPath, 200, []string{`href="/evalset/` + s.runID + `/case?id=math/divide"`}, nil},
		{"eval-set case", s.evalSetPath + "/case?id=math/divide", 200, []string{`id="case-id">math/divide`, "Run 1", "Invocation 1", "did not match",
			caseQuestion, "<code>divide</code>", `&#34;b&#34;: 4`, `&#34;b&#34;: 3`, caseWant, "3.33 " + escapedXSS(), "threshold 0.800", "response differs: " + escapedXSS(),
			"private: divide, then round"}, []string{"not stored"}},
		{"eval-set case passing", s.evalSetPath + "/case?id=math/add", 200, []string{`id="case-status">passed`, "Run 1"}, []string{"did not match"}},
		{"eval-set case missing", s.evalSetPath + "/case?id=math/nope", 404, []string{"has no case"}, nil},
		{"eval-set case without id", s.evalSetPath + "/case", 400, []string{"?id="}, nil},
		{"eval-set case of an evaluation", "/evalset/" + s.evalID + "/case?id=math/add", 404, []string{"not an eval-set run"}, nil},
		{"conformance runs", "/conformance", 200, []string{s.confID, "non-conformant"}, nil},
		{"conformance report", s.confPath, 200, []string{"card-well-known", "Serve the card at", "GET /.well-known/agent-card.json", "agent-card", "lifecycle", escapedXSS()}, nil},
		{"conformance missing", "/conformance/nope", 404, nil, nil},
		{"compare form", "/compare?a=" + s.evalID, 200, []string{"compare-help", `value="` + s.evalID + `"`}, []string{"cmp-tasks"}},
		{"compare", "/compare?a=" + s.betterID + "&b=" + s.evalID, 200, []string{`id="cmp-tasks"`, failingTask, "regressed", "3/3", "1/3", "sign-flip"}, nil},
		{"list ticks evaluations to compare", "/", 200, []string{`<form method="get" action="/compare"`, `name="id" value="` + s.evalID + `"`}, nil},
		{"compare the ticked", "/compare?id=" + s.evalID + "&id=" + s.betterID, 303, nil, nil},
		{"compare one ticked", "/compare?id=" + s.evalID, 400, []string{"tick two evaluations", "(1 ticked)"}, nil},
		{"compare links both conversations of a regressed task", "/compare?a=" + s.betterID + "&b=" + s.evalID, 200, []string{
			`href="/eval/` + s.betterID + `/sim?id=task-fail%232"`, `href="/eval/` + s.evalID + `/sim?id=task-fail%230"`}, []string{`/sim?id=task-pass`}},
		{"eval-set list ticks runs", "/evalsets", 200, []string{`action="/evalsets/matrix"`, `name="id" value="` + s.runID + `"`}, nil},
		{"eval-set case matrix", "/evalsets/matrix?id=" + s.laterRunID + "&id=" + s.runID, 200, []string{`id="case-matrix"`, "2 cases differ",
			`href="/evalset/` + s.laterRunID + `/case?id=math%2fadd"`, `href="/evalset/` + s.runID + `/case?id=math%2fdivide"`, "response_match_score 0.200", escapedXSS()}, nil},
		{"eval-set case matrix of one run", "/evalsets/matrix?id=" + s.runID, 400, []string{"tick 2 to 12"}, nil},
		{"eval-set case matrix of an evaluation", "/evalsets/matrix?id=" + s.runID + "&id=" + s.evalID, 404, []string{"not an eval-set run"}, nil},
		{"compare other domains", "/compare?a=" + s.evalID + "&b=" + s.otherDomainID, 400, []string{"different domains"}, nil},
		{"compare an eval-set run", "/compare?a=" + s.evalID + "&b=" + s.runID, 400, []string{"eval-set run"}, nil},
		{"compare hostile id", "/compare?a=" + s.evalID + "&b=" + url.QueryEscape(xss), 404, []string{escapedXSS()}, nil},
		{"leaderboard", "/leaderboard", 200, []string{`id="lb-airline"`, `id="lb-retail"`, betterAgentName, s.betterID, s.evalID, "do-nothing baseline", escapedXSS()}, nil},
		{"leaderboard of a domain", "/leaderboard?domain=retail", 200, []string{`id="lb-retail"`, s.otherDomainID}, []string{`id="lb-airline"`}},
		{"leaderboard of an empty split", "/leaderboard?domain=airline&split=test", 200, []string{"No completed evaluation of airline"}, []string{s.evalID}},
		{"leaderboard without results", "/leaderboard?domain=telecom", 200, []string{"No completed evaluation of telecom"}, nil},
		{"stylesheet", "/static/style.css", 200, []string{".bubble"}, nil},
		{"unknown page", "/nope", 404, []string{"no such page"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body, hdr := get(t, h, tt.path)
			if code != tt.status {
				t.Fatalf("GET %s: status %d, want %d; body:\n%.2000s", tt.path, code, tt.status, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: page lacks %q", tt.path, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(body, w) {
					t.Errorf("GET %s: page has %q", tt.path, w)
				}
			}
			if strings.Contains(body, "<script") || strings.Contains(body, "<img src=x") {
				t.Errorf("GET %s: hostile markup reached the page unescaped", tt.path)
			}
			if tt.path != "/static/style.css" && !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") {
				t.Errorf("GET %s: no Content-Security-Policy", tt.path)
			}
			if cc := hdr.Get("Cache-Control"); tt.path != "/static/style.css" && cc != "no-store" {
				t.Errorf("GET %s: Cache-Control %q, want no-store", tt.path, cc)
			}
		})
	}
}

func TestStaleRunningShownInterrupted(t *testing.T) {
	s := seed(t)
	h, err := New(s.db, Options{StaleRunning: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := get(t, h, "/eval/"+s.runningID)
	if !strings.Contains(body, `id="status">interrupted`) {
		t.Errorf("a running evaluation read from a read-only database is not shown as interrupted")
	}
}

func TestBasePath(t *testing.T) {
	s := seed(t)
	h, err := New(s.db, Options{Base: "/ui/"})
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ := get(t, h, "/ui/")
	if code != 200 || !strings.Contains(body, `href="/ui/eval/`+s.evalID) || !strings.Contains(body, `href="/ui/static/style.css"`) {
		t.Fatalf("GET /ui/: status %d; links do not carry the base path:\n%.1500s", code, body)
	}
	if code, _, _ := get(t, h, "/ui/eval/"+s.evalID); code != 200 {
		t.Errorf("GET /ui/eval/ID: status %d", code)
	}
	if code, _, _ := get(t, h, "/eval/"+s.evalID); code != 404 {
		t.Errorf("GET /eval/ID outside the base path: status %d, want 404", code)
	}
	if _, err := New(s.db, Options{Base: "ui"}); err == nil {
		t.Error("New accepted a base path without slashes")
	}
}

func TestNoDatabase(t *testing.T) {
	h, err := New(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/": 200, "/evalsets": 200, "/conformance": 200, "/eval/x": 404, "/eval/x/sim?id=y": 404, "/evalset/x": 404, "/conformance/x": 404, "/leaderboard": 200} {
		if code, body, _ := get(t, h, path); code != want {
			t.Errorf("GET %s without a database: status %d, want %d\n%.500s", path, code, want, body)
		}
	}
	if _, body, _ := get(t, h, "/"); !strings.Contains(body, "proctor run --domain mock --agent builtin") {
		t.Error("the empty list does not say how to make a database")
	}
}

func TestStandalone(t *testing.T) {
	eval := fixtureEval(store.NewID(), 3, 2)
	var buf bytes.Buffer
	if err := WriteEvaluation(&buf, eval, RequestLatencies(eval.Simulations)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"<style>", ".bubble", eval.ID, "Failed simulations", expectedFlight, judgeReasoning, `href="#sim-0-task-fail_1"`, `id="sim-0-task-fail_1"`, "<svg"} {
		if !strings.Contains(page, want) {
			t.Errorf("self-contained file lacks %q", want)
		}
	}
	for _, bad := range []string{`rel="stylesheet"`, "http://", "https://", "<script"} {
		if bad == "http://" {
			// The agent's URL is data shown as text; no resource may load from the network.
			if strings.Contains(page, `src="http`) || strings.Contains(page, `href="http`) {
				t.Errorf("self-contained file links the network")
			}
			continue
		}
		if bad != "https://" && strings.Contains(page, bad) {
			t.Errorf("self-contained file has %q", bad)
		}
	}
	s := seed(t)
	rep := fixtureConformance(s.confID)
	buf.Reset()
	if err := WriteConformance(&buf, rep); err != nil || !strings.Contains(buf.String(), "card-well-known") {
		t.Errorf("WriteConformance: %v", err)
	}
	run, _ := fixtureEvalSetRun("run-1")
	buf.Reset()
	if err := WriteEvalSetRun(&buf, run); err != nil || !strings.Contains(buf.String(), "divide") {
		t.Errorf("WriteEvalSetRun: %v", err)
	}
	better := fixtureEval(store.NewID(), 3, 2)
	for i := range better.Simulations {
		better.Simulations[i].Reward = 1
	}
	better.Summary = scoring.Summarize(better.Simulations, nil)
	better.Agent = result.AgentInfo{URL: "http://127.0.0.1:9/better", Name: betterAgentName}
	cmp, err := report.CompareEvaluations(better, eval, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lb := report.NewLeaderboard([]*result.Evaluation{eval, better}, report.LeaderboardOptions{Domain: "airline"})
	for name, write := range map[string]func(io.Writer) error{
		"WriteComparison":  func(w io.Writer) error { return WriteComparison(w, cmp) },
		"WriteLeaderboard": func(w io.Writer) error { return WriteLeaderboard(w, lb) },
	} {
		buf.Reset()
		if err := write(&buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		page := buf.String()
		for _, want := range []string{"<style>", better.ID, eval.ID, escapedXSS()} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the file lacks %q", name, want)
			}
		}
		for _, bad := range []string{"<form", `href="/`, `href="http`, `rel="stylesheet"`, "<script"} {
			if strings.Contains(page, bad) {
				t.Errorf("%s: the self-contained file has %q", name, bad)
			}
		}
	}
}

// TestOpenPerPage opens the database for each page: between pages the
// viewer holds no lock, so a writer can open the file; while one holds
// it, a page says so.
func TestOpenPerPage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	writer, err := store.Open(path, store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	first := fixtureEval(store.NewID(), 1, 1)
	putEval(t, writer, first)
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := New(nil, Options{Open: func() (*store.DB, error) {
		return store.Open(path, store.WithReadOnly(), store.WithLockTimeout(-1))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if code, body, _ := get(t, h, "/"); code != 200 || !strings.Contains(body, first.ID) {
		t.Fatalf("GET /: status %d, want 200 listing %s", code, first.ID)
	}
	writer, err = store.Open(path, store.WithNoSync(), store.WithLockTimeout(-1))
	if err != nil {
		t.Fatalf("a writer cannot open the database after a page was served: %v", err)
	}
	second := fixtureEval(store.NewID(), 1, 1)
	putEval(t, writer, second)
	if code, body, _ := get(t, h, "/"); code != http.StatusServiceUnavailable || !strings.Contains(body, "held by a proctor") {
		t.Errorf("GET / while a writer holds the database: status %d, want 503 saying why\n%.800s", code, body)
	}
	if code, _, _ := get(t, h, "/static/style.css"); code != 200 {
		t.Errorf("the stylesheet needs no database, got status %d", code)
	}
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
	if code, body, _ := get(t, h, "/"); code != 200 || !strings.Contains(body, second.ID) {
		t.Errorf("GET / after the writer closed: status %d, want 200 listing %s", code, second.ID)
	}
	empty, err := New(nil, Options{Open: func() (*store.DB, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if code, body, _ := get(t, empty, "/"); code != 200 || !strings.Contains(body, "No results database yet") {
		t.Errorf("GET / without a database file: status %d", code)
	}
}
