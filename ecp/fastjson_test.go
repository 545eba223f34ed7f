package ecp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// generalStep decodes b the general way (encoding/json).
func generalStep(b []byte) (responseEnvelope, StepResult, error) {
	var res StepResult
	env := responseEnvelope{Result: &res}
	err := json.Unmarshal(b, &env)
	return env, res, err
}

// FuzzFastStep holds fastStep to encoding/json: whatever it takes,
// encoding/json takes too and reads the same.
func FuzzFastStep(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":12,"result":{"name":"echo","status":"done","public_output":"ok"}}`,
		` { "result" : { "status" : "paused" , "private_thought" : null, "x": true, "y": false, "z": null } , "id" : -3 , "jsonrpc" : "2.0" } `,
		`{"jsonrpc":"2.0","id":1,"result":{"status":"done","public_output":"héllo"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"STATUS":"done"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"status":"done","status":"running"}}`,
		`{"jsonrpc":"2.0","id":01,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"status":"done","public_output":"a\"b"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"status":"done"}} x`,
		`{"jsonrpc":"2.0","id":1e3,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tool_calls":[]}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"public_output\":\"\xff\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast StepResult
		env, ok := fastStep(b, &fast)
		if !ok {
			return
		}
		genEnv, gen, err := generalStep(b)
		if err != nil {
			t.Fatalf("fastStep took %q, encoding/json refuses it: %v", b, err)
		}
		if diff := cmp.Diff(gen, fast); diff != "" {
			t.Errorf("%q: result (-encoding/json +fastStep):\n%s", b, diff)
		}
		if env.JSONRPC != genEnv.JSONRPC || string(env.ID) != string(genEnv.ID) || !env.hasResult {
			t.Errorf("%q: envelope %+v, encoding/json's %+v", b, env, genEnv)
		}
	})
}

// TestFastStepTakesTheCommonAnswers: the answers an agent usually gives
// take the fast path; the others go the general way.
func TestFastStepTakesTheCommonAnswers(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		fast bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"status":"done","public_output":"Hi","private_thought":"greet"}}`, true},
		{`{"jsonrpc": "2.0", "id": 7, "result": {"status": "running", "public_output": null}}` + "\n", true},
		{`{"jsonrpc":"2.0","id":7,"result":{"status":"paused","tool_calls":[{"id":"c","name":"f","arguments":{}}]}}`, false},
		{`{"jsonrpc":"2.0","id":7,"result":{"status":"done","usage":{"input":1,"output":2}}}`, false},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"no"}}`, false},
		{`{"jsonrpc":"2.0","method":"log","params":{}}`, false},
		{`{"jsonrpc":"2.0","id":7,"result":{"status":"done","public_output":"line\nbreak"}}`, false},
	} {
		var res StepResult
		if _, got := fastStep([]byte(tt.msg), &res); got != tt.fast {
			t.Errorf("%s: fast %v, want %v", tt.msg, got, tt.fast)
		}
	}
}

// FuzzAppendStepParams holds appendStepParams to encoding/json: its JSON
// reads back as the same params.
func FuzzAppendStepParams(f *testing.F) {
	f.Add("Hi, I'm jane.park@example.com.", "2024-05-15T15:00:00Z", "mock-01#0", "Be kind <&>", "user")
	f.Add("tab\t\"quote\" back\\slash \x01 \u2028 \xff", "", "", "", "tool_results")
	f.Fuzz(func(t *testing.T, input, time, user, policy, kind string) {
		p := StepParams{Input: input, Context: StepContext{Time: time, UserID: user, Kind: InputKind(kind), Policy: policy}}
		fast := appendStepParams(nil, p)
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got, back StepParams
		if err := json.Unmarshal(fast, &got); err != nil {
			t.Fatalf("%q does not decode: %v", fast, err)
		}
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(back, got); diff != "" {
			t.Errorf("%q (-encoding/json +appendStepParams):\n%s", fast, diff)
		}
	})
}
