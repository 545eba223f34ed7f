package translation

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// Numbers in tool-call arguments keep the agent's literal, as json.Number:
// tau2 decodes the agent's JSON with Python's json.loads, where 2 is an int
// and 2.0 a float, and its tools show the difference ("2 GB" against
// "2.0 GB"). Domain tools read json.Number, and it encodes back as written.

// decodeLiterals decodes JSON text into v with numbers as json.Number.
func decodeLiterals(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	// More after the value is an error, as for json.Unmarshal.
	if strings.TrimLeft(s[dec.InputOffset():], " \t\r\n") != "" {
		return errors.New("invalid character after top-level JSON value")
	}
	return nil
}

// maxExactInt is the largest integer a float64 holds exactly (2^53).
const maxExactInt = 1 << 53

// literalNumbers returns v with every float64 replaced by the json.Number
// the agent most likely wrote: an integral value within ±2^53 as an
// integer, any other as a float. It is for data parts, which the A2A SDKs
// decode to float64 (the protobuf transport has only doubles), so 2 and 2.0
// cannot be told apart there; an integer is what JSON encoders other than
// Python's write for an integral value. Maps and slices are copied, never
// changed in place.
func literalNumbers(v any) any {
	switch x := v.(type) {
	case float64:
		return floatLiteral(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = literalNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = literalNumbers(e)
		}
		return out
	}
	return v
}

func floatLiteral(f float64) any {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f // not JSON; left for the tool to reject
	}
	if f == math.Trunc(f) && math.Abs(f) <= maxExactInt {
		return json.Number(strconv.FormatInt(int64(f), 10))
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return json.Number(s)
}
