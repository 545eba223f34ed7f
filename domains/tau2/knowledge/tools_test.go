package knowledge

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

func smallBase(t *testing.T) *Base {
	t.Helper()
	b, err := New([]Document{
		{ID: "doc_a", Title: "Fees", Content: "overdraft fee fee"},
		{ID: "doc_b", Title: "", Content: "wire transfer"},
		{ID: "doc_c", Title: "Cards", Content: "card fee"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestToolMessages checks KB_search's and grep's messages and errors
// against tau2's formatting (retrieval_mixins.py) and Python's behaviour
// on each JSON type.
func TestToolMessages(t *testing.T) {
	b := smallBase(t)
	cfg, err := Resolve("bm25_grep", Options{})
	if err != nil {
		t.Fatal(err)
	}
	tools := b.Toolset(cfg)
	wire := b.BM25("wire", 10)
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		wantErr string
	}{
		{name: "grep", args: map[string]any{"pattern": "FEE"}, want: "" +
			"1. Fees\n   ID: doc_a\n   Score: 2.0000\n   Content: overdraft fee fee\n\n" +
			"2. Cards\n   ID: doc_c\n   Score: 1.0000\n   Content: card fee\n"},
		{name: "grep", args: map[string]any{"pattern": "zzz"}, want: "No matches found for pattern: zzz"},
		{name: "grep", args: map[string]any{"pattern": " "}, want: "No matches found for pattern:  "},
		{name: "grep", args: map[string]any{"pattern": nil}, wantErr: "'NoneType' object has no attribute 'strip'"},
		{name: "grep", args: map[string]any{"pattern": json.Number("3")}, wantErr: "'int' object has no attribute 'strip'"},
		{name: "grep", args: map[string]any{}, wantErr: "GrepMixin.grep() missing 1 required positional argument: 'pattern'"},
		{name: "KB_search", args: map[string]any{"query": "wire"}, want: "" +
			"1. Untitled\n   ID: doc_b\n   Score: " + FormatScore(wire[0].Score) + "\n   Content: wire transfer\n\n" +
			"2. Fees\n   ID: doc_a\n   Score: 0.0000\n   Content: overdraft fee fee\n\n" +
			"3. Cards\n   ID: doc_c\n   Score: 0.0000\n   Content: card fee\n" +
			"\n\n[Timing: retrieval=0ms, total=0ms]"},
		{name: "KB_search", args: map[string]any{"query": "  "}, want: "No relevant documents found.\n\n[Timing: retrieval=0ms, total=0ms]"},
		{name: "KB_search", args: map[string]any{"query": nil}, want: "No relevant documents found.\n\n[Timing: retrieval=0ms, total=0ms]"},
		{name: "KB_search", args: map[string]any{"query": []any{}}, want: "No relevant documents found.\n\n[Timing: retrieval=0ms, total=0ms]"},
		{name: "KB_search", args: map[string]any{"query": 2.5}, wantErr: "'float' object has no attribute 'strip'"},
		{name: "KB_search", args: map[string]any{"query": "x", "k": 3}, wantErr: "KBSearchMixin.KB_search() got an unexpected keyword argument 'k'"},
		{name: "shell", args: map[string]any{"command": "ls"}, wantErr: "Tool 'shell' not found."},
	}
	for _, tt := range tests {
		got, err := tools.Call(tt.name, tt.args)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if diff := gocmp.Diff([2]string{tt.want, tt.wantErr}, [2]string{got, gotErr}); diff != "" {
			t.Errorf("%s(%v) (-tau2 +proctor):\n%s", tt.name, tt.args, diff)
		}
	}
}

func TestToolsetSpecs(t *testing.T) {
	b := smallBase(t)
	for _, tt := range []struct {
		config string
		want   []string
	}{
		{"no_knowledge", nil}, {"full_kb", nil}, {"golden_retrieval", nil},
		{"bm25", []string{"KB_search"}}, {"bm25_grep", []string{"KB_search", "grep"}}, {"grep_only", []string{"grep"}},
	} {
		cfg, err := Resolve(tt.config, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range b.Toolset(cfg).Specs() {
			names = append(names, s.Name)
			var schema struct{ Type string }
			if err := json.Unmarshal(s.Parameters, &schema); err != nil || schema.Type != "object" {
				t.Errorf("%s: %s parameters are not a JSON Schema object", tt.config, s.Name)
			}
		}
		if diff := gocmp.Diff(tt.want, names); diff != "" {
			t.Errorf("%s tools (-want +got):\n%s", tt.config, diff)
		}
	}
	var _ []domains.ToolSpec = b.Toolset(Config{}).Specs()
}

func TestResolve(t *testing.T) {
	ten, three, yes, small := 10, 3, true, "text-embedding-3-small"
	for _, tt := range []struct {
		name    string
		opts    Options
		want    Config
		wantErr string
	}{
		{name: "bm25", opts: Options{TopK: &three, GrepTopK: &three},
			want: Config{Name: "bm25", Template: "classic_rag_bm25_no_grep.md", KBSearch: true, TopK: 3, GrepTopK: ten}},
		{name: "grep_only", opts: Options{TopK: &three, CaseSensitive: &yes},
			want: Config{Name: "grep_only", Template: "grep_only.md", Grep: true, TopK: ten, GrepTopK: ten, CaseSensitive: true}},
		{name: "openai_embeddings", opts: Options{TopK: &three, GrepTopK: &three},
			want: Config{Name: "openai_embeddings", Template: "classic_rag_openai_no_grep.md", KBSearch: true, TopK: 3, GrepTopK: ten,
				Embedding: &EmbeddingSpec{Type: "openai", Model: "text-embedding-3-large", Encoding: "base64"}}},
		{name: "openai_embeddings_grep", opts: Options{EmbeddingModel: &small},
			want: Config{Name: "openai_embeddings_grep", Template: "classic_rag_openai.md", KBSearch: true, Grep: true, TopK: ten, GrepTopK: ten,
				Embedding: &EmbeddingSpec{Type: "openai", Model: small, Encoding: "base64"}}},
		{name: "qwen_embeddings", want: Config{Name: "qwen_embeddings", Template: "classic_rag_qwen_no_grep.md", KBSearch: true, TopK: ten, GrepTopK: ten,
			Embedding: &EmbeddingSpec{Type: "openrouter", Model: "qwen/qwen3-embedding-8b", Encoding: "float",
				QueryInstruction: "Given a web search query, retrieve relevant passages that answer the query",
				BaseURL:          "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY"}}},
		{name: "openai_embeddings_reranker", wantErr: `retrieval config "openai_embeddings_reranker" needs OpenAI embeddings and an LLM reranker, not offered yet; proctor runs no_knowledge, full_kb, golden_retrieval, bm25, bm25_grep, grep_only, openai_embeddings, openai_embeddings_grep, qwen_embeddings, qwen_embeddings_grep`},
		{name: "AllTools", wantErr: `retrieval config "alltools" needs OpenAI embeddings and tau2's shell sandbox`},
		{name: "terminal_use", wantErr: "shell sandbox"},
		{name: "bm26", wantErr: `unknown retrieval config "bm26": proctor runs no_knowledge`},
		{name: "", wantErr: "banking_knowledge needs a retrieval config"},
	} {
		got, err := Resolve(tt.name, tt.opts)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("Resolve(%q) error %v, want %q", tt.name, err, tt.wantErr)
		case tt.wantErr == "" && err != nil:
			t.Errorf("Resolve(%q): %v", tt.name, err)
		case tt.wantErr == "":
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Resolve(%q) (-want +got):\n%s", tt.name, diff)
			}
		}
	}
	if _, err := ParseOptions([]byte(`{"top_k": 5, "bogus": 1}`)); err == nil {
		t.Error("ParseOptions took an unknown key")
	}
	if o, err := ParseOptions([]byte(`{"top_k": 5}`)); err != nil || *o.TopK != 5 {
		t.Errorf("ParseOptions = %+v, %v", o, err)
	}
}

func TestPolicy(t *testing.T) {
	b := testBase(t)
	prompts := filepath.Join(tau2test.Dir(t, "banking_knowledge"), "prompts")
	policy := func(name string, required []string) string {
		t.Helper()
		cfg, err := Resolve(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := b.Policy(prompts, cfg, required)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p, "{{") {
			t.Errorf("%s: unsubstituted reference in the policy", name)
		}
		return p
	}
	for _, name := range ConfigNames() {
		policy(name, nil)
	}
	var kb []string // format_full_knowledge_base, over the documents in file-name order
	for _, d := range b.Documents() {
		kb = append(kb, "## "+d.Title+"\n\n"+d.Content)
	}
	if full := policy("full_kb", nil); !strings.Contains(full, "\n"+strings.Join(kb, "\n\n---\n\n")+"\n") {
		t.Error("full_kb does not inline every document in file-name order")
	}
	golden := policy("golden_retrieval", []string{"doc_credit_cards_ecocard_008", "no_such_doc"})
	doc, _ := b.Document("doc_credit_cards_ecocard_008")
	if !strings.Contains(golden, "<required_documents>\n## "+doc.Title+"\n\n"+doc.Content+"\n</required_documents>") {
		t.Error("golden_retrieval does not inline the required document alone")
	}
	if !strings.Contains(policy("golden_retrieval", nil), "(No documents provided)") {
		t.Error("golden_retrieval without documents")
	}
	if !strings.Contains(policy("bm25_grep", nil), "`KB_search` (uses BM25 for retrieval) and `grep`") {
		t.Error("bm25_grep policy is not classic_rag_bm25.md")
	}
}
