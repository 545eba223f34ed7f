package tau2model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// maxErrors bounds the problems Decode reports.
const maxErrors = 50

// Decode reads a results.json as tau2's Results.model_validate_json would
// accept it, and stricter where that helps a test: every field of the file
// must be one tau2's models have (pydantic ignores unknown fields: here
// they are errors, so that nothing proctor writes is silently dropped),
// JSON types must be the field's own (pydantic's lax mode would coerce
// "1" to 1), fields without a default must be present, fields that are
// not Optional must not be null, and enums must hold tau2's values. Every
// problem is reported, each with its path. Numbers in free-form objects
// (arguments, info) are json.Number, so 2 and 2.0 stay apart as they do
// for Python.
func Decode(data []byte) (*Results, error) {
	var r Results
	if err := strictUnmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("tau2 results: %w", err)
	}
	var raw any
	if err := strictUnmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("tau2 results: %w", err)
	}
	c := &checker{}
	c.check(reflect.TypeFor[Results](), raw, "results")
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("tau2 results: %w", errors.Join(c.errs...))
	}
	return &r, nil
}

// strictUnmarshal decodes one JSON value into v: unknown fields are errors,
// numbers in interfaces json.Number.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// UnmarshalJSON reads one of tau2's messages, by its role (a tool message
// with tool_messages is a MultiToolMessage), strictly.
func (m *Message) UnmarshalJSON(b []byte) error {
	var head struct {
		Role         string          `json:"role"`
		ToolMessages json.RawMessage `json:"tool_messages"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*m = Message{}
	switch {
	case head.Role == "system":
		m.System = &SystemMessage{}
		return strictUnmarshal(b, m.System)
	case head.Role == "assistant" || head.Role == "user":
		m.Participant = &ParticipantMessage{}
		return strictUnmarshal(b, m.Participant)
	case head.Role == "tool" && head.ToolMessages != nil:
		m.MultiTool = &MultiToolMessage{}
		return strictUnmarshal(b, m.MultiTool)
	case head.Role == "tool":
		m.Tool = &ToolMessage{}
		return strictUnmarshal(b, m.Tool)
	}
	return fmt.Errorf("message role %q: want system, assistant, user or tool", head.Role)
}

// MarshalJSON writes the message's kind.
func (m Message) MarshalJSON() ([]byte, error) {
	switch {
	case m.System != nil:
		return json.Marshal(m.System)
	case m.Participant != nil:
		return json.Marshal(m.Participant)
	case m.Tool != nil:
		return json.Marshal(m.Tool)
	case m.MultiTool != nil:
		return json.Marshal(m.MultiTool)
	}
	return nil, errors.New("empty message")
}

// kind returns the type of the message JSON raw holds, for checker.
func (Message) kind(raw any) (reflect.Type, error) {
	obj, _ := raw.(map[string]any)
	switch role, _ := obj["role"].(string); role {
	case "system":
		return reflect.TypeFor[SystemMessage](), nil
	case "assistant", "user":
		return reflect.TypeFor[ParticipantMessage](), nil
	case "tool":
		if _, ok := obj["tool_messages"]; ok {
			return reflect.TypeFor[MultiToolMessage](), nil
		}
		return reflect.TypeFor[ToolMessage](), nil
	}
	return nil, fmt.Errorf("role %v: want system, assistant, user or tool", obj["role"])
}

// UnmarshalJSON reads instructions as text or, strictly, as tau2's
// StructuredUserInstructions.
func (in *Instructions) UnmarshalJSON(b []byte) error {
	*in = Instructions{}
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		in.Structured = &StructuredUserInstructions{}
		return strictUnmarshal(b, in.Structured)
	}
	in.Text = new(string)
	return json.Unmarshal(b, in.Text)
}

// MarshalJSON writes the instructions as they were read.
func (in Instructions) MarshalJSON() ([]byte, error) {
	if in.Structured != nil {
		return json.Marshal(in.Structured)
	}
	return json.Marshal(in.Text)
}

func (Instructions) kind(raw any) (reflect.Type, error) {
	switch raw.(type) {
	case map[string]any:
		return reflect.TypeFor[StructuredUserInstructions](), nil
	case string:
		return reflect.TypeFor[string](), nil
	}
	return nil, errors.New("instructions: want a string or an object")
}

// union is a type that is one of several models, told apart by the JSON.
type union interface {
	kind(raw any) (reflect.Type, error)
}

// enum is a type whose values are a fixed set.
type enum interface{ Valid() bool }

var (
	unionType = reflect.TypeFor[union]()
	enumType  = reflect.TypeFor[enum]()
	rawType   = reflect.TypeFor[json.RawMessage]()
)

// checker walks a decoded JSON value beside the type it was decoded into
// and collects what pydantic would refuse and json.Unmarshal accepts:
// missing required fields, null where null is not allowed, values outside
// an enum.
type checker struct{ errs []error }

func (c *checker) fail(path, format string, a ...any) {
	if len(c.errs) < maxErrors {
		c.errs = append(c.errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, a...)))
	}
}

func (c *checker) check(t reflect.Type, raw any, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawType || t.Kind() == reflect.Interface {
		return // not modelled
	}
	if t.Implements(unionType) {
		kt, err := reflect.Zero(t).Interface().(union).kind(raw)
		if err != nil {
			c.fail(path, "%v", err)
			return
		}
		c.check(kt, raw, path)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		c.checkStruct(t, raw, path)
	case reflect.Slice:
		items, _ := raw.([]any)
		for i, item := range items {
			c.checkValue(t.Elem(), item, fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		obj, _ := raw.(map[string]any)
		for k, v := range obj {
			c.checkEnum(t.Key(), k, path+" key "+k)
			c.checkValue(t.Elem(), v, path+"."+k)
		}
	case reflect.String:
		if s, ok := raw.(string); ok {
			c.checkEnum(t, s, path)
		}
	}
}

// checkValue checks an item of a list or map: null only where its type is
// a pointer or a free-form value.
func (c *checker) checkValue(t reflect.Type, raw any, path string) {
	if raw == nil {
		if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && t != rawType {
			c.fail(path, "null is not allowed")
		}
		return
	}
	c.check(t, raw, path)
}

func (c *checker) checkStruct(t reflect.Type, raw any, path string) {
	obj, ok := raw.(map[string]any)
	if !ok {
		c.fail(path, "want an object")
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		flags := f.Tag.Get("tau2")
		v, present := obj[name]
		switch {
		case !present:
			if strings.Contains(flags, "req") {
				c.fail(path, "required field %q is missing", name)
			}
		case v == nil:
			if !strings.Contains(flags, "null") {
				c.fail(path+"."+name, "null is not allowed")
			}
		default:
			c.check(f.Type, v, path+"."+name)
		}
	}
}

// checkEnum fails a string that is not a value of t, when t is an enum.
func (c *checker) checkEnum(t reflect.Type, s, path string) {
	if !t.Implements(enumType) || t.Kind() != reflect.String {
		return
	}
	v := reflect.New(t).Elem()
	v.SetString(s)
	if !v.Interface().(enum).Valid() {
		c.fail(path, "%q is not one of tau2's %s values", s, t.Name())
	}
}
