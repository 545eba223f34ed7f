package llm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxMessage bounds ProviderError.Message, whose source may be a whole
// response body.
const maxMessage = 1024

// ProviderError is what a provider call failed with after retries.
//
// Status is the HTTP status of the last attempt: the provider's error
// status, 2xx when the reply arrived but could not be used (malformed JSON,
// an error event or truncation mid-stream, an oversized body), or 0 when no
// response arrived (connection refused or reset). Message is the provider's
// own error message when it sent one, else a description of the failure; it
// never contains the API key. Attempts counts the HTTP requests made,
// retries included.
type ProviderError struct {
	Provider string
	Status   int
	Message  string
	Attempts int
}

// Error formats the failure as "llm: <provider>: HTTP <status> after <n>
// attempts: <message>".
func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString("llm: ")
	b.WriteString(e.Provider)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	} else {
		b.WriteString(": no response")
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// errorMessage extracts the message of a provider's error reply: OpenAI's
// and Gemini's {"error": {"message": ...}}, the variants compatible
// servers send ({"error": "..."}, {"message": ...}, {"detail": ...}, a
// one-element array of these), or else the reply's text.
func errorMessage(status int, body []byte) string {
	var v any
	if json.Unmarshal(body, &v) == nil {
		if msg := findMessage(v, 0); msg != "" {
			return msg
		}
	}
	if text := strings.TrimSpace(string(body)); text != "" && utf8.ValidString(text) {
		return text
	}
	return http.StatusText(status)
}

// errorObjectMessage returns the message of body if it is a whole error
// object, {"error": ...} (or a one-element array of one), else "".
func errorObjectMessage(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	if a, ok := v.([]any); ok && len(a) == 1 {
		v = a[0]
	}
	if o, ok := v.(map[string]any); ok && o["error"] != nil {
		return findMessage(o["error"], 1)
	}
	return ""
}

func findMessage(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch v := v.(type) {
	case []any:
		if len(v) > 0 {
			return findMessage(v[0], depth+1)
		}
	case map[string]any:
		if e, ok := v["error"]; ok {
			if msg := findMessage(e, depth+1); msg != "" {
				return msg
			}
		}
		for _, key := range []string{"message", "detail", "error_description"} {
			if s, ok := v[key].(string); ok && s != "" {
				return s
			}
		}
	case string:
		return v
	}
	return ""
}

// redactor removes the API key from text that may have echoed it.
type redactor string

func (key redactor) redact(s string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, string(key), "[REDACTED]")
}

// message prepares text for ProviderError.Message: key removed, bounded.
func (key redactor) message(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || (unicode.IsControl(r) && r != '\n' && r != '\t') {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(key.redact(s), "?"))
	s = strings.TrimSpace(s)
	if len(s) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// redactedError is an error whose text has the API key removed; it still
// unwraps to the original.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
