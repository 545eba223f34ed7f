//go:build race

package airline

// raceEnabled reports whether the race detector is on: it slows hashing
// about tenfold, so the largest tests scale down.
const raceEnabled = true
