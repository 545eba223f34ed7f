package ecp

import (
	"strings"
	"unicode/utf8"
)

// This file holds the fast paths of the one exchange an evaluation makes
// most: agent/step with a plain request and a plain answer. Both write or
// read JSON without reflection; anything outside the narrow shapes they
// take goes the general way (encoding/json), and what they make is what
// encoding/json would make (FuzzFastStep holds the reader to that).

// appendStepParams appends p, which must be plain (plainStepParams), as
// JSON: what encoding/json would write but for the escaping of <, > and &
// (left as they are, which JSON allows).
func appendStepParams(dst []byte, p StepParams) []byte {
	dst = append(dst, `{"input":`...)
	dst = appendJSONString(dst, p.Input)
	dst = append(dst, `,"context":{"time":`...)
	dst = appendJSONString(dst, p.Context.Time)
	dst = append(dst, `,"user_id":`...)
	dst = appendJSONString(dst, p.Context.UserID)
	dst = append(dst, `,"kind":`...)
	dst = appendJSONString(dst, string(p.Context.Kind))
	if p.Context.Policy != "" {
		dst = append(dst, `,"policy":`...)
		dst = appendJSONString(dst, p.Context.Policy)
	}
	return append(dst, '}', '}')
}

// plainStepParams reports whether appendStepParams can encode p: it has
// no tools or history (raw JSON, which the general way checks).
func plainStepParams(p StepParams) bool {
	return len(p.Context.Tools) == 0 && len(p.Context.History) == 0
}

// appendJSONString appends s as a JSON string. Control characters,
// quotes, backslashes and invalid UTF-8 are escaped as encoding/json
// escapes them (invalid bytes become U+FFFD, U+2028 and U+2029 \u
// escapes).
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, `\u00`...)
				dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\u202`...)
			dst = append(dst, hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// The members fastStep reads, as bits of a set.
const (
	seenJSONRPC = 1 << iota
	seenID
	seenResult
	seenStatus
	seenPublic
	seenPrivate
)

// fastStep reads the common answer to agent/step without reflection:
//
//	{"jsonrpc": "2.0", "id": 12, "result": {"status": "done",
//	 "public_output": "...", "private_thought": null, "name": "..."}}
//
// members in any order, each once; strings without escapes; an integer
// id; in the result, other members (matching no field of StepResult, in
// any case) with string, true, false or null values, ignored. env.ID is
// b's own bytes, valid while b is. ok is false
// for anything else (tool calls, usage, an error, a request of the
// agent's), which the caller decodes the general way; res may then hold
// part of the answer.
func fastStep(b []byte, res *StepResult) (env responseEnvelope, ok bool) {
	s := scanner{b: b}
	seen := 0
	ok = s.members(func(key []byte) bool {
		var bit int
		switch string(key) {
		case "jsonrpc":
			v, isStr := s.str()
			if !isStr {
				return false
			}
			env.JSONRPC, bit = internString(v), seenJSONRPC
		case "id":
			v, isInt := s.integer()
			env.ID, bit = v, seenID
			if !isInt {
				return false
			}
		case "result":
			bit = seenResult
			if !s.stepResult(res, &seen) {
				return false
			}
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	if !ok || !s.end() || seen&seenResult == 0 {
		return responseEnvelope{}, false
	}
	env.Result, env.hasResult = res, true
	return env, true
}

// stepResult reads a result object into res.
func (s *scanner) stepResult(res *StepResult, seen *int) bool {
	return s.members(func(key []byte) bool {
		var bit int
		var dst **string
		switch string(key) {
		case "status":
			v, isStr := s.str()
			if !isStr {
				return false
			}
			res.Status, bit = Status(internString(v)), seenStatus
		case "public_output":
			dst, bit = &res.PublicOutput, seenPublic
		case "private_thought":
			dst, bit = &res.PrivateThought, seenPrivate
		default:
			return !matchesStepField(key) && s.ignorable()
		}
		if dst != nil && !s.optionalStr(dst) {
			return false
		}
		if *seen&bit != 0 {
			return false
		}
		*seen |= bit
		return true
	})
}

// internString returns the string of v, without a copy for the values
// every answer repeats.
func internString(v []byte) string {
	switch string(v) {
	case "2.0":
		return "2.0"
	case string(StatusDone):
		return string(StatusDone)
	case string(StatusPaused):
		return string(StatusPaused)
	case string(StatusRunning):
		return string(StatusRunning)
	}
	return string(v)
}

// matchesStepField reports whether encoding/json would read key into a
// field of StepResult (it matches names in any case).
func matchesStepField(key []byte) bool {
	for _, f := range [...]string{"status", "public_output", "private_thought", "tool_calls", "usage"} {
		if strings.EqualFold(string(key), f) {
			return true
		}
	}
	return false
}

// scanner reads the narrow JSON fastStep takes.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// punct reads the byte c after any space.
func (s *scanner) punct(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only space is left.
func (s *scanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

// members reads an object, calling member with each key once the colon
// is read; member reads the value.
func (s *scanner) members(member func(key []byte) bool) bool {
	if !s.punct('{') {
		return false
	}
	if s.punct('}') {
		return true
	}
	for {
		key, ok := s.str()
		if !ok || !s.punct(':') || !member(key) {
			return false
		}
		if s.punct('}') {
			return true
		}
		if !s.punct(',') {
			return false
		}
	}
}

// str reads a string without escapes or control characters, in valid
// UTF-8; the bytes returned are b's own.
func (s *scanner) str() ([]byte, bool) {
	if !s.punct('"') {
		return nil, false
	}
	start, ascii := s.i, true
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			return v, ascii || utf8.Valid(v)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// optionalStr reads a string or null into dst.
func (s *scanner) optionalStr(dst **string) bool {
	if s.literal("null") {
		*dst = nil
		return true
	}
	v, ok := s.str()
	if ok {
		str := string(v)
		*dst = &str
	}
	return ok
}

// integer reads a JSON integer (no fraction or exponent).
func (s *scanner) integer() ([]byte, bool) {
	s.space()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	n := s.i - digits
	if n == 0 || (n > 1 && s.b[digits] == '0') || n > 18 {
		return nil, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return nil, false
	}
	return s.b[start:s.i], true
}

// literal reads the word w (true, false, null) after any space.
func (s *scanner) literal(w string) bool {
	s.space()
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// ignorable reads a value fastStep may skip: a plain string, true, false
// or null.
func (s *scanner) ignorable() bool {
	if s.literal("true") || s.literal("false") || s.literal("null") {
		return true
	}
	_, ok := s.str()
	return ok
}
