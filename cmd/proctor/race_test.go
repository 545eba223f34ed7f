//go:build race

package main

// raceEnabled is true when the tests run with the race detector; the
// binary the tests build is then built with it too, so that it reuses the
// packages the test build already compiled instead of compiling every
// dependency a second time.
const raceEnabled = true
