package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/result"
)

// TestUserAuditAirline: an LLM user faked at the wire that names a
// reservation its scenario never gave it is flagged on every simulation;
// the failed ones are set aside and the score without them is given beside
// the plain one. With --audit-model, the auditor reads each conversation
// once and nothing else is called.
func TestUserAuditAirline(t *testing.T) {
	root, db, src, _ := storedAirline(t, "0,1,2,3,4,5", "Hi, I need help with reservation QQQ777.")
	auditor := llmtest.NewOpenAI(t, func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "```json\n" + `{"deviations": ["turn 1: names reservation QQQ777, not in its scenario"], "could_change_outcome": true, "reasoning": "the agent looked for a reservation that does not exist"}` + "\n```"}
	})
	out := mustCLI(t, exitOK, "user-audit", src.ID, "--db", db, "--tau2-data", root, "--format", "json",
		"--audit-model", "openai:auditor", "--llm-base-url", auditor.URL)
	var audit result.UserAudit
	if err := json.Unmarshal([]byte(out.stdout), &audit); err != nil {
		t.Fatalf("%v\n%s", err, clip(out.stdout))
	}
	passed, failed := 0, []string{}
	for _, s := range src.Simulations {
		if s.Passed() {
			passed++
		} else {
			failed = append(failed, s.ID)
		}
	}
	if len(failed) == 0 || passed == 0 {
		t.Fatalf("%d passed, failed %v: the test needs both", passed, failed)
	}
	for _, s := range audit.Simulations {
		if len(s.Flags) == 0 || s.Flags[0].Check != result.UserInventedFact || !strings.Contains(s.Flags[0].Detail, `"QQQ777"`) {
			t.Errorf("%s: flags %+v; want invented_fact QQQ777 first", s.ID, s.Flags)
		}
		if s.Auditor == nil || !s.Auditor.CouldChangeOutcome || len(s.Auditor.Deviations) != 1 {
			t.Errorf("%s: auditor %+v", s.ID, s.Auditor)
		}
	}
	got := []any{audit.Failed, audit.Attributable, audit.SetAside, audit.PassHat1, audit.PassHat1SetAside, audit.AuditorCalls, len(auditor.Requests())}
	want := []any{len(failed), len(failed), failed, src.Summary.PassHatK["1"], 1.0, 6, 6}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit (failed, attributable, set aside, pass^1, set aside, auditor calls, requests) (-want +got):\n%s", diff)
	}

	table := mustCLI(t, exitOK, "user-audit", src.ID, "--db", db, "--tau2-data", root)
	for _, want := range []string{"may be the user simulator's", " set aside\n", "invented_fact (turn 1)", "failed, set aside"} {
		if !strings.Contains(table.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, table.stdout)
		}
	}
	if strings.Contains(table.stdout, "auditor") {
		t.Errorf("without --audit-model the table mentions an auditor:\n%s", table.stdout)
	}
}
