package ecp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzFrameReader feeds arbitrary agent output to the framing reader in
// every mode: it never panics, every message it returns is one JSON
// object within the limit, and it stops at the first error.
func FuzzFrameReader(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":true}` + "\n",
		"\n\n{\"a\":1}\n{\"b\":2}",
		"Content-Length: 8\r\n\r\n{\"a\":1}",
		"content-length: 2\r\nContent-Type: x\r\n\r\n{}Content-Length: 3\r\n\r\n{ }",
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: -1\r\n\r\n",
		"not json\n",
		"{\"unterminated\": \n",
		strings.Repeat("{", 300) + "\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		framing := []Framing{FramingAuto, FramingNewline, FramingContentLength}[int(mode)%3]
		const max = 256
		fr := newFrameReader(bytes.NewReader(data), framing, max)
		fr.everyMessage = mode >= 128
		for range 1000 {
			msg, err := fr.Next()
			if err != nil {
				var fe *FrameError
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &fe) {
					t.Fatalf("unexpected error type %T: %v", err, err)
				}
				return
			}
			if int64(len(msg)) > max || len(msg) == 0 || msg[0] != '{' {
				t.Fatalf("Next returned %q", msg)
			}
			var env envelope
			if err := decodeJSON(msg, &env); err != nil && json.Valid(msg) {
				var fe *FrameError
				if errors.As(err, &fe) {
					t.Fatalf("valid JSON %q reported as not JSON", msg)
				}
			}
		}
	})
}

// FuzzStepResult decodes arbitrary step results: a result either decodes
// into calls that each have a name and non-nil arguments, or is an error.
func FuzzStepResult(f *testing.F) {
	for _, s := range []string{
		`{"status":"paused","tool_calls":[{"id":"a","name":"get_user","arguments":{"id":1}}]}`,
		`{"status":"paused","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]}`,
		`{"status":"done","public_output":null,"usage":{"prompt_tokens":3,"completion_tokens":"x"}}`,
		`{"status":"paused","tool_calls":[{"name":"f","arguments":"[1]"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var res StepResult
		if json.Unmarshal(data, &res) != nil {
			return
		}
		for _, c := range res.ToolCalls {
			if c.Name == "" || c.Arguments == nil {
				t.Fatalf("decoded call %+v", c)
			}
		}
	})
}

// FuzzSplitCommand checks that SplitCommand never panics and that words
// quoted back with single quotes split to themselves.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{`a b`, `"a b" 'c'`, `a\ b`, `"\"" '\'`, "\\\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := SplitCommand(line)
		if err != nil {
			return
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		again, err := SplitCommand(strings.Join(quoted, " "))
		if err != nil || len(again) != len(words) {
			t.Fatalf("round trip of %q: %q, %v", words, again, err)
		}
		for i := range words {
			if again[i] != words[i] {
				t.Fatalf("round trip of %q: %q", words, again)
			}
		}
	})
}
