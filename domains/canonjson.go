package domains

import (
	"bytes"
	"encoding/json"
	"slices"
)

// maxCanonicalDepth is the nesting canonicalJSON handles itself; deeper
// values (which encoding/json's decoder refuses beyond 10,000) take the
// round trip.
const maxCanonicalDepth = 1000

// canonicalJSON rewrites raw, compact JSON as encoding/json wrote it, into
// the bytes roundTripJSON gives for it: object members sorted by their
// decoded keys, strings in encoding/json's escaping, numbers and literals
// as they are. ok is false for what it leaves to the round trip: an object
// with a key twice (the decoder keeps the last), nesting deeper than
// maxCanonicalDepth, or bytes it does not read as compact JSON.
func canonicalJSON(raw []byte) (out []byte, ok bool) {
	c := canonicalizer{raw: raw, out: make([]byte, 0, len(raw))}
	if !c.value(0) || c.pos != len(raw) {
		return nil, false
	}
	return c.out, true
}

// canonicalizer reads raw from pos and appends the canonical form to out.
// members is a stack of the members of the objects being read, shared by
// all depths.
type canonicalizer struct {
	raw     []byte
	pos     int
	out     []byte
	members []member
	spare   []byte // scratch space for reordering an object's members
}

// member is an object member already written to out: its decoded key and
// where "key":value starts and ends.
type member struct {
	key        []byte
	start, end int
}

func (c *canonicalizer) value(depth int) bool {
	if c.pos >= len(c.raw) || depth > maxCanonicalDepth {
		return false
	}
	switch b := c.raw[c.pos]; {
	case b == '{':
		return c.object(depth)
	case b == '[':
		return c.array(depth)
	case b == '"':
		_, ok := c.str()
		return ok
	default:
		return c.scalar()
	}
}

// scalar copies a number or a literal (true, false, null) as it is: the
// round trip keeps a number's text (json.Number) and the literals.
func (c *canonicalizer) scalar() bool {
	start := c.pos
	for c.pos < len(c.raw) {
		switch c.raw[c.pos] {
		case ',', '}', ']', ':', '{', '[', '"', ' ', '\t', '\n', '\r':
			goto done
		}
		c.pos++
	}
done:
	if c.pos == start {
		return false
	}
	c.out = append(c.out, c.raw[start:c.pos]...)
	return true
}

// str writes the string at pos and returns its decoded value. A string of
// printable ASCII without escapes reads and writes as it is; any other
// (escapes, which may not be encoding/json's own in a MarshalJSON's output,
// and other bytes, which may be invalid UTF-8 there) is decoded and encoded
// again by encoding/json, as the round trip does.
func (c *canonicalizer) str() (decoded []byte, ok bool) {
	start := c.pos
	plain := true
	i := start + 1
	for ; i < len(c.raw) && c.raw[i] != '"'; i++ {
		switch b := c.raw[i]; {
		case b == '\\':
			plain = false
			i++ // the escaped byte cannot end the string
		case b < 0x20 || b >= 0x80 || b == '<' || b == '>' || b == '&':
			plain = false
		}
	}
	if i >= len(c.raw) {
		return nil, false
	}
	c.pos = i + 1
	quoted := c.raw[start:c.pos]
	if plain {
		c.out = append(c.out, quoted...)
		return quoted[1 : len(quoted)-1], true
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return nil, false
	}
	enc, err := json.Marshal(s)
	if err != nil {
		return nil, false
	}
	c.out = append(c.out, enc...)
	return []byte(s), true
}

func (c *canonicalizer) array(depth int) bool {
	c.pos++ // [
	c.out = append(c.out, '[')
	for i := 0; ; i++ {
		if c.pos >= len(c.raw) {
			return false
		}
		if c.raw[c.pos] == ']' {
			c.pos++
			c.out = append(c.out, ']')
			return true
		}
		if i > 0 {
			if c.raw[c.pos] != ',' {
				return false
			}
			c.pos++
			c.out = append(c.out, ',')
		}
		if !c.value(depth + 1) {
			return false
		}
	}
}

// object writes the object's members as they come, then puts them in the
// order of their keys if they are not in it.
func (c *canonicalizer) object(depth int) bool {
	c.pos++ // {
	c.out = append(c.out, '{')
	base, first := len(c.members), len(c.out)
	defer func() { c.members = c.members[:base] }()
	for i := 0; ; i++ {
		if c.pos >= len(c.raw) {
			return false
		}
		if c.raw[c.pos] == '}' {
			c.pos++
			break
		}
		if i > 0 {
			if c.raw[c.pos] != ',' {
				return false
			}
			c.pos++
			c.out = append(c.out, ',')
		}
		if !c.member(depth) {
			return false
		}
	}
	if !c.sortMembers(c.members[base:], first) {
		return false
	}
	c.out = append(c.out, '}')
	return true
}

// member writes one "key":value and records it.
func (c *canonicalizer) member(depth int) bool {
	start := len(c.out)
	if c.pos >= len(c.raw) || c.raw[c.pos] != '"' {
		return false
	}
	key, ok := c.str()
	if !ok || c.pos >= len(c.raw) || c.raw[c.pos] != ':' {
		return false
	}
	c.pos++
	c.out = append(c.out, ':')
	if !c.value(depth + 1) {
		return false
	}
	c.members = append(c.members, member{key: key, start: start, end: len(c.out)})
	return true
}

// sortMembers rewrites out from first, where ms were written in the order
// they came, separated by commas, with the members in key order. It is
// false when a key comes twice.
func (c *canonicalizer) sortMembers(ms []member, first int) bool {
	sorted := slices.IsSortedFunc(ms, compareMembers)
	if !sorted {
		slices.SortFunc(ms, compareMembers)
	}
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(ms[i-1].key, ms[i].key) {
			return false
		}
	}
	if sorted {
		return true
	}
	c.spare = append(c.spare[:0], c.out[first:]...)
	c.out = c.out[:first]
	for i, m := range ms {
		if i > 0 {
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, c.spare[m.start-first:m.end-first]...)
	}
	return true
}

// compareMembers orders members as encoding/json orders a map's keys: by
// their bytes.
func compareMembers(a, b member) int { return bytes.Compare(a.key, b.key) }
