package banking

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/domains"
)

// toolErrorsCase is a case of testdata/tool_errors_cases.json: made-up
// records merged into the fresh database, then tool calls as the agent (or
// the user) makes them, discoverable tools' names included.
type toolErrorsCase struct {
	Name      string         `json:"name"`
	AgentData map[string]any `json:"agent_data"`
	Calls     []struct {
		Name      string         `json:"name"`
		Requestor string         `json:"requestor"`
		Arguments map[string]any `json:"arguments"`
	} `json:"calls"`
}

// toolMessage is one tool message as tau2's Environment.get_response
// makes it: its error flag and its content, whole when it is an error
// text, else as SHA-256.
type toolMessage struct {
	Name          string `json:"name"`
	Error         bool   `json:"error"`
	Content       string `json:"content,omitempty"`
	ContentSHA256 string `json:"content_sha256,omitempty"`
}

// toolErrorsResult is tau2's answer to a case, in
// testdata/tool_errors_expected.json (made by testdata/tool_errors.py run
// by hand with tau2-bench's own code).
type toolErrorsResult struct {
	Name   string        `json:"name"`
	Calls  []toolMessage `json:"calls"`
	DBHash string        `json:"db_hash"`
}

// TestToolErrorsAsTau2 checks the error flag and text of the tool messages
// whose tool raises (a ValueError or AttributeError out of a discoverable
// tool, a TypeError outside call_discoverable_agent_tool's try, a list or
// dict id Python cannot hash), discoverable tools called by their own
// names, and discoverable user tools given arguments that are no JSON
// object, against tau2's answers.
func TestToolErrorsAsTau2(t *testing.T) {
	checkAsTau2(t, "tool_errors", runToolErrors)
}

func (c toolErrorsCase) caseName() string { return c.Name }

func runToolErrors(t *testing.T, d *domains.Domain, c toolErrorsCase) toolErrorsResult {
	t.Helper()
	task := &domains.Task{ID: "tool_errors", InitialState: &domains.InitialState{
		InitializationData: &domains.InitializationData{AgentData: c.AgentData}}}
	env, err := d.NewEnv(task)
	if err != nil {
		t.Fatal(err)
	}
	got := toolErrorsResult{Name: c.Name}
	for _, call := range c.Calls {
		requestor := call.Requestor
		if requestor == "" {
			requestor = domains.RequestorAssistant
		}
		res := env.Call(domains.ToolCall{Name: call.Name, Requestor: requestor, Arguments: call.Arguments})
		msg := toolMessage{Name: call.Name, Error: res.Error}
		if strings.HasPrefix(res.Content, "Error:") {
			msg.Content = res.Content
		} else {
			sum := sha256.Sum256([]byte(res.Content))
			msg.ContentSHA256 = hex.EncodeToString(sum[:])
			t.Logf("%s: %.200q", call.Name, res.Content)
		}
		got.Calls = append(got.Calls, msg)
	}
	if got.DBHash, _, err = domains.SideHashes(env); err != nil {
		t.Fatal(err)
	}
	return got
}
