package server

import "runtime"

// Bounds of DefaultMaxSimulationConcurrency.
const (
	// simulationsPerCPU: a simulation mostly waits on the agent; the
	// scripted user, the tools and the scoring take little CPU each, and
	// 64 per core keep the server (health checks, other callers)
	// responsive.
	simulationsPerCPU = 64
	// fdsPerSimulation: a conversation holds a connection to the agent,
	// one more to the user's model with an LLM user, and the server side
	// of the built-in agent's connection when it is evaluated; one spare.
	fdsPerSimulation = 4
	// maxDefaultSimulations caps the default on big machines.
	maxDefaultSimulations = 1024
)

// DefaultMaxSimulationConcurrency is the default of `proctor serve
// --max-simulation-concurrency`, sized for the machine: 64 simulations per
// CPU (GOMAXPROCS), and no more than half the process's file descriptors
// can serve at fdsPerSimulation each (the other half stay for callers,
// streams and the database), at most maxDefaultSimulations and at least 1.
// On a 2-CPU machine with a high descriptor limit that is 128.
func DefaultMaxSimulationConcurrency() int {
	n := simulationsPerCPU * runtime.GOMAXPROCS(0)
	if fds := openFileLimit(); fds > 0 {
		n = min(n, fds/2/fdsPerSimulation)
	}
	return max(1, min(n, maxDefaultSimulations))
}
