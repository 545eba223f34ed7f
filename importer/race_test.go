//go:build race

package importer

// raceEnabled is true when the tests run with the race detector, which
// slows the import several times over: timed bounds are then not checked.
const raceEnabled = true
