package evalset

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// singleOrList marks a list type whose YAML may also be a single element.
type singleOrList interface{ singleOrList() }

// opaque says whether values of t are kept as they are (raw JSON, free
// maps, custom decoders), so their keys are not checked.
func opaque(t reflect.Type) bool {
	return t == reflect.TypeFor[json.RawMessage]() || t == reflect.TypeFor[map[string]any]() || t == reflect.TypeFor[yaml.Node]() ||
		reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]())
}

// checkKeys reports every key of the decoded value v (maps and lists as
// encoding/json or yaml.v3 decode into any) that the type t, read through
// its struct tags named tag, does not have. Values typed any are not
// checked.
func checkKeys(v any, t reflect.Type, tag, path string, p problems) {
	k := keyChecker{tag: tag, p: p, fields: map[reflect.Type]map[string]reflect.Type{}}
	k.check(v, t, path)
}

// keyChecker is one checkKeys call: its tag, its problems, and the fields
// of each struct type met, read once.
type keyChecker struct {
	tag    string
	p      problems
	fields map[reflect.Type]map[string]reflect.Type
}

func (k *keyChecker) check(v any, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if opaque(t) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		k.checkStruct(v, t, path)
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok && t.Implements(reflect.TypeFor[singleOrList]()) {
			k.check(v, t.Elem(), path)
			return
		}
		for i, e := range list {
			k.check(e, t.Elem(), index(path, i))
		}
	case reflect.Map:
		m, _ := v.(map[string]any)
		for _, key := range sortedKeys(m) {
			k.check(m[key], t.Elem(), field(path, key))
		}
	}
}

func (k *keyChecker) checkStruct(v any, t reflect.Type, path string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	fields, read := k.fields[t]
	if !read {
		fields = tagFields(t, k.tag)
		k.fields[t] = fields
	}
	for _, key := range sortedKeys(m) {
		ft, known := fields[key]
		if !known {
			k.p.add(field(path, key), "unknown field (known: %s)", knownList(sortedKeys(fields)))
			continue
		}
		k.check(m[key], ft, field(path, key))
	}
}

// tagFields maps a struct's field names, as the tag names them, to their
// types.
func tagFields(t reflect.Type, tag string) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
