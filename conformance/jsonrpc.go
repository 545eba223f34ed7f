package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// rpcEnvelope is a JSON-RPC 2.0 response as an agent sent it, decoded
// without trusting it.
type rpcEnvelope struct {
	// Version is the "jsonrpc" member ("" when absent or not a string).
	Version string
	// ID is the "id" member as sent (nil when absent).
	ID json.RawMessage
	// Result is the "result" member (nil when absent).
	Result json.RawMessage
	// Error is the "error" member, when it is present and an object.
	Error *rpcError
	// Problems lists everything that makes the envelope not a valid
	// JSON-RPC 2.0 response, in order.
	Problems []string
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	// Code is the integer code; CodeOK is false when "code" is missing or
	// not an integer.
	Code    int
	CodeOK  bool
	Message string
}

// describe says which error this is, for messages: "error -32601 (Method
// not found)".
func (e *rpcError) describe() string {
	if e == nil {
		return "no error"
	}
	if !e.CodeOK {
		return "an error without an integer code"
	}
	if e.Message == "" {
		return fmt.Sprintf("error %d", e.Code)
	}
	return fmt.Sprintf("error %d (%s)", e.Code, truncateText(e.Message, 80))
}

// recordSeparator starts each record of an RFC 7464 JSON text sequence: an
// agent that frames its events so sends it before their JSON.
const recordSeparator = 0x1E

// decodeEnvelope decodes one JSON-RPC response. It fails only when body is
// not a JSON object; everything else wrong is listed in Problems.
func decodeEnvelope(body []byte) (rpcEnvelope, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		if bytes.HasPrefix(body, []byte{recordSeparator}) {
			return rpcEnvelope{}, errors.New("not a JSON object: it starts with a record separator byte (0x1E, " +
				"the framing of RFC 7464 JSON text sequences, not of JSON-RPC or server-sent events)")
		}
		return rpcEnvelope{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if members == nil {
		return rpcEnvelope{}, fmt.Errorf("not a JSON object: null")
	}
	var env rpcEnvelope
	if v, ok := members["jsonrpc"]; !ok {
		env.Problems = append(env.Problems, `no "jsonrpc" member`)
	} else if err := json.Unmarshal(v, &env.Version); err != nil || env.Version != "2.0" {
		env.Problems = append(env.Problems, fmt.Sprintf(`"jsonrpc" is %s, not "2.0"`, truncateText(string(v), 40)))
	}
	if v, ok := members["id"]; ok {
		env.ID = v
		if !validID(v) {
			env.Problems = append(env.Problems, fmt.Sprintf(`"id" %s is not a string, number or null`, truncateText(string(v), 40)))
		}
	} else {
		env.Problems = append(env.Problems, `no "id" member`)
	}
	res, hasResult := members["result"]
	rawErr, hasError := members["error"]
	switch {
	case hasResult && hasError:
		env.Problems = append(env.Problems, `both "result" and "error"`)
	case !hasResult && !hasError:
		env.Problems = append(env.Problems, `neither "result" nor "error"`)
	}
	if hasResult {
		env.Result = res
	}
	if hasError {
		e, problems := decodeRPCError(rawErr)
		env.Error = e
		env.Problems = append(env.Problems, problems...)
	}
	return env, nil
}

func decodeRPCError(raw json.RawMessage) (*rpcError, []string) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return &rpcError{}, []string{fmt.Sprintf(`"error" %s is not an object`, truncateText(string(raw), 60))}
	}
	e := &rpcError{}
	var problems []string
	if c, ok := obj["code"]; ok {
		var f float64
		if err := json.Unmarshal(c, &f); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<31 {
			e.Code, e.CodeOK = int(f), true
		}
	}
	if !e.CodeOK {
		problems = append(problems, `"error.code" is missing or not an integer`)
	}
	if m, ok := obj["message"]; !ok || json.Unmarshal(m, &e.Message) != nil {
		problems = append(problems, `"error.message" is missing or not a string`)
	}
	return e, problems
}

// validID reports whether raw is a JSON-RPC id: a string, a number or null.
func validID(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case '"':
		var s string
		return json.Unmarshal(t, &s) == nil
	case 'n':
		return string(t) == "null"
	}
	_, err := strconv.ParseFloat(string(t), 64)
	return err == nil
}

// sameID reports whether the id an agent echoed equals the one sent.
func sameID(echoed json.RawMessage, sent string) bool {
	var s string
	return json.Unmarshal(echoed, &s) == nil && s == sent
}

// isNullID reports whether an echoed id is JSON null.
func isNullID(echoed json.RawMessage) bool {
	return string(bytes.TrimSpace(echoed)) == "null"
}
