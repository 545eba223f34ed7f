package report

import (
	"math"
	"math/rand/v2"

	"github.com/proctor-eval/proctor/result"
)

// z95 is the standard normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// signFlipDraws is how many random sign assignments estimate a sign-flip
// test's p-values when the exact distribution is too large to enumerate.
const signFlipDraws = 20000

// maxExactStates bounds the exact sign-flip distribution: tasks times
// attainable sums.
const maxExactStates = 4_000_000

// signFlip is the outcome of a paired sign-flip permutation test.
type signFlip struct {
	twoSided, lower float64
	exact           bool
}

// signFlipTest tests whether paired differences d (B minus A, one per
// task) are centred on zero. Under that hypothesis each task's difference
// is as likely to have either sign, so the observed sum is compared with
// the sums of every assignment of signs: twoSided is the chance of a sum at
// least as far from zero, lower of one at most as low (B at least as much
// worse). denom is a common denominator of the differences (the least
// common multiple of the trial counts, 0 when too large): with it the
// distribution is enumerated exactly, otherwise estimated from
// signFlipDraws assignments drawn with a fixed seed, so that the same
// inputs always give the same answer.
func signFlipTest(d []float64, denom int) signFlip {
	if denom > 0 {
		if r, ok := signFlipExact(d, denom); ok {
			return r
		}
	}
	return signFlipSampled(d)
}

func signFlipExact(d []float64, denom int) (signFlip, bool) {
	vals := make([]int, 0, len(d))
	span, obs := 0, 0
	for _, x := range d {
		v := int(math.Round(x * float64(denom)))
		if v < 0 {
			v = -v
		}
		if v != 0 {
			vals = append(vals, v)
			span += v
		}
		obs += int(math.Round(x * float64(denom)))
	}
	if len(vals) == 0 {
		return signFlip{twoSided: 1, lower: 1, exact: true}, true
	}
	if len(vals)*(2*span+1) > maxExactStates {
		return signFlip{}, false
	}
	// dist[s+span] is the probability that the signed sum is s.
	dist := make([]float64, 2*span+1)
	next := make([]float64, 2*span+1)
	dist[span] = 1
	for _, v := range vals {
		clear(next)
		for s, p := range dist {
			if p == 0 {
				continue
			}
			next[s-v] += p / 2
			next[s+v] += p / 2
		}
		dist, next = next, dist
	}
	var r signFlip
	r.exact = true
	absObs := obs
	if absObs < 0 {
		absObs = -absObs
	}
	for i, p := range dist {
		s := i - span
		if s <= obs {
			r.lower += p
		}
		if s >= absObs || s <= -absObs {
			r.twoSided += p
		}
	}
	r.twoSided, r.lower = math.Min(1, r.twoSided), math.Min(1, r.lower)
	return r, true
}

func signFlipSampled(d []float64) signFlip {
	obs := 0.0
	for _, x := range d {
		obs += x
	}
	const eps = 1e-9
	rng := rand.New(rand.NewPCG(0x70726f63, 0x746f72))
	var far, low int
	for range signFlipDraws {
		s := 0.0
		for _, x := range d {
			if rng.Uint64()&1 == 1 {
				s += x
			} else {
				s -= x
			}
		}
		if math.Abs(s) >= math.Abs(obs)-eps {
			far++
		}
		if s <= obs+eps {
			low++
		}
	}
	// The observed assignment counts as one of the draws, so that no
	// p-value is 0.
	n := float64(signFlipDraws + 1)
	return signFlip{twoSided: float64(far+1) / n, lower: float64(low+1) / n}
}

// fisherExact is the two-sided p-value of Fisher's exact test that two
// pass rates, a of n and b of m, are equal: the chance, with the totals
// fixed, of a table no more likely than the observed one.
func fisherExact(a, n, b, m int) float64 {
	succ, total := a+b, n+m
	if n == 0 || m == 0 || succ == 0 || succ == total {
		return 1
	}
	logP := func(x int) float64 { return logChoose(n, x) + logChoose(m, succ-x) - logChoose(total, succ) }
	obs := logP(a)
	p := 0.0
	for x := max(0, succ-m); x <= min(n, succ); x++ {
		if lp := logP(x); lp <= obs+1e-7 {
			p += math.Exp(lp)
		}
	}
	return math.Min(1, p)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// meanCI95 is the mean of xs and its 95% normal interval (the standard
// error of the mean), clipped to [lo, hi].
func meanCI95(xs []float64, lo, hi float64) (float64, result.Interval) {
	if len(xs) == 0 {
		return 0, result.Interval{}
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if len(xs) < 2 {
		return mean, result.Interval{Low: round6(math.Max(lo, mean)), High: round6(math.Min(hi, mean))}
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	half := z95 * math.Sqrt(ss/float64(len(xs)-1)/float64(len(xs)))
	return mean, result.Interval{Low: round6(math.Max(lo, mean-half)), High: round6(math.Min(hi, mean+half))}
}

// lcmUpTo is the least common multiple of ns, or 0 when it exceeds limit.
func lcmUpTo(ns []int, limit int) int {
	l := 1
	for _, n := range ns {
		if n <= 0 {
			continue
		}
		l = l / gcd(l, n) * n
		if l > limit {
			return 0
		}
	}
	return l
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
