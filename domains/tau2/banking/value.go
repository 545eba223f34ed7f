package banking

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// The database's records are free-form JSON, which tau2 holds as Python
// dicts: insertion-ordered, with ints and floats apart. A value here is one
// of nil, bool, string, int64 (a Python int), float64 (a Python float),
// *Obj (a dict) or []any (a list).

// Obj is a Python dict with str keys: its keys keep their insertion order.
type Obj struct {
	keys []string
	vals map[string]any
}

// NewObj returns an empty dict.
func NewObj() *Obj { return &Obj{vals: map[string]any{}} }

// objOf builds a dict from alternating keys and values.
func objOf(kv ...any) *Obj {
	o := NewObj()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Len is the number of keys.
func (o *Obj) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys returns the keys in insertion order; the caller must not change it.
func (o *Obj) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Get returns a key's value.
func (o *Obj) Get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// Has reports whether the dict holds k.
func (o *Obj) Has(k string) bool { _, ok := o.Get(k); return ok }

// Set sets a key's value; a new key goes last, as in a Python dict.
func (o *Obj) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Delete removes a key.
func (o *Obj) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Str returns a key's value when it is a str.
func (o *Obj) Str(k string) (string, bool) {
	v, _ := o.Get(k)
	s, ok := v.(string)
	return s, ok
}

// Sub returns a key's value when it is a dict.
func (o *Obj) Sub(k string) *Obj {
	v, _ := o.Get(k)
	s, _ := v.(*Obj)
	return s
}

// PyDump implements pyjson.Dumper.
func (o *Obj) PyDump() any {
	m := make(map[string]any, len(o.keys))
	for k, v := range o.vals {
		m[k] = v
	}
	return m
}

// deepCopy copies a value; dicts and lists are not shared.
func deepCopy(v any) any {
	switch x := v.(type) {
	case *Obj:
		c := &Obj{keys: append([]string(nil), x.keys...), vals: make(map[string]any, len(x.vals))}
		for k, e := range x.vals {
			c.vals[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e)
		}
		return c
	}
	return v
}

// parseJSON reads one JSON value as Python's json.loads does: objects keep
// their key order (a repeated key keeps its first place and last value),
// integers are ints unless intsAsFloats (json.loads(..., parse_int=float)).
func parseJSON(s string, intsAsFloats bool) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := readValue(dec, intsAsFloats)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("extra data after the JSON value")
	}
	return v, nil
}

func readValue(dec *json.Decoder, intsAsFloats bool) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			o := NewObj()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := readValue(dec, intsAsFloats)
				if err != nil {
					return nil, err
				}
				o.Set(kt.(string), v)
			}
			_, err := dec.Token()
			return o, err
		}
		list := []any{}
		for dec.More() {
			v, err := readValue(dec, intsAsFloats)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	case json.Number:
		return number(t, intsAsFloats)
	}
	return tok, nil // nil, bool, string
}

// number is a JSON number as Python reads it: an int for an integer
// literal, a float otherwise.
func number(n json.Number, intsAsFloats bool) (any, error) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			if intsAsFloats {
				return float64(i), nil
			}
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("bad number %s", s)
	}
	return f, nil
}

// fromArg converts a tool argument as proctor decodes it (json.Number,
// map[string]any, []any) into a value here.
func fromArg(v any) any {
	switch x := v.(type) {
	case json.Number:
		n, err := number(x, false)
		if err != nil {
			return string(x)
		}
		return n
	case int:
		return int64(x)
	case float32:
		return float64(x)
	case map[string]any:
		o := NewObj()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		pyjson.SortKeys(keys)
		for _, k := range keys {
			o.Set(k, fromArg(x[k]))
		}
		return o
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = fromArg(e)
		}
		return c
	}
	return v
}

// pyStr is Python's str() of a value, as an f-string writes it.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyRepr is Python's repr() of a value.
func pyRepr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(pycompat.Repr(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(pyjson.FormatFloat(x))
	case *Obj:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pycompat.Repr(k))
			b.WriteString(": ")
			writeRepr(b, x.vals[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e)
		}
		b.WriteByte(']')
	default:
		fmt.Fprintf(b, "%v", x)
	}
}

// pyDumps is Python's json.dumps(v) (ensure_ascii, keys in insertion
// order), or with indent > 0 json.dumps(v, indent=indent).
func pyDumps(v any, indent int) string {
	var b bytes.Buffer
	writeJSON(&b, v, indent, 0)
	return b.String()
}

func writeJSON(b *bytes.Buffer, v any, indent, depth int) {
	newline := func(d int) {
		if indent > 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent*d))
		}
	}
	sep := ", "
	if indent > 0 {
		sep = ","
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		b.Write(pyjson.AppendString(nil, x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		raw, _ := pyjson.Marshal(x)
		b.Write(raw)
	case *Obj:
		if x.Len() == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(sep)
			}
			newline(depth + 1)
			b.Write(pyjson.AppendString(nil, k))
			b.WriteString(": ")
			writeJSON(b, x.vals[k], indent, depth+1)
		}
		newline(depth)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(sep)
			}
			newline(depth + 1)
			writeJSON(b, e, indent, depth+1)
		}
		newline(depth)
		b.WriteByte(']')
	default:
		fmt.Fprintf(b, "%q", fmt.Sprint(x))
	}
}
