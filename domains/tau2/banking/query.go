package banking

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// pyFormat is Python's format(x, ".<prec><verb>") of an int or float
// (verb 'f'); anything else is its str().
func pyFormat(x any, verb byte, prec int) string {
	switch n := x.(type) {
	case int64:
		return strconv.FormatFloat(float64(n), verb, prec, 64)
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return pyStr(n)
		}
		return strconv.FormatFloat(n, verb, prec, 64)
	case bool:
		if n {
			return strconv.FormatFloat(1, verb, prec, 64)
		}
		return strconv.FormatFloat(0, verb, prec, 64)
	}
	return pyStr(x)
}

// pyEqual is Python's == between two JSON-born values.
func pyEqual(a, b any) bool {
	switch x := a.(type) {
	case int64, float64, bool:
		fa, ok1 := asFloat(x)
		fb, ok2 := asFloat(b)
		return ok1 && ok2 && fa == fb
	case string:
		s, ok := b.(string)
		return ok && s == x
	case nil:
		return b == nil
	case *Obj:
		y, ok := b.(*Obj)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.keys {
			v, ok := y.Get(k)
			if !ok || !pyEqual(x.vals[k], v) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// asFloat is a number's value (a bool is 0 or 1, as in Python).
func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case bool:
		if n {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// recordMatches is db_query._record_matches: every constraint holds.
func recordMatches(rec *Obj, constraints *Obj) bool {
	for _, key := range constraints.Keys() {
		want := constraints.vals[key]
		field, op := key, "eq"
		if i := strings.LastIndex(key, "__"); i >= 0 {
			field, op = key[:i], key[i+2:]
		}
		got, _ := rec.Get(field)
		if !compare(op, got, want) {
			return false
		}
	}
	return true
}

// compare applies one of db_query's operators; a comparison Python cannot
// make (a TypeError) does not match.
func compare(op string, a, b any) bool {
	switch op {
	case "ne":
		return !pyEqual(a, b)
	case "gt", "gte", "lt", "lte":
		return order(op, a, b)
	case "contains":
		return contains(a, b)
	case "startswith":
		return a != nil && strings.HasPrefix(pyStr(a), pyStr(b))
	case "endswith":
		return a != nil && strings.HasSuffix(pyStr(a), pyStr(b))
	case "in":
		return contains(b, a)
	case "nin":
		return !contains(b, a)
	}
	return pyEqual(a, b)
}

func order(op string, a, b any) bool {
	var c int
	fa, ok1 := asFloat(a)
	fb, ok2 := asFloat(b)
	sa, ok3 := a.(string)
	sb, ok4 := b.(string)
	switch {
	case ok1 && ok2:
		c = cmpFloat(fa, fb)
	case ok3 && ok4:
		c = strings.Compare(sa, sb)
	default:
		return false
	}
	switch op {
	case "gt":
		return c > 0
	case "gte":
		return c >= 0
	case "lt":
		return c < 0
	}
	return c <= 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// contains is Python's `b in a` for a str, list or dict a.
func contains(a, b any) bool {
	switch x := a.(type) {
	case string:
		s, ok := b.(string)
		return ok && strings.Contains(x, s)
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return pyEqual(e, b) })
	case *Obj:
		s, ok := b.(string)
		return ok && x.Has(s)
	}
	return false
}

// queryIDs is db_query.query_db(return_ids=True): matching records in
// table order.
func (db *DB) queryIDs(table string, constraints *Obj) (ids []string, recs []*Obj) {
	t := db.tables[table]
	if t == nil {
		return nil, nil
	}
	for _, id := range t.Data.Keys() {
		rec, _ := t.Data.vals[id].(*Obj)
		if rec != nil && recordMatches(rec, constraints) {
			ids = append(ids, id)
			recs = append(recs, rec)
		}
	}
	return ids, recs
}

// queryTool is db_query.query_database_tool with constraints given as a
// dict.
func (db *DB) queryTool(table string, constraints *Obj) string {
	if !slices.Contains(queryableNames, table) {
		names := make([]any, len(queryableNames))
		for i, n := range queryableNames {
			names[i] = n
		}
		return fmt.Sprintf("Error: Database '%s' not found. Available: %s", table, pyRepr(names))
	}
	ids, recs := db.queryIDs(table, constraints)
	if len(ids) == 0 {
		return fmt.Sprintf("No records found in '%s'.", table)
	}
	lines := []string{fmt.Sprintf("Found %d record(s) in '%s':\n", len(ids), table)}
	for i, id := range ids {
		lines = append(lines, fmt.Sprintf("%d. Record ID: %s", i+1, id))
		for _, f := range recs[i].Keys() {
			lines = append(lines, "   "+f+": "+pyStr(recs[i].vals[f]))
		}
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// queryField is query_database_tool(table, f'{{"field": "{value}"}}'):
// the value is pasted into JSON text, which may then fail to parse.
func (db *DB) queryField(table, field, value string) string {
	v, err := parseJSON(`{"`+field+`": "`+value+`"}`, false)
	if err != nil {
		return "Error: Invalid JSON: " + err.Error()
	}
	c, ok := v.(*Obj)
	if !ok {
		return "Error: Invalid JSON"
	}
	return db.queryTool(table, c)
}
