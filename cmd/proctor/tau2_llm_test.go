package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/domains/tau2/install"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// TestAirlineWithLLMUser runs airline tasks end to end with an LLM user and
// an LLM agent (proctor's baseline participant), both models faked at the
// wire, and reads the results back through get_results.
func TestAirlineWithLLMUser(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "airline"))
	// The user (Gemini): states its reason for calling, then stops.
	user := llmtest.NewGemini(t, func(r llmtest.Request) llmtest.Reply {
		if !strings.Contains(r.System, "Task instructions:") || !strings.Contains(r.System, "###STOP###") {
			return llmtest.Reply{Status: 400, ErrorMessage: "the user prompt lacks the task's instructions"}
		}
		for _, m := range r.Messages {
			if m.Role == "assistant" {
				return llmtest.Reply{Text: "Thanks, that is all. ###STOP###", InputTokens: 900, OutputTokens: 8}
			}
		}
		return llmtest.Reply{Text: "Hi, I need help with a reservation.", InputTokens: 800, OutputTokens: 9}
	})
	agent := airlineBaseline(t, 0, 0)

	t.Setenv("GEMINI_API_KEY", fakeUserSecret)
	db := tempDB(t)
	r := mustCLI(t, 0, "run", "--domain", "airline", "--tau2-data", root, "--task-ids", "0,1,3,4", "--agent", agent,
		"--user", "llm", "--user-model", "gemini:gemini-2.5-flash", "--llm-base-url", user.URL,
		"--db", db, "--format", "json", "--progress", "none")
	var ev result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Summary.NumSimulations != 4 || ev.Summary.TerminationReasons[string(result.TermUserStop)] != 4 {
		t.Fatalf("terminations %v (%s)", ev.Summary.TerminationReasons, r.stderr)
	}
	// The shared data has no user_simulator/: proctor's copy of tau2's.
	if diff := cmp.Diff(&result.UserGuidelines{Source: result.GuidelinesEmbedded}, ev.Config.UserGuidelines); diff != "" {
		t.Errorf("user guidelines, want the embedded copy (-want +got):\n%s", diff)
	}
	for _, s := range ev.Simulations {
		var toolOK bool
		for _, msg := range s.Messages {
			if msg.Role == result.RoleTool && msg.Name == "list_all_airports" && !msg.Error && strings.Contains(msg.Content, "SFO") {
				toolOK = true
			}
		}
		if !toolOK {
			t.Errorf("%s: the agent's tool call did not run on the airline domain: %+v", s.ID, s.Messages)
		}
		if s.RewardInfo.DBCheck == nil || s.RewardInfo.DBCheck.ExpectedHash == "" {
			t.Errorf("%s: no DB check", s.ID)
		}
	}
	if u := ev.Metrics.LLMUsage[llm.RoleUser]; u.Calls != 8 || u.InputTokens != 4*(800+900) {
		t.Errorf("user model usage %+v", u)
	}

	// get_results gives the same scores back from the store.
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cat, err := catalog.New(root)
	if err != nil {
		t.Fatal(err)
	}
	svc := &skills.Service{Domains: cat, Store: st}
	no := false
	got, _, err := svc.GetResults(context.Background(), skills.ResultsRequest{ID: ev.ID, IncludeTranscripts: &no, IncludeRows: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary.PassHatK["1"] != ev.Summary.PassHatK["1"] || got.Summary.AvgReward != ev.Summary.AvgReward ||
		len(got.SimulationRows) != 4 || got.Config.UserModel != "gemini:gemini-2.5-flash" || got.Metrics.LLMUsage[llm.RoleUser].Calls != 8 {
		t.Errorf("get_results: summary %+v rows %d config %+v", got.Summary, len(got.SimulationRows), got.Config)
	}
	if got.Summary.DoNothingBaseline == nil {
		t.Error("get_results lost the do-nothing baseline")
	}
}

// TestModifiedUserGuidelines: tau2 data whose user simulator guidelines
// are not tau2's gives the user those guidelines, and the evaluation says
// so: in its config and on stderr.
func TestModifiedUserGuidelines(t *testing.T) {
	shared := filepath.Dir(tau2test.Dir(t, "airline"))
	data := t.TempDir()
	if err := os.Symlink(filepath.Join(shared, "airline"), filepath.Join(data, "airline")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	guidelines := filepath.Join(data, install.GuidelinesDir)
	if err := os.Mkdir(guidelines, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"simulation_guidelines.md":       "MODIFIED: play a terse customer.",
		"simulation_guidelines_tools.md": "MODIFIED: play a terse customer with a phone.",
	} {
		if err := os.WriteFile(filepath.Join(guidelines, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	user := llmtest.NewGemini(t, func(r llmtest.Request) llmtest.Reply {
		if !strings.HasPrefix(r.System, "MODIFIED: play a terse customer.") {
			return llmtest.Reply{Status: 400, ErrorMessage: "the user prompt is not the data's guidelines"}
		}
		return llmtest.Reply{Text: "Bye. ###STOP###"}
	})
	t.Setenv("GEMINI_API_KEY", fakeUserSecret)
	db := tempDB(t)
	r := mustCLI(t, 0, "run", "--domain", "airline", "--tau2-data", data, "--task-ids", "0", "--agent", airlineBaseline(t, 0, 0),
		"--user", "llm", "--user-model", "gemini:gemini-2.5-flash", "--llm-base-url", user.URL,
		"--db", db, "--format", "json", "--progress", "none")
	var ev result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Summary.TerminationReasons[string(result.TermUserStop)] != 1 {
		t.Fatalf("terminations %v (%s)", ev.Summary.TerminationReasons, r.stderr)
	}
	want := &result.UserGuidelines{Source: result.GuidelinesFromData, Dir: guidelines, Modified: true, SHA256: map[string]string{
		"simulation_guidelines.md":       sha256Hex("MODIFIED: play a terse customer."),
		"simulation_guidelines_tools.md": sha256Hex("MODIFIED: play a terse customer with a phone."),
	}}
	if diff := cmp.Diff(want, ev.Config.UserGuidelines); diff != "" {
		t.Errorf("user guidelines (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.stderr, "warning: the user simulator speaks from modified guidelines ("+guidelines+")") {
		t.Errorf("no warning of the modified guidelines on stderr:\n%s", r.stderr)
	}

	// Resumed on data without those guidelines, it would be played by two
	// different users: refused.
	if err := os.RemoveAll(guidelines); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.MarkInterrupted(context.Background(), string(result.StatusCompleted), string(result.StatusInterrupted))
	if cerr := st.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	r = mustCLI(t, exitUsage, "run", "--resume", ev.ID, "--tau2-data", data, "--llm-base-url", user.URL, "--db", db, "--progress", "none")
	if !strings.Contains(r.stderr, "played with modified guidelines from "+guidelines) || !strings.Contains(r.stderr, "proctor's copy of tau2's guidelines") {
		t.Errorf("resume with other guidelines:\n%s", r.stderr)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestRetailJudge scores retail's NL_ASSERTION basis with an LLM judge
// faked at the wire: three samples per conversation, their votes and
// reasoning kept, their cost apart from the user's.
func TestRetailJudge(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "retail"))
	fake := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.System, "You judge a conversation") {
			prompt := r.Messages[len(r.Messages)-1].Text
			n := strings.Count(prompt, "\n") // enough to number every assertion
			var results []string
			for i := 1; i <= n; i++ {
				results = append(results, `{"index": `+strconv.Itoa(i)+`, "met": true, "reasoning": "the agent said so"}`)
			}
			return llmtest.Reply{Text: `{"results": [` + strings.Join(results, ",") + `]}`, InputTokens: 1000, OutputTokens: 50}
		}
		for _, m := range r.Messages {
			if m.Role == "assistant" {
				return llmtest.Reply{Text: "###STOP###", InputTokens: 300, OutputTokens: 3}
			}
		}
		return llmtest.Reply{Text: "Hello, I want to return an item.", InputTokens: 200, OutputTokens: 9}
	})
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	agentSrv := agenttest.Start(t, agenttest.Sorry)
	r := mustCLI(t, 0, "run", "--domain", "retail", "--tau2-data", root, "--task-ids", "2,3", "--agent", agentSrv.URL,
		"--user", "llm", "--user-model", "openai:gpt-4.1-mini", "--judge-model", "openai:gpt-4.1", "--llm-base-url", fake.URL,
		"--db", tempDB(t), "--format", "json", "--progress", "none")
	var ev result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, s := range ev.Simulations {
		if !slices.Contains(s.RewardInfo.RewardBasis, "NL_ASSERTION") {
			continue
		}
		judged++
		if s.RewardInfo.RewardBreakdown["NL_ASSERTION"] != 1 || len(s.RewardInfo.NLAssertions) == 0 {
			t.Errorf("%s: NL_ASSERTION %v, checks %+v (%s)", s.ID, s.RewardInfo.RewardBreakdown, s.RewardInfo.NLAssertions, s.RewardInfo.Note)
		}
		for _, c := range s.RewardInfo.NLAssertions {
			if !c.Met || c.MetVotes != 3 || c.Samples != 3 || !strings.Contains(c.Reasoning, "the agent said so") {
				t.Errorf("%s: check %+v", s.ID, c)
			}
		}
	}
	if judged == 0 {
		t.Fatal("no simulation was scored on NL_ASSERTION")
	}
	judge, user := ev.Metrics.LLMUsage[llm.RoleJudge], ev.Metrics.LLMUsage[llm.RoleUser]
	if judge.Calls != 3*judged || judge.InputTokens != int64(1000*judge.Calls) || user.Calls != 4 {
		t.Errorf("judge usage %+v, user usage %+v", judge, user)
	}
	if judge.CostUSD <= user.CostUSD {
		t.Errorf("judge cost %v should exceed the user's %v (gpt-4.1 against gpt-4.1-mini, more tokens)", judge.CostUSD, user.CostUSD)
	}
	if ev.Config.JudgeModel != "openai:gpt-4.1" || ev.Config.JudgeSamples != 3 {
		t.Errorf("config %+v", ev.Config)
	}
}

// TestTelecomUserUsesItsPhone runs a telecom task whose fix is on the
// user's own phone: the LLM user (faked at the wire) calls its user tools
// when the agent asks, the calls run on the user side of the environment,
// and the env assertions on the phone pass.
func TestTelecomUserUsesItsPhone(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "telecom"))
	const task = "[mobile_data_issue]airplane_mode_on|user_abroad_roaming_enabled_off[PERSONA:None]"
	fake := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		var called []string
		for _, m := range r.Messages {
			for _, c := range m.ToolCalls {
				called = append(called, c.Name)
			}
		}
		switch {
		case last.Role == "user" && strings.Contains(last.Text, "airplane mode"):
			if !slices.Contains(r.Tools, "toggle_airplane_mode") || !slices.Contains(r.Tools, "toggle_roaming") {
				return llmtest.Reply{Status: 400, ErrorMessage: "the user has no phone tools"}
			}
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "toggle_airplane_mode", Args: map[string]any{}}}}
		case last.Role == "tool" && len(called) == 1:
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "toggle_roaming", Args: map[string]any{}}}}
		case last.Role == "tool":
			return llmtest.Reply{Text: "Done, both are switched."}
		case last.Role == "user" && strings.Contains(last.Text, "fixed"):
			return llmtest.Reply{Text: "###STOP###"}
		default:
			return llmtest.Reply{Text: "My mobile data does not work; I am in France."}
		}
	})
	agentSrv := agenttest.Start(t, func(_ context.Context, _, text string) string {
		if strings.Contains(text, "Done, both") {
			return `{"name": "respond", "arguments": {"content": "Great, it should be fixed now."}}`
		}
		return `{"name": "respond", "arguments": {"content": "Please turn off airplane mode and turn on roaming on your phone."}}`
	})
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	db := tempDB(t)
	r := mustCLI(t, 0, "run", "--domain", "telecom", "--tau2-data", root, "--task-ids", task, "--agent", agentSrv.URL,
		"--user", "llm", "--user-model", "openai:gpt-4.1-mini", "--llm-base-url", fake.URL,
		"--db", db, "--format", "json", "--progress", "none")
	var ev result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatal(err)
	}
	s := ev.Simulations[0]
	var userCalls []string
	for _, m := range s.Messages {
		if m.Role == result.RoleUser {
			for _, c := range m.ToolCalls {
				userCalls = append(userCalls, c.Name)
			}
		}
		if m.Role == result.RoleTool && m.Requestor == "user" && m.Error {
			t.Errorf("user tool failed: %s", m.Content)
		}
	}
	if got := strings.Join(userCalls, ","); got != "toggle_airplane_mode,toggle_roaming" {
		t.Fatalf("user tool calls %q; transcript %+v", got, s.Messages)
	}
	if s.TerminationReason != result.TermUserStop || s.Reward != 1 {
		t.Fatalf("termination %s reward %v: %+v", s.TerminationReason, s.Reward, s.RewardInfo)
	}
	// Scored again from the recording, the phone's final state is rebuilt
	// by replaying both sides' tool calls: the env assertions hold again.
	sameScores(t, &ev, rescore(t, db, &ev, "--tau2-data", root))

	// The tau2 export carries the task whole, in tau2's names.
	exp := mustCLI(t, 0, "results", ev.ID, "--db", db, "--format", "tau2", "--tau2-data", root)
	var t2 report.Tau2Results
	if err := json.Unmarshal([]byte(exp.stdout), &t2); err != nil {
		t.Fatal(err)
	}
	init := t2.Tasks[0].InitialState
	if init == nil || len(init.InitializationActions) == 0 {
		t.Fatalf("the export lost the task's initial state: %+v", t2.Tasks[0])
	}
	for _, a := range init.InitializationActions {
		if a.FuncName == "" || (a.EnvType != "user" && a.EnvType != "assistant") {
			t.Errorf("initialization action %+v is not in tau2's form", a)
		}
	}
	if len(t2.Tasks[0].EvaluationCriteria.EnvAssertions) == 0 || len(t2.Simulations[0].RewardInfo.EnvAssertions) == 0 {
		t.Errorf("the export lost the env assertions or their outcomes")
	}
}

// airlineBaseline serves proctor's baseline participant on airline, its
// model (OpenAI) faked at the wire: it looks the airports up (reporting
// the tokens given), then answers, then says goodbye. It returns the
// agent's URL.
func airlineBaseline(t *testing.T, inputTokens, outputTokens int) string {
	t.Helper()
	agentModel := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1].Text
		switch {
		case strings.Contains(last, "Hi, I need help"):
			return llmtest.Reply{Text: `{"name": "list_all_airports", "arguments": {}}`, InputTokens: inputTokens, OutputTokens: outputTokens}
		case strings.Contains(last, "SFO"):
			return llmtest.Reply{Text: `{"name": "respond", "arguments": {"content": "Sure, I can help with your reservation."}}`}
		}
		return llmtest.Reply{Text: `{"name": "respond", "arguments": {"content": "Goodbye."}}`}
	})
	return startBaseline(t, agentModel.URL, "airline")
}

// startBaseline serves proctor's baseline agent for domain, its model
// the fake OpenAI server at modelURL, until the test ends, and returns
// the agent's URL.
func startBaseline(t *testing.T, modelURL, domain string) string {
	t.Helper()
	m, err := llm.New(context.Background(), "openai:gpt-4.1", llm.Config{APIKey: "sk-agent", BaseURL: modelURL})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- refagent.ServeBaseline(ctx, ln, refagent.BaselineConfig{Model: m, Domain: domain}) }()
	t.Cleanup(func() { cancel(); <-done })
	return refagent.BaseURL(ln.Addr())
}
