package rollout_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3/option"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm/openai"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

// tau2GuidelineFile is tau2's guideline file name, as rollout embeds it.
func tau2GuidelineFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("tau2user", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadTau2Guidelines: the tau2 data's copy is used where an
// installation or a tau2 checkout keeps it, flagged when it is not tau2's;
// without one, proctor's embedded copy.
func TestLoadTau2Guidelines(t *testing.T) {
	plain := tau2GuidelineFile(t, "simulation_guidelines.md")
	tools := tau2GuidelineFile(t, "simulation_guidelines_tools.md")
	modified := []byte("# Modified guidelines\nBe terse.\n")
	tau2Files := map[string][]byte{"simulation_guidelines.md": plain, "simulation_guidelines_tools.md": tools}
	modifiedFiles := map[string][]byte{"simulation_guidelines.md": modified, "simulation_guidelines_tools.md": tools}

	root := t.TempDir()
	installed := filepath.Join(root, "installed")
	writeFiles(t, filepath.Join(installed, "user_simulator"), tau2Files)
	checkout := filepath.Join(root, "tau2-bench", "data", "tau2")
	writeFiles(t, filepath.Join(checkout, "domains"), nil)
	writeFiles(t, filepath.Join(checkout, "user_simulator"), modifiedFiles)
	noGuidelines := filepath.Join(root, "bare")
	writeFiles(t, noGuidelines, nil)

	for _, c := range []struct {
		name, dir string
		want      result.UserGuidelines
	}{
		{"no data", "", result.UserGuidelines{Source: result.GuidelinesEmbedded}},
		{"data without guidelines", noGuidelines, result.UserGuidelines{Source: result.GuidelinesEmbedded}},
		{"installation", installed, result.UserGuidelines{Source: result.GuidelinesFromData, Dir: filepath.Join(installed, "user_simulator")}},
		{"modified tau2 checkout", filepath.Join(checkout, "domains"), result.UserGuidelines{
			Source: result.GuidelinesFromData, Dir: filepath.Join(checkout, "domains", "..", "user_simulator"), Modified: true,
			SHA256: map[string]string{
				"simulation_guidelines.md":       "fb27210783af369344ace24ea038905380de0e9c0c1222216cbd1e11c9839bbb",
				"simulation_guidelines_tools.md": "cbf3d8a4d8642fd04e559862f1afef55d7dd4e6a7e727ca49e239023c599de0c",
			},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := rollout.LoadTau2Guidelines(c.dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, g.Source); diff != "" {
				t.Errorf("source (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadTau2GuidelinesIncomplete: a directory with one of the two files
// is a broken copy, not a reason to fall back silently.
func TestLoadTau2GuidelinesIncomplete(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "user_simulator"), map[string][]byte{"simulation_guidelines.md": []byte("x")})
	_, err := rollout.LoadTau2Guidelines(dir)
	if err == nil || !strings.Contains(err.Error(), "not simulation_guidelines_tools.md") || !strings.Contains(err.Error(), "proctor domains install tau2") {
		t.Errorf("LoadTau2Guidelines of an incomplete copy: %v", err)
	}
}

// TestTau2UserSpeaksFromGuidelines: the LLM user's system prompt is the
// loaded guidelines' text, with tools and without; without guidelines, the
// embedded ones.
func TestTau2UserSpeaksFromGuidelines(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "user_simulator"), map[string][]byte{
		"simulation_guidelines.md":       []byte("MODIFIED plain guidelines<PERSONA_GUIDELINES>"),
		"simulation_guidelines_tools.md": []byte("MODIFIED tool guidelines"),
	})
	modified, err := rollout.LoadTau2Guidelines(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		guidelines *rollout.Tau2Guidelines
		want       string
	}{
		{"data's copy", modified, "MODIFIED plain guidelines\n\n<scenario>\n"},
		{"embedded", nil, string(tau2GuidelineFile(t, "simulation_guidelines.md"))[:200]},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t, llmtest.Sequence(llmtest.Reply{Text: "Hi, I need help."}))
			m := openai.New("gpt-4.1", option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
			user, err := rollout.NewLLMUser(rollout.LLMUserConfig{Model: m, Prompt: rollout.UserPromptTau2, Guidelines: c.guidelines},
				&domains.Task{ID: "t1", UserScenario: domains.UserScenario{Instructions: "Ask for help."}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := user.Reply(t.Context(), "Hello, how can I help?"); err != nil {
				t.Fatal(err)
			}
			var req struct {
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(srv.Requests()[0].Raw, &req); err != nil {
				t.Fatal(err)
			}
			if len(req.Messages) == 0 || req.Messages[0].Role != "system" || !strings.HasPrefix(req.Messages[0].Content, c.want) {
				t.Errorf("system prompt does not start with %q: %+v", c.want, req.Messages)
			}
		})
	}
}
