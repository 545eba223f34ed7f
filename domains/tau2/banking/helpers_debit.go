package banking

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Python helpers the debit card and bank account tools share.

// getDefault is Python's dict.get(key, dflt): dflt only when key is absent
// (a key holding None gives None).
func getDefault(o *Obj, key string, dflt any) any {
	if v, ok := o.Get(key); ok {
		return v
	}
	return dflt
}

// findRecord is `if id not in db.<table>.data: return notFound` then its
// record: errMsg is notFound, or the TypeError Python raises for an id it
// cannot hash (a list or dict). Any other id that is not a str (a JSON
// number, say) is in no table, whose keys are strs.
func (db *DB) findRecord(table string, id any, notFound string) (rec *Obj, errMsg string) {
	rec, typeErr := db.lookup(table, id)
	switch {
	case typeErr != "":
		return nil, typeErr
	case rec == nil:
		return nil, notFound
	}
	return rec, ""
}

// inStrs is Python's `v in [..strs..]`.
func inStrs(v any, list ...string) bool {
	s, ok := v.(string)
	return ok && slices.Contains(list, s)
}

// foundRecords reports whether a query_database_tool answer found records
// (tau2 checks for both of its "none" phrasings).
func foundRecords(res string) bool {
	return !strings.Contains(res, "No records found") && !strings.Contains(res, "No results found")
}

// pyFloatArg is Python's float(v) of a JSON value: false where float()
// raises (None, a list, a dict, a str that is no number).
func pyFloatArg(v any) (float64, bool) {
	switch x := v.(type) {
	case int64, float64, bool:
		return asFloat(x)
	case string:
		return pyFloatText(x)
	}
	return 0, false
}

// pyFloatText is Python's float(s) of a str: surrounding whitespace,
// underscores between digits, inf, infinity and nan (any case, signed)
// allowed; no hexadecimal.
func pyFloatText(s string) (float64, bool) {
	s = strings.TrimFunc(s, unicode.IsSpace)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" || strings.HasPrefix(strings.ToLower(body), "0x") {
		return 0, false
	}
	if strings.Contains(s, "_") {
		for i := 0; i < len(s); i++ {
			if s[i] == '_' && (i == 0 || i == len(s)-1 || !isASCIIDigit(s[i-1]) || !isASCIIDigit(s[i+1])) {
				return 0, false
			}
		}
		s = strings.ReplaceAll(s, "_", "")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// pyIsDigits is Python's s.isdigit() and len(s) == n for a str; false for
// anything else.
func pyIsDigits(v any, n int) bool {
	s, ok := v.(string)
	if !ok || s == "" || utf8.RuneCountInString(s) != n {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// pyRound4 is Python's round(x, 4) of a float: the exact binary value
// rounded, ties to even.
func pyRound4(x float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// strptimeDate and strptimeDateTime are what Python's strptime matches for
// "%m/%d/%Y" and "%m/%d/%Y %H:%M:%S" (its _strptime regexes: one or two
// digit fields, a four-digit year, whitespace for the space).
var (
	strptimeDate     = regexp.MustCompile(`^(1[0-2]|0[1-9]|[1-9])/(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])/(\d\d\d\d)$`)
	strptimeDateTime = regexp.MustCompile(`^(1[0-2]|0[1-9]|[1-9])/(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])/(\d\d\d\d)\s+(2[0-3]|[0-1]\d|\d):([0-5]\d|\d):(6[0-1]|[0-5]\d|\d)$`)
)

// pyStrptime is datetime.strptime(s, "%m/%d/%Y") or, withTime, with
// " %H:%M:%S"; false where Python raises ValueError.
func pyStrptime(s string, withTime bool) (time.Time, bool) {
	re := strptimeDate
	if withTime {
		re = strptimeDateTime
	}
	m := re.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	n := make([]int, 6)
	for i := 1; i < len(m); i++ {
		n[i-1], _ = strconv.Atoi(strings.TrimSpace(m[i]))
	}
	month, day, year, hour, minute, sec := n[0], n[1], n[2], n[3], n[4], n[5]
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if year < 1 || sec > 59 || t.Day() != day {
		return time.Time{}, false
	}
	return t, true
}

// pyDatetimeMin is datetime.min.
var pyDatetimeMin = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)

// daysBeforeToday is (today - t).days for a midnight t and today's date,
// 11/14/2025 (at get_now()'s 03:40 too, the whole days are the same).
func daysBeforeToday(t time.Time) int64 {
	today := time.Date(2025, 11, 14, 0, 0, 0, 0, time.UTC)
	return (today.Unix() - t.Unix()) / 86400
}

// strptimeTypeError is the TypeError of strptime given a value that is not
// a str.
func strptimeTypeError(v any) string {
	return raiseTypeError("strptime() argument 1 must be str, not " + pyTypeName(v))
}

// compareIntError is the TypeError Python raises when a tool compares v
// with an int: "" when v is a number or a bool, which compare.
func compareIntError(op string, v any) string {
	if _, ok := asFloat(v); ok {
		return ""
	}
	return raiseTypeError("'" + op + "' not supported between instances of '" + pyTypeName(v) + "' and 'int'")
}

// pyZfill is Python's s.zfill(n) for a str of digits.
func pyZfill(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// hexDigits is "".join(c for c in s if c.isdigit())[:n].
func hexDigits(s string, n int) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < n; i++ {
		if isASCIIDigit(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
