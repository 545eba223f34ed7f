package evalset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
)

// jsonKind is what a JSON file holds, told from its content.
type jsonKind int

const (
	kindUnknown    jsonKind = iota
	kindTRPC                // tRPC-Agent-Go eval set
	kindADK                 // ADK eval set
	kindADKOld              // ADK's older test file: a list of queries
	kindMetrics             // tRPC-Agent-Go metrics: a list of metrics
	kindTestConfig          // ADK test_config.json
)

// parseSetJSON reads an eval set file of any JSON format; nil when the file
// is not one (the problems say why).
func parseSetJSON(path string, data []byte, p problems) *Set {
	if err := checkJSONShape(data); err != nil {
		p.add("", "%v", err)
		return nil
	}
	var top any
	if err := json.Unmarshal(data, &top); err != nil {
		addJSONError(p, err, data)
		return nil
	}
	switch detectJSON(top) {
	case kindTRPC:
		return parseTRPC(path, data, top, p)
	case kindADK:
		return parseADK(path, data, p)
	case kindADKOld:
		return parseADKOld(path, data, p)
	case kindMetrics, kindTestConfig:
		p.add("", "this is a metrics file, not an eval set: give it with --metrics, or keep it beside its eval set")
	default:
		p.add("", "not an eval set: expected a tRPC-Agent-Go set {evalSetId, evalCases}, an ADK set {eval_set_id, eval_cases} or an ADK test list [{query, expected_tool_use, reference}]")
	}
	return nil
}

func detectJSON(top any) jsonKind {
	switch v := top.(type) {
	case []any:
		first, _ := firstObject(v)
		switch {
		case has(first, "query"):
			return kindADKOld
		case has(first, "metricName"):
			return kindMetrics
		}
	case map[string]any:
		switch {
		case has(v, "criteria"):
			return kindTestConfig
		case has(v, "eval_set_id", "eval_cases"):
			return kindADK
		case has(v, "evalSetId", "evalCases"):
			return detectCamelSet(v)
		}
	}
	return kindUnknown
}

// detectCamelSet tells a tRPC set from an ADK set written in camelCase by
// its cases' invocations: ADK's hold genai contents ({parts}) and
// intermediate data, tRPC's messages ({content}) and tools.
func detectCamelSet(set map[string]any) jsonKind {
	cases, _ := set["evalCases"].([]any)
	for _, c := range cases {
		cm, _ := c.(map[string]any)
		if has(cm, "eval_id", "session_input", "conversation_scenario", "final_session_state") {
			return kindADK
		}
		conv, _ := cm["conversation"].([]any)
		for _, inv := range conv {
			if k := detectInvocation(inv); k != kindUnknown {
				return k
			}
		}
	}
	return kindTRPC
}

func detectInvocation(inv any) jsonKind {
	im, _ := inv.(map[string]any)
	switch {
	case has(im, "intermediateData", "intermediate_data", "user_content", "final_response"):
		return kindADK
	case has(im, "tools", "contextMessages", "intermediateResponses"):
		return kindTRPC
	}
	content, _ := im["userContent"].(map[string]any)
	switch {
	case has(content, "parts"):
		return kindADK
	case has(content, "content", "content_parts"):
		return kindTRPC
	}
	return kindUnknown
}

func firstObject(list []any) (map[string]any, bool) {
	if len(list) == 0 {
		return nil, false
	}
	m, ok := list[0].(map[string]any)
	return m, ok
}

// has says whether m has any of the keys.
func has(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// parseTRPC reads a tRPC-Agent-Go eval set; top is the file decoded as any.
func parseTRPC(path string, data []byte, top any, p problems) *Set {
	checkKeys(top, reflect.TypeFor[Set](), "json", "", p)
	var set Set
	if err := json.Unmarshal(data, &set); err != nil {
		addJSONError(p, err, data)
		return nil
	}
	set.Format, set.Path = FormatTRPC, path
	set.AppName = filepath.Base(filepath.Dir(path))
	if set.ID == "" {
		set.ID = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), suffixEvalSet), ".json")
	}
	return &set
}

// addJSONError reports a decoding error with the path or place it names.
func addJSONError(p problems, err error, data []byte) {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line := 1 + bytes.Count(data[:min(int(syntax.Offset), len(data))], []byte("\n"))
		p.add("", "invalid JSON at line %d (byte %d): %v", line, syntax.Offset, syntax)
	case errors.As(err, &typeErr) && typeErr.Field != "":
		p.add(typeErr.Field, "is a JSON %s, want %s", typeErr.Value, describeType(typeErr.Type))
	default:
		p.add("", "invalid JSON: %v", err)
	}
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	}
	return fmt.Sprint(t)
}
