package telecom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// maxTOMLDepth bounds the nesting of a TOML document proctor converts, far
// above what the telecom databases need; it keeps a hostile file from
// exhausting the stack.
const maxTOMLDepth = 32

// TOMLToJSON converts a TOML document (tau2's db.toml and user_db.toml) to
// the JSON that [DB] and [UserDB] decode, as tau2 reads its TOML with
// Python's tomllib before validating it with pydantic:
//
//   - tables become objects whose keys keep the document's order (a Python
//     dict does, and the order of the user's apps shows in a tool);
//   - integers and floats stay as they are: the database types decide, as
//     pydantic does, whether a field is an int or a float;
//   - TOML dates and date-times become the ISO strings pydantic would parse
//     (2025-01-20, 2025-01-20T14:30:00, with the offset when there is one);
//     a local time becomes HH:MM:SS[.ffffff];
//   - infinite and NaN floats are an error, as JSON cannot hold them.
func TOMLToJSON(data []byte) ([]byte, error) {
	var tree map[string]any
	md, err := toml.Decode(string(data), &tree)
	if err != nil {
		return nil, fmt.Errorf("toml: %w", err)
	}
	order := make(map[string]int)
	for i, k := range md.Keys() {
		p := strings.Join(k, "\x00")
		if _, seen := order[p]; !seen {
			order[p] = i
		}
	}
	c := tomlConverter{order: order}
	if err := c.value(nil, tree, 0); err != nil {
		return nil, fmt.Errorf("toml: %w", err)
	}
	return c.buf.Bytes(), nil
}

type tomlConverter struct {
	order map[string]int
	buf   bytes.Buffer
}

// value writes one decoded TOML value at path (its keys from the root; the
// elements of an array share their array's path, as the metadata's keys do).
func (c *tomlConverter) value(path []string, v any, depth int) error {
	if depth > maxTOMLDepth {
		return fmt.Errorf("%s: nested deeper than %d", keyPath(path), maxTOMLDepth)
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		prefix := ""
		if len(path) > 0 {
			prefix = keyPath(path) + "\x00"
		}
		slices.SortFunc(keys, func(a, b string) int {
			ra, oka := c.order[prefix+a]
			rb, okb := c.order[prefix+b]
			switch {
			case oka && okb && ra != rb:
				return ra - rb
			case oka != okb: // keys the metadata knows first
				if oka {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		c.buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				c.buf.WriteByte(',')
			}
			kj, _ := json.Marshal(k) // a string always marshals
			c.buf.Write(kj)
			c.buf.WriteByte(':')
			if err := c.value(append(slices.Clip(path), k), x[k], depth+1); err != nil {
				return err
			}
		}
		c.buf.WriteByte('}')
	case []map[string]any:
		c.buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				c.buf.WriteByte(',')
			}
			if err := c.value(path, e, depth+1); err != nil {
				return err
			}
		}
		c.buf.WriteByte(']')
	case []any:
		c.buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				c.buf.WriteByte(',')
			}
			if err := c.value(path, e, depth+1); err != nil {
				return err
			}
		}
		c.buf.WriteByte(']')
	case string, bool, int64:
		b, _ := json.Marshal(x) // these always marshal
		c.buf.Write(b)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Errorf("%s: %v cannot be stored", keyPath(path), x)
		}
		// Written as a float ("5.0", not "5"), so that JSON keeps what
		// TOML said.
		c.buf.WriteString(jsonFloat(x))
	case time.Time:
		c.buf.WriteByte('"')
		c.buf.WriteString(tomlTime(x))
		c.buf.WriteByte('"')
	default:
		return fmt.Errorf("%s: unsupported TOML value %T", keyPath(path), v)
	}
	return nil
}

func keyPath(path []string) string { return strings.Join(path, "\x00") }

// tomlTime is a TOML date, time or date-time as an ISO string. The decoder
// marks the local kinds with zones of these names.
func tomlTime(t time.Time) string {
	frac := ""
	if us := t.Nanosecond() / 1000; us != 0 {
		frac = fmt.Sprintf(".%06d", us)
	}
	switch t.Location().String() {
	case "date-local":
		return t.Format(time.DateOnly)
	case "time-local":
		return t.Format(time.TimeOnly) + frac
	case "datetime-local":
		return t.Format("2006-01-02T15:04:05") + frac
	}
	return t.Format("2006-01-02T15:04:05") + frac + t.Format("Z07:00")
}
