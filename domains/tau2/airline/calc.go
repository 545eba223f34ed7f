package airline

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains/tau2/pyjson"
)

// Calculate is tau2's calculate tool: it evaluates an arithmetic expression
// made of digits, + - * / ( ) . and spaces with Python's semantics (exact
// integers, true division /, floor division //, power **, unary signs),
// converts the result to a float, rounds it to two decimals as Python's
// round(x, 2) does and returns Python's str() of it: "4.0", "3.33", "1e+17".
//
// The expression is a dump value: anything but a string fails, as it does in
// Python.
func Calculate(expression any) (string, error) {
	s, ok := expression.(string)
	if !ok {
		if _, isList := expression.([]any); isList {
			return "", fmt.Errorf("eval() arg 1 must be a string, bytes or code object")
		}
		return "", fmt.Errorf("'%s' object is not iterable", pyTypeName(expression))
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789+-*/(). ", c) {
			return "", fmt.Errorf("Invalid characters in expression")
		}
	}
	p := &calcParser{src: s}
	if err := p.tokenize(); err != nil {
		return "", err
	}
	tree, err := p.parseExpr()
	if err != nil {
		return "", err
	}
	if p.pos != len(p.toks) {
		return "", errSyntax
	}
	v, err := tree.eval()
	if err != nil {
		return "", err
	}
	f, err := v.float()
	if err != nil {
		return "", err
	}
	return pyjson.FormatFloat(round2(f)), nil
}

// round2 is Python's round(x, 2) for a float: correctly rounded, ties to
// even on the exact binary value.
func round2(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	if err != nil {
		return x
	}
	return r
}

var errSyntax = errors.New("invalid syntax (<string>, line 1)")

// Limits that keep a hostile expression from eating the process. Python has
// no size limit, but any integer this large would fail its conversion to
// float anyway unless divided back down.
const (
	maxCalcDepth   = 200     // nesting of parentheses and unary signs
	maxCalcIntBits = 1 << 20 // size of intermediate integers
)

type calcTok struct {
	op  string // operator or parenthesis; "" for a number
	num calcNum
}

// calcNum is a Python int (exact) or float.
type calcNum struct {
	i       *big.Int
	f       float64
	isFloat bool
}

func intNum(i *big.Int) calcNum  { return calcNum{i: i} }
func floatNum(f float64) calcNum { return calcNum{f: f, isFloat: true} }
func (n calcNum) isInt() bool    { return !n.isFloat }

// float converts to a float as Python's float() does: correctly rounded,
// failing when the integer is too large.
func (n calcNum) float() (float64, error) {
	if n.isFloat {
		return n.f, nil
	}
	f, _ := new(big.Float).SetInt(n.i).Float64()
	if math.IsInf(f, 0) {
		return 0, fmt.Errorf("int too large to convert to float")
	}
	return f, nil
}

type calcParser struct {
	src   string
	toks  []calcTok
	pos   int
	depth int // nesting of parentheses and unary signs
}

// tokenize splits the expression as Python's tokenizer would for this
// alphabet: numbers (1, 00, 1.5, 1., .5), ** // * / + - ( ).
func (p *calcParser) tokenize() error {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			isFloat := false
			if j < len(s) && s[j] == '.' {
				isFloat = true
				j++
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
			}
			lit := s[i:j]
			if isFloat {
				f, err := strconv.ParseFloat(lit, 64)
				if err != nil && !math.IsInf(f, 0) {
					return errSyntax
				}
				p.toks = append(p.toks, calcTok{num: floatNum(f)})
			} else {
				if len(lit) > 1 && lit[0] == '0' && strings.Trim(lit, "0") != "" {
					return fmt.Errorf("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)")
				}
				n, _ := new(big.Int).SetString(lit, 10)
				p.toks = append(p.toks, calcTok{num: intNum(n)})
			}
			i = j
		case strings.HasPrefix(s[i:], "**"), strings.HasPrefix(s[i:], "//"):
			p.toks = append(p.toks, calcTok{op: s[i : i+2]})
			i += 2
		case strings.ContainsRune("+-*/()", rune(c)):
			p.toks = append(p.toks, calcTok{op: s[i : i+1]})
			i++
		default: // a lone '.'
			return errSyntax
		}
	}
	if len(p.toks) == 0 {
		return errSyntax
	}
	return nil
}

func (p *calcParser) peek() string {
	if p.pos < len(p.toks) {
		if t := p.toks[p.pos]; t.op != "" {
			return t.op
		}
		return "num"
	}
	return ""
}

// calcNode is a node of the parsed expression. Python compiles the whole
// expression before running it, so a syntax error anywhere wins over a
// run-time error, and run-time errors come in evaluation order.
type calcNode struct {
	kind string // "num", "neg", "pos", "bin", "call", "tuple"
	op   string
	num  calcNum
	a, b *calcNode
}

// Grammar (Python's, restricted to this alphabet):
//
//	expr    := term (("+" | "-") term)*
//	term    := unary (("*" | "/" | "//") unary)*
//	unary   := ("+" | "-") unary | power
//	power   := primary ["**" unary]
//	primary := atom ("(" [expr] ")")*
//	atom    := number | "(" [expr] ")"

func (p *calcParser) enter() error {
	p.depth++
	if p.depth > maxCalcDepth {
		return fmt.Errorf("too many nested parentheses")
	}
	return nil
}

func (p *calcParser) parseExpr() (*calcNode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	v, err := p.parseTerm()
	if err != nil {
		return nil, err
	}
	for op := p.peek(); op == "+" || op == "-"; op = p.peek() {
		p.pos++
		w, err := p.parseTerm()
		if err != nil {
			return nil, err
		}
		v = &calcNode{kind: "bin", op: op, a: v, b: w}
	}
	return v, nil
}

func (p *calcParser) parseTerm() (*calcNode, error) {
	v, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for op := p.peek(); op == "*" || op == "/" || op == "//"; op = p.peek() {
		p.pos++
		w, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		v = &calcNode{kind: "bin", op: op, a: v, b: w}
	}
	return v, nil
}

func (p *calcParser) parseUnary() (*calcNode, error) {
	if op := p.peek(); op == "+" || op == "-" {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		p.pos++
		v, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		kind := "neg"
		if op == "+" {
			kind = "pos"
		}
		return &calcNode{kind: kind, a: v}, nil
	}
	return p.parsePower()
}

func (p *calcParser) parsePower() (*calcNode, error) {
	v, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	if p.peek() == "**" {
		p.pos++
		w, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return &calcNode{kind: "bin", op: "**", a: v, b: w}, nil
	}
	return v, nil
}

func (p *calcParser) parsePrimary() (*calcNode, error) {
	v, err := p.parseAtom()
	if err != nil {
		return nil, err
	}
	for p.peek() == "(" { // a call such as 3(2): valid syntax, fails when run
		arg, err := p.parseParens()
		if err != nil {
			return nil, err
		}
		v = &calcNode{kind: "call", a: v, b: arg}
	}
	return v, nil
}

func (p *calcParser) parseAtom() (*calcNode, error) {
	switch p.peek() {
	case "num":
		v := p.toks[p.pos].num
		p.pos++
		return &calcNode{kind: "num", num: v}, nil
	case "(":
		v, err := p.parseParens()
		if err != nil {
			return nil, err
		}
		if v == nil {
			return &calcNode{kind: "tuple"}, nil
		}
		return v, nil
	}
	return nil, errSyntax
}

// parseParens parses "(" [expr] ")"; nil means empty parentheses.
func (p *calcParser) parseParens() (*calcNode, error) {
	p.pos++ // "("
	if p.peek() == ")" {
		p.pos++
		return nil, nil
	}
	v, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if p.peek() != ")" {
		return nil, errSyntax
	}
	p.pos++
	return v, nil
}

func typeOf(n calcNum) string {
	if n.isFloat {
		return "float"
	}
	return "int"
}

// eval runs the expression in Python's evaluation order.
func (n *calcNode) eval() (calcNum, error) {
	switch n.kind {
	case "num":
		return n.num, nil
	case "tuple":
		// () is an empty tuple; nothing here turns it back into a number.
		return calcNum{}, fmt.Errorf("float() argument must be a string or a real number, not 'tuple'")
	case "pos", "neg":
		v, err := n.a.eval()
		if err != nil || n.kind == "pos" {
			return v, err
		}
		if v.isFloat {
			return floatNum(-v.f), nil
		}
		return intNum(new(big.Int).Neg(v.i)), nil
	case "call":
		f, err := n.a.eval()
		if err != nil {
			return f, err
		}
		if n.b != nil {
			if _, err := n.b.eval(); err != nil {
				return calcNum{}, err
			}
		}
		return calcNum{}, fmt.Errorf("'%s' object is not callable", typeOf(f))
	}
	a, err := n.a.eval()
	if err != nil {
		return a, err
	}
	b, err := n.b.eval()
	if err != nil {
		return b, err
	}
	if n.op == "**" {
		return pow(a, b)
	}
	return binop(n.op, a, b)
}

func checkSize(i *big.Int) (calcNum, error) {
	if i.BitLen() > maxCalcIntBits {
		return calcNum{}, fmt.Errorf("integer result too large")
	}
	return intNum(i), nil
}

func binop(op string, a, b calcNum) (calcNum, error) {
	if a.isInt() && b.isInt() {
		x, y := a.i, b.i
		switch op {
		case "+":
			return checkSize(new(big.Int).Add(x, y))
		case "-":
			return checkSize(new(big.Int).Sub(x, y))
		case "*":
			if x.BitLen()+y.BitLen() > maxCalcIntBits+1 {
				return calcNum{}, fmt.Errorf("integer result too large")
			}
			return checkSize(new(big.Int).Mul(x, y))
		case "/":
			if y.Sign() == 0 {
				return calcNum{}, fmt.Errorf("division by zero")
			}
			f, _ := new(big.Rat).SetFrac(x, y).Float64()
			if math.IsInf(f, 0) {
				return calcNum{}, fmt.Errorf("integer division result too large for a float")
			}
			return floatNum(f), nil
		case "//":
			if y.Sign() == 0 {
				return calcNum{}, fmt.Errorf("integer division or modulo by zero")
			}
			q, r := new(big.Int).QuoRem(x, y, new(big.Int))
			if r.Sign() != 0 && (r.Sign() < 0) != (y.Sign() < 0) {
				q.Sub(q, big.NewInt(1))
			}
			return intNum(q), nil
		}
	}
	x, err := a.float()
	if err != nil {
		return calcNum{}, err
	}
	y, err := b.float()
	if err != nil {
		return calcNum{}, err
	}
	switch op {
	case "+":
		return floatNum(x + y), nil
	case "-":
		return floatNum(x - y), nil
	case "*":
		return floatNum(x * y), nil
	case "/":
		if y == 0 {
			return calcNum{}, fmt.Errorf("float division by zero")
		}
		return floatNum(x / y), nil
	case "//":
		if y == 0 {
			return calcNum{}, fmt.Errorf("float floor division by zero")
		}
		return floatNum(floorDiv(x, y)), nil
	}
	return calcNum{}, errSyntax
}

// floorDiv is CPython's float floor division.
func floorDiv(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 {
		if (wx < 0) != (mod < 0) {
			div -= 1.0
		}
	}
	if div != 0 {
		floordiv := math.Floor(div)
		if div-floordiv > 0.5 {
			floordiv += 1.0
		}
		return floordiv
	}
	return math.Copysign(0, vx/wx)
}

func pow(a, b calcNum) (calcNum, error) {
	if a.isInt() && b.isInt() && b.i.Sign() >= 0 {
		x, e := a.i, b.i
		// |x| <= 1 stays small whatever the exponent.
		if x.CmpAbs(big.NewInt(1)) > 0 {
			if !e.IsInt64() || e.Int64()*int64(x.BitLen()-1) > maxCalcIntBits {
				return calcNum{}, fmt.Errorf("integer result too large")
			}
		}
		return checkSize(new(big.Int).Exp(x, e, nil))
	}
	x, err := a.float()
	if err != nil {
		return calcNum{}, err
	}
	y, err := b.float()
	if err != nil {
		return calcNum{}, err
	}
	return floatPow(x, y)
}

// floatPow is CPython's float ** float.
func floatPow(iv, iw float64) (calcNum, error) {
	if iw == 0 {
		return floatNum(1), nil
	}
	if math.IsNaN(iv) {
		return floatNum(iv), nil
	}
	if math.IsNaN(iw) {
		if iv == 1 {
			return floatNum(1), nil
		}
		return floatNum(iw), nil
	}
	if math.IsInf(iw, 0) || math.IsInf(iv, 0) {
		return floatNum(math.Pow(iv, iw)), nil
	}
	if iv == 0 {
		if iw < 0 {
			return calcNum{}, fmt.Errorf("0.0 cannot be raised to a negative power")
		}
		return floatNum(math.Pow(iv, iw)), nil
	}
	if iv < 0 && iw != math.Floor(iw) {
		// Python returns a complex number, which float() rejects.
		return calcNum{}, fmt.Errorf("float() argument must be a string or a real number, not 'complex'")
	}
	r := math.Pow(iv, iw)
	if math.IsInf(r, 0) {
		return calcNum{}, fmt.Errorf("(34, 'Numerical result out of range')")
	}
	return floatNum(r), nil
}
