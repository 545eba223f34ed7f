//go:build !race

package agent_test

// raceEnabled: see race_test.go.
const raceEnabled = false
