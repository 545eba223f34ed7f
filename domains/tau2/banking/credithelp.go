package banking

import (
	"errors"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
)

// Python conversions and checks the credit card tools share.

// pyParseFloat is Python's float() of a str: surrounding whitespace,
// "inf", "nan" and underscores between digits allowed, hexadecimal not;
// out of range is ±inf, as in Python.
func pyParseFloat(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X") {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// pyInt is Python's int() of a JSON value (a float truncates, a str must
// be an integer literal); false where int() raises ValueError or TypeError.
func pyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		t := strings.TrimSpace(x)
		digits := strings.TrimLeft(t, "+-")
		if strings.Contains(t, "_") {
			if strings.Contains(t, "__") || strings.HasPrefix(digits, "_") || strings.HasSuffix(t, "_") {
				return 0, false
			}
			t = strings.ReplaceAll(t, "_", "") // int("1_000") is 1000
		}
		n, err := strconv.ParseInt(t, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// pyCommas is Python's f"{n:,}" of an int.
func pyCommas(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

// pyMoney is float(str(v).replace("$", "").replace(",", "")), 0.0 where
// that raises (the tools' try/except).
func pyMoney(v any) float64 {
	f, ok := pyParseFloat(strings.NewReplacer("$", "", ",", "").Replace(pyStr(v)))
	if !ok {
		return 0
	}
	return f
}

// lookup is `key in table.data` then table.data[key]: typeErr is the
// TypeError Python raises for an unhashable key (a list or dict).
func (db *DB) lookup(table string, key any) (rec *Obj, typeErr string) {
	if typeErr := unhashableError(key); typeErr != "" {
		return nil, typeErr
	}
	if k, ok := key.(string); ok {
		rec, _ = db.record(table, k)
	}
	return rec, ""
}

// unhashableError is the TypeError Python raises where key, a list or a
// dict, is looked up in a dict; "" for any other key.
func unhashableError(key any) string {
	switch key.(type) {
	case []any, *Obj:
		return raiseTypeError("unhashable type: '" + pyTypeName(key) + "'")
	}
	return ""
}

// display is s.replace("_", " ").title().
func display(v any) string { return pyTitle(strings.ReplaceAll(pyStr(v), "_", " ")) }

// notFound reports query_database_tool's answer for no match.
func notFound(result string) bool {
	return strings.Contains(result, "No results found") || strings.Contains(result, "No records found")
}

// historyReport is the read tools' shape: a header, the tool's name, a
// subject line, then the matching records or a "none" line.
func (db *DB) historyReport(header, tool, subject, table, field string, value any, none string) string {
	res := db.queryField(table, field, pyStr(value))
	parts := []string{header, "", "Executed: " + tool, subject}
	if notFound(res) {
		parts = append(parts, "\n"+none)
	} else {
		parts = append(parts, res)
	}
	return strings.Join(parts, "\n")
}

// compareTypeError is the TypeError of `v <= 0` when v is no number.
func compareTypeError(op string, v any) string {
	return raiseTypeError("'" + op + "' not supported between instances of '" + pyTypeName(v) + "' and 'int'")
}

// floatValueError is the ValueError text of float(s) for a str s.
func floatValueError(s string) string {
	return raiseError("could not convert string to float: " + pycompat.Repr(s))
}
