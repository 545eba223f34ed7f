package pycompat

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// PydanticURLVersion is the pydantic version that ValidationError texts
// name in their errors.pydantic.dev links: the minor version of the
// pydantic that tau2's uv.lock pins (2.12.4 at tau2-bench a2c0247). The
// link is the one part of the text that changes with pydantic's version.
const PydanticURLVersion = "2.12"

// FieldError is one error of a pydantic ValidationError: the field, the
// message, the error type and the input that failed.
type FieldError struct {
	Loc, Msg, Type string
	Input          any
}

// StringTypeError is pydantic's error for a str field given something
// else.
func StringTypeError(field string, input any) FieldError {
	return FieldError{Loc: field, Msg: "Input should be a valid string", Type: "string_type", Input: input}
}

// ValidationError is the text of pydantic 2's ValidationError for a
// model built from decoded JSON values, as str(e) gives it:
//
//	1 validation error for Task
//	title
//	  Input should be a valid string [type=string_type, input_value=123, input_type=int]
//	    For further information visit https://errors.pydantic.dev/2.12/v/string_type
func ValidationError(model string, errs []FieldError) error {
	var b strings.Builder
	if len(errs) == 1 {
		fmt.Fprintf(&b, "1 validation error for %s", model)
	} else {
		fmt.Fprintf(&b, "%d validation errors for %s", len(errs), model)
	}
	for _, e := range errs {
		fmt.Fprintf(&b, "\n%s\n  %s [type=%s, input_value=%s, input_type=%s]\n    For further information visit https://errors.pydantic.dev/%s/v/%s",
			e.Loc, e.Msg, e.Type, truncatedRepr(ReprValue(e.Input)), TypeName(e.Input), PydanticURLVersion, e.Type)
	}
	return errors.New(b.String())
}

// truncatedRepr shortens a repr longer than 50 characters to its first 25
// and last 24, as pydantic-core does in error texts.
func truncatedRepr(s string) string {
	r := []rune(s)
	if len(r) <= 50 {
		return s
	}
	return string(r[:25]) + "..." + string(r[len(r)-24:])
}

// ReprValue is Python's repr() of a decoded JSON value. A dict's keys are
// written sorted (Go's maps keep no insertion order).
func ReprValue(v any) string {
	switch t := v.(type) {
	case string:
		return Repr(t)
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = ReprValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = Repr(k) + ": " + ReprValue(t[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	if s, ok := Str(v); ok {
		return s
	}
	return fmt.Sprint(v)
}
