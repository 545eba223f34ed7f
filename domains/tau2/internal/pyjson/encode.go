package pyjson

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of objects and arrays that is encoded.
// CPython's encoder stops at about the same depth (its default recursion
// limit is 1000), and the limit turns a cyclic map into an error instead of
// a stack overflow.
const MaxDepth = 1000

// Dumper lets a caller put its own value into a dump tree. PyDump must
// return a tree made of the types listed in the package documentation; it is
// called once each time the value is encoded.
type Dumper interface {
	PyDump() any
}

// Error reports a value that cannot be encoded, with the path to it.
type Error struct {
	// Path to the value from the root, e.g. `$["users"]["u1"][3]`.
	Path string
	// Msg says what is wrong, e.g. "unsupported type time.Time".
	Msg string

	rev []string // path segments, innermost first, while unwinding
}

func (e *Error) Error() string { return "pyjson: " + e.Msg + " at " + e.Path }

func newError(msg string) *Error { return &Error{Msg: msg} }

// within records one more (outer) path segment while the error unwinds.
func within(err error, seg string) error {
	if e, ok := err.(*Error); ok {
		e.rev = append(e.rev, seg)
	}
	return err
}

func finish(err error) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	var b strings.Builder
	b.WriteString("$")
	for i := len(e.rev) - 1; i >= 0; i-- {
		b.WriteString(e.rev[i])
	}
	e.Path = b.String()
	e.rev = nil
	return e
}

func keySeg(k string) string { return "[" + strconv.Quote(k) + "]" }
func idxSeg(i int) string    { return "[" + strconv.Itoa(i) + "]" }

// Marshal returns the text of json.dumps(v, sort_keys=True, default=str).
func Marshal(v any) ([]byte, error) {
	e := &Encoder{buf: make([]byte, 0, 1024)}
	if err := e.value(v); err != nil {
		return nil, finish(err)
	}
	return e.buf, nil
}

var hashPool = sync.Pool{New: func() any { return new(Encoder) }}

// Hash returns the lower-case hex SHA-256 of Marshal(v): tau2's DB hash when
// v is the model dump of the DB. The text is streamed into the hash and never
// held in memory as a whole.
func Hash(v any) (string, error) {
	h := sha256.New()
	e := hashPool.Get().(*Encoder)
	e.w = h
	err := e.Encode(v)
	e.w = nil
	hashPool.Put(e)
	if err != nil {
		return "", err
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])), nil
}

// flushAt is the buffered size at which an Encoder writes to its writer.
const flushAt = 32 << 10

// member is one key/value pair of an object being written.
type member struct {
	k string
	v any
}

// Encoder writes dump trees to a writer (for example a hash.Hash) through an
// internal buffer of a few tens of KiB, so the full text is never built.
// An Encoder is not safe for concurrent use; it may be reused.
type Encoder struct {
	w     io.Writer // nil: keep everything in buf (Marshal)
	buf   []byte
	depth int
	// Per-depth scratch slices for sorting object members, reused across
	// objects and across Encode calls.
	members [][]member
	strKeys [][]string
}

// NewEncoder returns an Encoder that writes to w.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: w}
}

// Encode writes the text of json.dumps(v, sort_keys=True, default=str) to the
// writer. Unlike encoding/json's Encoder it writes no trailing newline. If it
// returns an error, a prefix of the text may already have been written.
func (e *Encoder) Encode(v any) error {
	if e.w == nil {
		return errors.New("pyjson: Encoder has no writer (use NewEncoder)")
	}
	if cap(e.buf) < flushAt+1024 {
		e.buf = make([]byte, 0, flushAt+4096)
	}
	e.buf = e.buf[:0]
	e.depth = 0
	if err := e.value(v); err != nil {
		e.buf = e.buf[:0]
		for i := range e.members { // do not pin the tree after a failure
			clear(e.members[i][:cap(e.members[i])])
			clear(e.strKeys[i][:cap(e.strKeys[i])])
		}
		return finish(err)
	}
	return e.flush()
}

func (e *Encoder) flush() error {
	if len(e.buf) == 0 {
		return nil
	}
	_, err := e.w.Write(e.buf)
	e.buf = e.buf[:0]
	return err
}

// maybeFlush writes the buffer out once it is large; Marshal (w == nil)
// keeps everything.
func (e *Encoder) maybeFlush() error {
	if e.w != nil && len(e.buf) >= flushAt {
		return e.flush()
	}
	return nil
}

func (e *Encoder) value(v any) error {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.buf = appendString(e.buf, x)
	case map[string]any:
		return e.object(x)
	case []any:
		return e.array(x)
	case bool:
		if x {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case float64:
		e.buf = appendJSONFloat(e.buf, x)
	case []string:
		return e.stringArray(x)
	case map[string]string:
		return e.stringObject(x)
	case []map[string]any:
		return e.objectArray(x)
	case json.Number:
		b, err := appendNumber(e.buf, string(x))
		if err != nil {
			return err
		}
		e.buf = b
	case int8:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int16:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int32:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case uint:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case uint8:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case uint16:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case uint32:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case uint64:
		e.buf = strconv.AppendUint(e.buf, x, 10)
	case uintptr:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case float32:
		e.buf = appendJSONFloat(e.buf, widen32(x))
	case Dumper:
		if e.depth >= MaxDepth {
			return newError("nesting deeper than MaxDepth (cyclic value?)")
		}
		e.depth++
		err := e.value(x.PyDump())
		e.depth--
		return err
	default:
		return newError(fmt.Sprintf("unsupported type %T", v))
	}
	return nil
}

func (e *Encoder) enter() error {
	if e.depth >= MaxDepth {
		return newError("nesting deeper than MaxDepth (cyclic value?)")
	}
	e.depth++
	for len(e.members) < e.depth {
		e.members = append(e.members, nil)
		e.strKeys = append(e.strKeys, nil)
	}
	return nil
}

func (e *Encoder) object(m map[string]any) error {
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if len(m) == 0 {
		e.buf = append(e.buf, "{}"...)
		return nil
	}
	if err := e.enter(); err != nil {
		return err
	}
	ms := e.members[e.depth-1][:0]
	valid := true
	for k, v := range m {
		ms = append(ms, member{k, v})
		if valid && !utf8.ValidString(k) {
			valid = false
		}
	}
	sortMembers(ms, valid)
	e.buf = append(e.buf, '{')
	for i := range ms {
		if i > 0 {
			e.buf = append(e.buf, ", "...)
		}
		e.buf = appendString(e.buf, ms[i].k)
		e.buf = append(e.buf, ": "...)
		if err := e.value(ms[i].v); err != nil {
			return within(err, keySeg(ms[i].k))
		}
		if err := e.maybeFlush(); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	clear(ms) // drop references so the scratch slice does not pin the tree
	e.members[e.depth-1] = ms[:0]
	e.depth--
	return nil
}

func (e *Encoder) stringObject(m map[string]string) error {
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if len(m) == 0 {
		e.buf = append(e.buf, "{}"...)
		return nil
	}
	if err := e.enter(); err != nil {
		return err
	}
	ks := e.strKeys[e.depth-1][:0]
	valid := true
	for k := range m {
		ks = append(ks, k)
		if valid && !utf8.ValidString(k) {
			valid = false
		}
	}
	if valid {
		slices.Sort(ks)
	} else {
		slices.SortFunc(ks, compareCodePoints)
	}
	e.buf = append(e.buf, '{')
	for i, k := range ks {
		if i > 0 {
			e.buf = append(e.buf, ", "...)
		}
		e.buf = appendString(e.buf, k)
		e.buf = append(e.buf, ": "...)
		e.buf = appendString(e.buf, m[k])
		if err := e.maybeFlush(); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	clear(ks)
	e.strKeys[e.depth-1] = ks[:0]
	e.depth--
	return nil
}

func (e *Encoder) array(a []any) error { return encodeArray(e, a, e.value) }

func (e *Encoder) objectArray(a []map[string]any) error { return encodeArray(e, a, e.object) }

// encodeArray writes a list, each element with elem.
func encodeArray[T any](e *Encoder, a []T, elem func(T) error) error {
	if a == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if len(a) == 0 {
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, '[')
	for i, v := range a {
		if i > 0 {
			e.buf = append(e.buf, ", "...)
		}
		if err := elem(v); err != nil {
			return within(err, idxSeg(i))
		}
		if err := e.maybeFlush(); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	e.depth--
	return nil
}

func (e *Encoder) stringArray(a []string) error {
	if a == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if len(a) == 0 {
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	e.buf = append(e.buf, '[')
	for i, s := range a {
		if i > 0 {
			e.buf = append(e.buf, ", "...)
		}
		e.buf = appendString(e.buf, s)
	}
	e.buf = append(e.buf, ']')
	return e.maybeFlush()
}

// sortMembers orders members by key code point. For valid UTF-8, byte order
// is code point order; otherwise keys are compared rune by rune with invalid
// bytes read as U+FFFD, the same reading appendString uses.
func sortMembers(ms []member, validUTF8 bool) {
	if !validUTF8 {
		slices.SortFunc(ms, func(a, b member) int { return compareCodePoints(a.k, b.k) })
		return
	}
	if len(ms) <= 12 {
		// Insertion sort: records have a handful of fields.
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0 && ms[j].k < ms[j-1].k; j-- {
				ms[j], ms[j-1] = ms[j-1], ms[j]
			}
		}
		return
	}
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.k, b.k) })
}

// CompareKeys orders object keys as the encoder writes them: by code
// point, each byte of an invalid UTF-8 sequence read as U+FFFD.
func CompareKeys(a, b string) int { return compareCodePoints(a, b) }

// SortKeys sorts object keys as the encoder writes them (see CompareKeys).
func SortKeys(keys []string) { slices.SortFunc(keys, compareCodePoints) }

// compareCodePoints compares strings by code point, reading each byte of an
// invalid UTF-8 sequence as U+FFFD.
func compareCodePoints(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			if ra < rb {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

const hexDigits = "0123456789abcdef"

// safe[b] reports whether ASCII byte b is written as itself.
var safe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b <= 0x7e; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return
}()

// AppendString appends s as a JSON string with CPython's ensure_ascii
// escaping, as described in the package documentation.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default: // other control characters and DEL
				dst = appendU(dst, rune(b))
			}
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		r, n := utf8.DecodeRuneInString(s[i:]) // invalid: U+FFFD, n == 1
		if r >= 0x10000 {
			r -= 0x10000
			dst = appendU(dst, 0xd800+(r>>10)&0x3ff)
			dst = appendU(dst, 0xdc00+r&0x3ff)
		} else {
			dst = appendU(dst, r)
		}
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u',
		hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// FormatFloat returns Python's repr(f), which is also str(f): for example
// "100.0", "0.1", "1e-05", "1e+16", "nan", "inf", "-inf". Note that json.dumps
// writes the non-finite values differently (NaN, Infinity, -Infinity).
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	var b [32]byte
	return string(appendFiniteFloat(b[:0], f))
}

func appendJSONFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	return appendFiniteFloat(dst, f)
}

// appendFiniteFloat writes float.__repr__ of a finite f.
//
// repr uses fixed notation exactly when the decimal exponent of the shortest
// round-trip digits is in [-4, 16). Because 1e16 is a float64 and rounding
// is monotonic, that exponent condition is the same as 1e-4 <= |f| < 1e16
// (or f == 0): a shortest digit string >= 1e16 could not round back to a
// float below 1e16, and likewise at 1e-4. In fixed notation strconv's 'f'
// with precision -1 prints the same shortest digits; Python then adds ".0"
// when there is no fractional part. In scientific notation strconv's 'e'
// already has Python's layout: "d[.ddd]e±XX" with at least two exponent
// digits. FuzzMarshalFloat checks this against a digit-by-digit layout.
func appendFiniteFloat(dst []byte, f float64) []byte {
	if a := math.Abs(f); a == 0 || (a >= 1e-4 && a < 1e16) {
		n := len(dst)
		dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
		for _, c := range dst[n:] {
			if c == '.' {
				return dst
			}
		}
		return append(dst, '.', '0')
	}
	return strconv.AppendFloat(dst, f, 'e', -1, 64)
}

// widen32 returns the float64 Python would hold after reading the
// float32's shortest decimal form.
func widen32(x float32) float64 {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
		return f
	}
	var b [32]byte
	g, err := strconv.ParseFloat(string(strconv.AppendFloat(b[:0], f, 'g', -1, 32)), 64)
	if err != nil {
		return f
	}
	return g
}

// appendNumber writes a json.Number literal as Python re-dumps json.loads of it.
func appendNumber(dst []byte, s string) ([]byte, error) {
	isInt, ok := scanNumber(s)
	if !ok {
		return dst, newError("invalid json.Number " + strconv.Quote(s))
	}
	if isInt {
		if s == "-0" {
			return append(dst, '0'), nil
		}
		return append(dst, s...), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// Out of range: Go returns ±Inf or ±0 with ErrRange, as Python's
		// float() returns inf or 0.0.
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return dst, newError("invalid json.Number " + strconv.Quote(s))
		}
	}
	return appendJSONFloat(dst, f), nil
}

// scanNumber checks the JSON number grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and reports whether s is an
// integer literal (no fraction, no exponent).
func scanNumber(s string) (isInt, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false, false
	}
	isInt = true
	if i < len(s) && s[i] == '.' {
		isInt = false
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		isInt = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false, false
		}
	}
	return isInt, i == len(s)
}
