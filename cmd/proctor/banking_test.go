package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/result"
)

// bankingReasons are the transfer reasons the gold actions of two
// banking_knowledge tasks expect (ACTION basis), told apart by a phrase of
// their user instructions.
var bankingReasons = map[string]string{
	"Kenji Tanaka":       "account_ownership_dispute",                        // task_004
	"power plant worker": "customer_demands_after_unavailable_offer_refusal", // task_008
}

var reasonMarker = regexp.MustCompile(`reason=(\w+)`)

// TestBankingKnowledgeRun runs two banking_knowledge tasks end to end
// offline, with BM25 (bm25_grep) and with embeddings from the fake
// provider (openai_embeddings_grep): an LLM user and proctor's baseline
// agent, both models faked at the wire. The agent searches the knowledge
// base with KB_search, then transfers as the gold action says: reward 1,
// the retrieval calls in the transcript, the configuration in the result's
// config and in the tau2 export; with embeddings, the documents are
// embedded in one request.
func TestBankingKnowledgeRun(t *testing.T) {
	for _, config := range []string{"bm25_grep", "openai_embeddings_grep"} {
		t.Run(config, func(t *testing.T) { testBankingKnowledgeRun(t, config) })
	}
}

func testBankingKnowledgeRun(t *testing.T, config string) {
	root := filepath.Dir(tau2test.Dir(t, "banking_knowledge"))
	var embedded atomic.Int64 // texts embedded in requests of more than one
	user := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		if len(r.Input) > 0 { // the knowledge base's embeddings: the default vectors
			if len(r.Input) > 1 {
				embedded.Add(int64(len(r.Input)))
			}
			return llmtest.Reply{}
		}
		for _, m := range r.Messages {
			if m.Role == "assistant" { // the user has spoken: done
				return llmtest.Reply{Text: "Thanks. ###STOP###"}
			}
		}
		for phrase, reason := range bankingReasons {
			if strings.Contains(r.System, phrase) {
				return llmtest.Reply{Text: "I need a human, please: reason=" + reason}
			}
		}
		return llmtest.Reply{Status: 400, ErrorMessage: "the user prompt lacks the task's instructions"}
	})
	agent := bankingBaseline(t)

	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	db := tempDB(t)
	r := mustCLI(t, 0, "run", "--domain", "banking_knowledge", "--retrieval-config", config, "--tau2-data", root,
		"--task-ids", "task_004,task_008", "--agent", agent, "--user", "llm", "--user-model", "openai:gpt-4.1",
		"--llm-base-url", user.URL, "--db", db, "--format", "json", "--progress", "none")
	var ev result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Config.RetrievalConfig != config {
		t.Errorf("config retrieval_config %q", ev.Config.RetrievalConfig)
	}
	type outcome struct {
		Reward    float64
		Retrieval []string // the retrieval tool messages' names
	}
	got := map[string]outcome{}
	for _, s := range ev.Simulations {
		o := outcome{Reward: s.Reward}
		for _, m := range s.Messages {
			if m.Role == result.RoleTool && (m.Name == "KB_search" || m.Name == "grep") && !m.Error && strings.Contains(m.Content, "   ID: doc_") {
				o.Retrieval = append(o.Retrieval, m.Name)
			}
		}
		got[s.TaskID] = o
	}
	want := map[string]outcome{"task_004": {1, []string{"KB_search"}}, "task_008": {1, []string{"KB_search"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simulations (-want +got):\n%s\n%s", diff, r.stderr)
	}

	export := mustCLI(t, 0, "results", ev.ID, "--db", db, "--tau2-data", root, "--format", "tau2")
	var tau2 struct {
		Info struct {
			RetrievalConfig string `json:"retrieval_config"`
			Environment     struct {
				DomainName string `json:"domain_name"`
				Policy     string `json:"policy"`
			} `json:"environment_info"`
		} `json:"info"`
	}
	if err := json.Unmarshal([]byte(export.stdout), &tau2); err != nil {
		t.Fatal(err)
	}
	if tau2.Info.RetrievalConfig != config || tau2.Info.Environment.DomainName != "banking_knowledge" ||
		!strings.Contains(tau2.Info.Environment.Policy, "KB_search") {
		t.Errorf("tau2 export info: %+v", tau2.Info)
	}
	if want := map[string]int64{"bm25_grep": 0, "openai_embeddings_grep": 698}[config]; embedded.Load() != want {
		t.Errorf("%d documents embedded, want %d (once, in one request)", embedded.Load(), want)
	}
}

// bankingBaseline serves proctor's baseline agent on a faked model that
// searches the knowledge base for the user's request, transfers with the
// reason the user named, and then says goodbye.
func bankingBaseline(t *testing.T) string {
	t.Helper()
	agentModel := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1].Text
		var all strings.Builder
		for _, m := range r.Messages {
			all.WriteString(m.Text)
		}
		reason := reasonMarker.FindStringSubmatch(all.String())
		switch {
		case !strings.Contains(r.System+all.String(), "KB_search"):
			return llmtest.Reply{Status: 400, ErrorMessage: "the agent was not given KB_search"}
		case strings.Contains(last, "Transfer successful"):
			return llmtest.Reply{Text: `{"name": "respond", "arguments": {"content": "A human agent will take over now."}}`}
		case strings.Contains(last, "   ID: doc_") && reason != nil:
			return llmtest.Reply{Text: `{"name": "transfer_to_human_agents", "arguments": {"summary": "", "reason": "` + reason[1] + `"}}`}
		case reasonMarker.MatchString(last):
			return llmtest.Reply{Text: `{"name": "KB_search", "arguments": {"query": "transfer to a human agent"}}`}
		}
		return llmtest.Reply{Text: `{"name": "respond", "arguments": {"content": "Goodbye."}}`}
	})
	return startBaseline(t, agentModel.URL, "banking_knowledge")
}

// TestDomainsListsRetrievalConfigs: `proctor domains banking_knowledge`
// names the retrieval configurations proctor runs and those of tau2's it
// does not, with what they need; the JSON carries the offered ones.
func TestDomainsListsRetrievalConfigs(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "banking_knowledge"))
	r := mustCLI(t, exitOK, "domains", "banking_knowledge", "--tau2-data", root)
	for _, want := range []string{
		"retrieval configs: no_knowledge, full_kb, golden_retrieval, bm25, bm25_grep, grep_only, openai_embeddings,",
		"'proctor run --retrieval-config'",
		"  alltools: needs OpenAI embeddings and tau2's shell sandbox",
		"  terminal_use: needs tau2's shell sandbox",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("domains banking_knowledge lacks %q:\n%s", want, r.stdout)
		}
	}
	var infos []struct {
		Name             string   `json:"name"`
		RetrievalConfigs []string `json:"retrieval_configs"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, exitOK, "domains", "--tau2-data", root, "--format", "json").stdout), &infos); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, d := range infos {
		got[d.Name] = len(d.RetrievalConfigs)
	}
	if want := map[string]int{"airline": 0, "banking_knowledge": 10, "mock": 0, "retail": 0, "tau2-mock": 0, "telecom": 0}; !cmp.Equal(want, got) {
		t.Errorf("retrieval configurations per domain (-want +got):\n%s", cmp.Diff(want, got))
	}
}
