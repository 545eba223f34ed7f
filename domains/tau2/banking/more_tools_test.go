package banking

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/proctor-eval/proctor/domains"
)

// moreToolsCase is a case of testdata/more_tools_cases.json: made-up
// records merged into the fresh database, then discoverable tool calls that
// no task's gold trajectory makes.
type moreToolsCase struct {
	Name      string         `json:"name"`
	AgentData map[string]any `json:"agent_data"`
	Calls     []struct {
		Tool      string         `json:"tool"`
		Arguments map[string]any `json:"arguments"`
	} `json:"calls"`
}

// moreToolsResult is tau2's answer to a case, in
// testdata/more_tools_expected.json (made by testdata/more_tools.py run by
// hand with tau2-bench's own code; outputs kept as SHA-256).
type moreToolsResult struct {
	Name  string `json:"name"`
	Calls []struct {
		Tool          string `json:"tool"`
		Error         bool   `json:"error"`
		ContentSHA256 string `json:"content_sha256"`
	} `json:"calls"`
	DBHash string `json:"db_hash"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // 60 stays an int, as in Python
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestMoreToolsAsTau2 runs the discoverable tools no gold trajectory calls
// (and the credit card tools off their gold paths) and compares each
// output, its error flag and the final database hash with tau2's.
func TestMoreToolsAsTau2(t *testing.T) {
	checkAsTau2(t, "more_tools", runMoreTools)
}

// namedCase is a case of a fixture made with tau2, named by its "name".
type namedCase interface{ caseName() string }

func (c moreToolsCase) caseName() string { return c.Name }

// checkAsTau2 runs every case of testdata/<fixture>_cases.json with run and
// compares each result with tau2's in testdata/<fixture>_expected.json
// (both written by testdata/<fixture>.py).
func checkAsTau2[C namedCase, R any](t *testing.T, fixture string, run func(*testing.T, *domains.Domain, C) R) {
	t.Helper()
	var cases struct{ Cases []C }
	var want struct{ Cases []R }
	readJSON(t, "testdata/"+fixture+"_cases.json", &cases)
	readJSON(t, "testdata/"+fixture+"_expected.json", &want)
	if len(cases.Cases) != len(want.Cases) {
		t.Fatalf("%d cases, %d expected results: run testdata/%s.py again", len(cases.Cases), len(want.Cases), fixture)
	}
	d := testDomain(t)
	for i, c := range cases.Cases {
		t.Run(c.caseName(), func(t *testing.T) {
			if diff := cmp.Diff(want.Cases[i], run(t, d, c)); diff != "" {
				t.Errorf("differs from tau2 (-tau2 +proctor):\n%s", diff)
			}
		})
	}
}

func runMoreTools(t *testing.T, d *domains.Domain, c moreToolsCase) moreToolsResult {
	t.Helper()
	task := &domains.Task{ID: "more_tools", InitialState: &domains.InitialState{
		InitializationData: &domains.InitializationData{AgentData: c.AgentData}}}
	env, err := d.NewEnv(task)
	if err != nil {
		t.Fatal(err)
	}
	got := moreToolsResult{Name: c.Name}
	for _, call := range c.Calls {
		env.Call(domains.ToolCall{Name: "unlock_discoverable_agent_tool", Requestor: "assistant",
			Arguments: map[string]any{"agent_tool_name": call.Tool}})
		args, err := json.Marshal(call.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		res := env.Call(domains.ToolCall{Name: "call_discoverable_agent_tool", Requestor: "assistant",
			Arguments: map[string]any{"agent_tool_name": call.Tool, "arguments": string(args)}})
		sum := sha256.Sum256([]byte(res.Content))
		got.Calls = append(got.Calls, struct {
			Tool          string `json:"tool"`
			Error         bool   `json:"error"`
			ContentSHA256 string `json:"content_sha256"`
		}{call.Tool, res.Error, hex.EncodeToString(sum[:])})
		t.Logf("%s: %.200q", call.Tool, res.Content)
	}
	if got.DBHash, _, err = domains.SideHashes(env); err != nil {
		t.Fatal(err)
	}
	return got
}
