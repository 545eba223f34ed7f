package domains

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseTasks(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		wantErr string
	}{
		{"ok", `[{"id":"a","user_scenario":{"script":["hi"]},"evaluation_criteria":{"reward_basis":["DB"]}}]`, ""},
		{"not json", `{`, "decode tasks"},
		{"not an array", `{"id":"a"}`, "decode tasks"},
		{"no id", `[{"user_scenario":{}}]`, "without id"},
		{"duplicate", `[{"id":"a"},{"id":"a"}]`, "duplicate"},
		{"unknown basis", `[{"id":"a","evaluation_criteria":{"reward_basis":["VIBES"]}}]`, "unknown reward basis"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTasks([]byte(tc.in))
			if tc.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestCompareArgsSurvivesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in      string
		wantNil bool
	}{{`{"name":"x","arguments":{},"compare_args":[]}`, false}, {`{"name":"x","arguments":{}}`, true}} {
		var a Action
		if err := json.Unmarshal([]byte(tc.in), &a); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(a)
		var back Action
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		if (back.CompareArgs == nil) != tc.wantNil {
			t.Errorf("%s -> %s: compare_args nil = %v, want %v", tc.in, out, back.CompareArgs == nil, tc.wantNil)
		}
	}
}

// FuzzParseTasks feeds arbitrary bytes to the task-file parser: task files
// come from users and downloads, so they are untrusted.
func FuzzParseTasks(f *testing.F) {
	f.Add([]byte(`[{"id":"a","user_scenario":{"script":["hi"]},"evaluation_criteria":{"actions":[{"name":"t","arguments":{"x":1}}],"reward_basis":["ACTION"]}}]`))
	f.Add([]byte(`[{"id":"a"},{"id":"a"}]`))
	f.Add([]byte(`[{"id":"","initial_state":{"initialization_actions":[{"name":"x"}]}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tasks, err := ParseTasks(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, task := range tasks {
			if task.ID == "" || seen[task.ID] {
				t.Fatalf("accepted invalid task list: %q", data)
			}
			seen[task.ID] = true
			if len(task.Bases()) == 0 {
				t.Fatal("a task without reward bases")
			}
		}
	})
}
