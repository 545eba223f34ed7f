package ui

import (
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// retrievalDocs are a small knowledge base, one title hostile.
var retrievalDocs = []knowledge.Document{
	{ID: "doc_fees", Title: "Overdraft Fees", Content: "## Fees\n\nAn overdraft fee of 35 USD applies to every overdrawn day.\n\nWaivers: ask a supervisor."},
	{ID: "doc_cards", Title: "Cards " + xss, Content: "Card fee schedule: 5 USD a year."},
	{ID: "doc_wire", Title: "Wires", Content: "Wire transfers cost 25 USD."},
}

// fixtureRetrievalEval returns a banking_knowledge evaluation whose agent
// searched the knowledge base: the KB_search result is the knowledge
// package's own output for the query over retrievalDocs.
func fixtureRetrievalEval(t *testing.T, id string) *result.Evaluation {
	t.Helper()
	base, err := knowledge.New(retrievalDocs)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := knowledge.Resolve("bm25", knowledge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"query": "overdraft fee"}
	out, err := base.Toolset(cfg).Call(knowledge.KBSearchTool, args)
	if err != nil {
		t.Fatal(err)
	}
	sim := result.Simulation{ID: result.SimulationID("bk-1", 0), TaskID: "bk-1", TerminationReason: result.TermUserStop, Reward: 1,
		RewardInfo: result.RewardInfo{Reward: 1, RewardBasis: []domains.Basis{domains.BasisDB}, RewardBreakdown: map[domains.Basis]float64{domains.BasisDB: 1},
			DBCheck: &result.DBCheck{DBMatch: true, DBReward: 1}},
		Messages: []result.Message{{Role: result.RoleUser, Content: "What is the overdraft fee?", Turn: 0},
			{Role: result.RoleAssistant, Turn: 1, ToolCalls: []domains.ToolCall{{ID: "c1", Name: knowledge.KBSearchTool, Arguments: args}}},
			{Role: result.RoleTool, ToolCallID: "c1", Name: knowledge.KBSearchTool, Content: out, Turn: 1},
			{Role: result.RoleAssistant, Content: "35 USD a day.", Turn: 1}}}
	eval := &result.Evaluation{ID: id, Status: result.StatusCompleted, Domain: "banking_knowledge", Agent: result.AgentInfo{URL: "http://127.0.0.1:9/bank"},
		Config: result.Config{Domain: "banking_knowledge", NumTrials: 1}, CreatedAt: time.Date(2026, 11, 24, 11, 0, 0, 0, time.UTC),
		Simulations: []result.Simulation{sim}}
	eval.Summary = scoring.Summarize(eval.Simulations, nil)
	return eval
}

// retrievalPage stores fixtureRetrievalEval and returns a handler over
// it and its simulation page's path.
func retrievalPage(t *testing.T) (*Handler, string) {
	t.Helper()
	db := openStore(t)
	eval := fixtureRetrievalEval(t, store.NewID())
	putEval(t, db, eval)
	h, err := New(db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h, "/eval/" + eval.ID + "/sim?id=" + url.QueryEscape(eval.Simulations[0].ID)
}

func TestRetrievalResultPage(t *testing.T) {
	h, path := retrievalPage(t)
	code, body, _ := get(t, h, path)
	if code != 200 {
		t.Fatalf("GET %s: %d\n%s", path, code, body)
	}
	for _, want := range []string{
		"result: 3 documents found", `<ol class="hits">`,
		`<details class="hit"><summary><code>doc_fees</code> · Overdraft Fees · <span class="mono">`,
		`<span class="muted folded">## Fees An overdraft fee of 35 USD applies to every overdrawn day. Waivers: ask a supervisor.</span></summary><pre>## Fees

An overdraft fee of 35 USD applies to every overdrawn day.`,
		"<code>doc_cards</code> · Cards " + escapedXSS(), "<code>doc_wire</code> · Wires",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the simulation page lacks %q", want)
		}
	}
	for _, notWant := range []string{"ID: doc_fees", "[Timing:", xss} {
		if strings.Contains(body, notWant) {
			t.Errorf("the simulation page shows %q: the result's raw text, not its documents", notWant)
		}
	}
}

// TestBrowserRetrievalResult opens a KB_search call in Chromium: its
// documents are listed one line each, their content folded until a
// document is opened.
func TestBrowserRetrievalResult(t *testing.T) {
	ctx := browser(t)
	h, path := retrievalPage(t)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	out := screenshotDir(t)
	for _, vp := range viewports() {
		t.Run(vp.name, func(t *testing.T) {
			checkPage(t, ctx, srv.URL+path, vp, map[string][]string{
				"#conversation": {"KB_search", "3 documents found", "doc_fees", "Overdraft Fees", "doc_cards", "doc_wire", "## Fees An overdraft fee"}},
				filepath.Join(out, "simulation-retrieval-"+vp.name+".png"))
			visible := func(sel string) bool {
				t.Helper()
				v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(`+"`"+sel+"`"+`).checkVisibility()`))
				if err != nil {
					t.Fatalf("%s: %v", sel, err)
				}
				return v
			}
			const line, content = `#conversation details.hit summary`, `#conversation details.hit pre`
			if visible(line) {
				t.Fatal("the documents show before their call is opened")
			}
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#conversation details.call summary`))); err != nil {
				t.Fatal(err)
			}
			if !visible(line) || visible(content) {
				t.Fatalf("an opened call shows its documents' lines %v, their content folded %v; want both", visible(line), !visible(content))
			}
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(line))); err != nil {
				t.Fatal(err)
			}
			if !visible(content) {
				t.Fatal("an opened document does not show its content")
			}
			overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
			if err != nil || overflow {
				t.Errorf("an opened document makes the page wider than the screen (%v)", err)
			}
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, "simulation-retrieval-open-"+vp.name+".png"), shot, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}
