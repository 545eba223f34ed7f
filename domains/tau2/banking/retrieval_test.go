package banking

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/llm"
)

// TestRetrievalConfigs builds the domain for every configuration proctor
// offers: the agent's tools begin with the configuration's retrieval
// tools, in tau2's order, and its policy is the configuration's prompt.
func TestRetrievalConfigs(t *testing.T) {
	dir := tau2test.Dir(t, Name)
	plain, err := New(dir, "policy")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		config    string
		retrieval []string
		inPolicy  string
	}{
		{"no_knowledge", nil, "policy"},
		{"full_kb", nil, "## "},
		{"golden_retrieval", nil, "(Policy is task-specific"},
		{"bm25", []string{"KB_search"}, "KB_search"},
		{"bm25_grep", []string{"KB_search", "grep"}, "grep"},
		{"grep_only", []string{"grep"}, "grep"},
	}
	for _, tt := range tests {
		t.Run(tt.config, func(t *testing.T) {
			d, err := NewWithRetrieval(dir, tt.config, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			want = append(want, tt.retrieval...)
			want = append(want, plain.ToolNames()...)
			got := d.ToolNames()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if !strings.Contains(d.Policy, tt.inPolicy) || strings.Contains(d.Policy, "{{component:") {
				t.Errorf("policy lacks %q or keeps a component reference:\n%.400s", tt.inPolicy, d.Policy)
			}
			if d.HasTaskPolicy() != (tt.config == "golden_retrieval") {
				t.Errorf("HasTaskPolicy %v", d.HasTaskPolicy())
			}
		})
	}
}

// TestGoldenPolicyPerTask: golden_retrieval's policy inlines the task's
// required documents.
func TestGoldenPolicyPerTask(t *testing.T) {
	d, err := NewWithRetrieval(tau2test.Dir(t, Name), "golden_retrieval", nil)
	if err != nil {
		t.Fatal(err)
	}
	task, ok := d.Task("task_001")
	if !ok {
		t.Fatal("no task_001")
	}
	policy, err := d.PolicyFor(task)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(policy, "<required_documents>\n## ") || strings.Contains(policy, "(No documents provided)") {
		t.Errorf("task_001's policy lacks its documents:\n%.600s", policy)
	}
	none, err := d.PolicyFor(&domains.Task{ID: "other"})
	if err != nil || !strings.Contains(none, "(No documents provided)") {
		t.Errorf("a task without required documents: %v\n%.600s", err, none)
	}
}

// TestRefusedRetrievalConfigs: tau2's default and the configurations that
// need a sandbox are refused with the ones proctor offers; one that ranks
// by embeddings is built without an embedder, but cannot search.
func TestRefusedRetrievalConfigs(t *testing.T) {
	dir := tau2test.Dir(t, Name)
	for config, want := range map[string]string{
		"":             "tau2's default, alltools",
		"terminal_use": "sandbox",
		"nope":         `unknown retrieval config "nope"`,
	} {
		_, err := NewWithRetrieval(dir, config, nil)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "bm25_grep") {
			t.Errorf("%q: %v, want %q and the offered configurations", config, err, want)
		}
	}
	d, err := NewWithRetrieval(dir, "openai_embeddings", nil)
	if err != nil {
		t.Fatal(err)
	}
	env, err := d.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	if res := env.Call(domains.ToolCall{Name: "KB_search", Arguments: map[string]any{"query": "fees"}}); !res.Error || !strings.Contains(res.Content, "no embedder") {
		t.Errorf("KB_search of openai_embeddings without an embedder: %+v", res)
	}
}

// TestKBSearchRuns: the retrieval tools run through the environment.
func TestKBSearchRuns(t *testing.T) {
	d, err := NewWithRetrieval(tau2test.Dir(t, Name), "bm25_grep", nil)
	if err != nil {
		t.Fatal(err)
	}
	env, err := d.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []domains.ToolCall{
		{Name: "KB_search", Arguments: map[string]any{"query": "credit card dispute"}},
		{Name: "grep", Arguments: map[string]any{"pattern": "dispute"}},
	} {
		res := env.Call(c)
		if res.Error || !strings.Contains(res.Content, "1. ") || !strings.Contains(res.Content, "   ID: doc_") {
			t.Errorf("%s: %+v", c.Name, res)
		}
	}
	if res := env.Call(domains.ToolCall{Name: "KB_search", Arguments: map[string]any{"q": "x"}}); !res.Error {
		t.Errorf("KB_search without its query: %+v", res)
	}
}

// TestDenseKBSearchMetered: a dense KB_search run through the environment
// under a simulation's context records its query's embeddings call in
// that context's ledger; the documents' call, made while the domain is
// built, is in none.
func TestDenseKBSearchMetered(t *testing.T) {
	srv := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{InputTokens: 4 * len(r.Input)} })
	cfg, err := knowledge.Resolve("openai_embeddings", knowledge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := knowledge.NewEmbedder(&llm.Source{Config: llm.Config{APIKey: "test-key", BaseURL: srv.URL, Getenv: func(string) string { return "" }}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewWithRetrieval(tau2test.Dir(t, Name), "openai_embeddings", e)
	if err != nil {
		t.Fatal(err)
	}
	env, err := d.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	ledger := &llm.Ledger{}
	ctx, cancel := context.WithTimeout(llm.WithLedger(context.Background(), ledger), time.Minute)
	defer cancel()
	res := domains.CallContext(ctx, env, domains.ToolCall{Name: "KB_search", Arguments: map[string]any{"query": "overdraft fees"}})
	if res.Error {
		t.Fatalf("KB_search: %s", res.Content)
	}
	model := "openai:text-embedding-3-large"
	want := []llm.Call{{Role: llm.RoleEmbedding, Model: model, InputTokens: 4, CostUSD: 4 * 0.13 / 1e6, Priced: true}}
	if diff := cmp.Diff(want, ledger.Calls(), cmpopts.IgnoreFields(llm.Call{}, "LatencyMS", "SlotWaitMS")); diff != "" {
		t.Errorf("the simulation's calls (-want +got):\n%s", diff)
	}
}
