package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/report"
)

// TestShow reads stored evaluations of the mock domain made by real runs:
// the reference agent's, which passes, and one by an agent that declines
// everything, whose every check failure must be explained.
func TestShow(t *testing.T) {
	db := tempDB(t)
	good, sorry := storedPair(t, db, "--task-ids", "mock-02,mock-03,mock-04", "--num-trials", "2")
	tests := []struct {
		name  string
		args  []string
		code  int
		lines []string // whole lines of stdout (or of stderr for errors)
	}{
		{"overview", []string{sorry[:13]}, exitOK, []string{
			"simulations  6 (3 tasks x 2 trials)",
			"mock-02#0   0.000   FAIL    user_stop    database differs from the expected state",
			"mock-04#1   0.000   FAIL    user_stop    missing action find_user_by_email; missing action transfer_to_human_agents",
		}},
		{"a failed DB check lists the records", []string{sorry + "/mock-02#1"}, exitOK, []string{
			"simulation mock-02#1 of evaluation " + sorry + ` (mock, "test agent" at ` + "AGENT)",
			"reward 0.000 FAIL, ended user_stop",
			"[user] Hi, this is jane.park@example.com. Please add a task called 'Order catering' with medium priority.",
			"[agent] Sorry, I cannot help with that.",
			"  FAIL DB            final database equals the expected one",
			"       changed    next_task_number  expected 1023, actual 1022",
			`       missing    tasks/T-1022  expected {"created_at":"2025-06-02T09:00:00Z","priority":"medium","status":"open","task_id":"T-1022","title":"Order catering","updated_at":"2025-06-02T09:00:00Z","user_id":"u-1001"}`,
		}},
		{"missing actions and unsaid information, every trial", []string{sorry + "/mock-04"}, exitOK, []string{
			"simulation mock-04#0 of evaluation " + sorry + ` (mock, "test agent" at ` + "AGENT)",
			"simulation mock-04#1 of evaluation " + sorry + ` (mock, "test agent" at ` + "AGENT)",
			`  FAIL ACTION        call find_user_by_email(email="omar.haddad@example.com")`,
			"       find_user_by_email was never called",
		}},
		{"tool calls with their results", []string{good + "/mock-03#0"}, exitOK, []string{
			"reward 1.000 PASS, ended user_stop",
			`  -> find_user_by_email(email="lena.fischer@example.com")`,
			`     = {"name":"Lena Fischer","user_id":"u-1003"}`,
			`  PASS COMMUNICATE   tell the user "Free"`,
		}},
		{"markdown", []string{sorry + "/mock-03#0", "--format", "markdown"}, exitOK, []string{
			"## Simulation `mock-03#0` of `" + sorry + "`",
			`- **FAIL** COMMUNICATE: tell the user "Free"`,
			"  no message of the agent contains it",
		}},
		{"unknown task", []string{sorry + "/mock-99"}, exitUsage, []string{
			"proctor: evaluation " + sorry + ` has no simulation of task "mock-99" (see 'proctor show ` + sorry + "' for its simulations)"}},
		{"unknown trial", []string{sorry + "/mock-02#7"}, exitUsage, []string{
			"proctor: evaluation " + sorry + " has no trial 7 of task mock-02: its trials are 0, 1"}},
		{"unknown evaluation", []string{"ffffffff/mock-02"}, exitUsage, nil},
		{"bad format", []string{sorry, "--format", "table"}, exitUsage, []string{`proctor: --format "table": want text, markdown or json`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustCLI(t, tt.code, append([]string{"show", "--db", db}, tt.args...)...)
			out := r.stdout
			if tt.code != exitOK {
				out = r.stderr
			}
			got := map[string]bool{}
			for _, l := range strings.Split(out, "\n") {
				got[agentURLPattern(l)] = true
			}
			for _, l := range tt.lines {
				if !got[l] {
					t.Errorf("no line %q in:\n%s", l, out)
				}
			}
		})
	}

	r := mustCLI(t, exitOK, "show", "--db", db, sorry+"/mock-02", "--format", "json")
	var reports []report.SimulationReport
	if err := json.Unmarshal([]byte(r.stdout), &reports); err != nil {
		t.Fatalf("--format json: %v\n%s", err, clip(r.stdout))
	}
	if len(reports) != 2 || reports[1].Trial != 1 || len(reports[0].Checks) != 1 || len(reports[0].Checks[0].Records) != 2 {
		t.Errorf("--format json: %d reports, want 2 trials of mock-02 with a DB check listing 2 records:\n%s", len(reports), clip(r.stdout))
	}
}

// agentURLPattern replaces a loopback agent URL, which changes every run,
// with AGENT.
func agentURLPattern(line string) string {
	i := strings.Index(line, "http://127.0.0.1:")
	if i < 0 {
		return line
	}
	j := strings.IndexAny(line[i:], ")\t ")
	if j < 0 {
		j = len(line) - i
	}
	return line[:i] + "AGENT" + line[i+j:]
}

func TestParseShowTarget(t *testing.T) {
	tests := []struct {
		arg  string
		want showTarget
		ok   bool
	}{
		{"01a1fd45", showTarget{id: "01a1fd45", trial: -1}, true},
		{"01a1fd45/mock-02", showTarget{id: "01a1fd45", task: "mock-02", trial: -1}, true},
		{"01a1fd45/mock-02#3", showTarget{id: "01a1fd45", task: "mock-02", trial: 3}, true},
		{"01a1fd45/[x]a/b#c", showTarget{id: "01a1fd45", task: "[x]a/b#c", trial: -1}, true},
		{"01a1fd45/a#1#2", showTarget{id: "01a1fd45", task: "a#1", trial: 2}, true},
		{"/mock-02", showTarget{}, false},
		{"01a1fd45/", showTarget{}, false},
		{"01a1fd45/#1", showTarget{}, false},
		{"01a1fd45/a#+5", showTarget{id: "01a1fd45", task: "a#+5", trial: -1}, true},
	}
	for _, tt := range tests {
		got, err := parseShowTarget(tt.arg)
		if (err == nil) != tt.ok {
			t.Errorf("parseShowTarget(%q): err %v, want ok %v", tt.arg, err, tt.ok)
			continue
		}
		if tt.ok && got != tt.want {
			t.Errorf("parseShowTarget(%q) = %+v, want %+v", tt.arg, got, tt.want)
		}
	}
}

// FuzzParseShowTarget: any argument gives a usage error or a target whose
// parts put back together are the argument.
func FuzzParseShowTarget(f *testing.F) {
	for _, s := range []string{"01a1fd45", "a/b#1", "a/#", "/", "a/b#-1", "a/b#99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		got, err := parseShowTarget(arg)
		if err != nil {
			if !isUsage(err) {
				t.Fatalf("parseShowTarget(%q): %v is not a usage error", arg, err)
			}
			return
		}
		back := got.id
		if got.task != "" {
			back += "/" + got.task
		}
		if got.trial >= 0 {
			back = got.id + "/" + got.task + "#"
		}
		if got.trial < 0 && back != arg || got.trial >= 0 && !strings.HasPrefix(arg, back) {
			t.Fatalf("parseShowTarget(%q) = %+v", arg, got)
		}
	})
}
