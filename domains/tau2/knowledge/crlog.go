package knowledge

import (
	"math"
	"math/big"
)

// ln2Digits is ln 2 to 120 significant digits, far beyond what crLog needs.
const ln2Digits = "0.693147180559945309417232121458176568075500134360255254120680009493393621969694715605863326996418687542001481020570685734"

// logPrec is the working precision of crLog, in bits.
const logPrec = 192

// crLog is the natural logarithm correctly rounded to float64, as the C
// library's log that CPython's math.log calls gives it (Go's math.Log may
// be an ulp or two off, which would move BM25 scores off numpy's). It sums
// 2·atanh((m-1)/(m+1)) + e·ln 2 for x = m·2^e in big floats: slow, so
// callers memoize it (BM25 needs only log(k + 0.5) for whole k up to the
// number of documents).
func crLog(x float64) float64 {
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return math.Log(x)
	}
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	bf := func(v float64) *big.Float { return new(big.Float).SetPrec(logPrec).SetFloat64(v) }
	z := new(big.Float).SetPrec(logPrec).Quo(
		new(big.Float).SetPrec(logPrec).Sub(bf(m), bf(1)),
		new(big.Float).SetPrec(logPrec).Add(bf(m), bf(1)))
	z2 := new(big.Float).SetPrec(logPrec).Mul(z, z)
	sum := new(big.Float).SetPrec(logPrec).Set(z)
	power := new(big.Float).SetPrec(logPrec).Set(z)
	term := new(big.Float).SetPrec(logPrec)
	for k := 3; z.Sign() != 0; k += 2 {
		power.Mul(power, z2)
		term.Quo(power, bf(float64(k)))
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -logPrec {
			break
		}
		sum.Add(sum, term)
	}
	sum.Mul(sum, bf(2))
	ln2, _, _ := big.ParseFloat(ln2Digits, 10, logPrec, big.ToNearestEven)
	sum.Add(sum, ln2.Mul(ln2, bf(float64(e))))
	f, _ := sum.Float64()
	return f
}
