// Package store persists proctor's evaluations, simulations and per-request
// metrics in a single bbolt file.
//
// It is proctor's lowest layer and imports no other proctor package. The
// records' payloads (Evaluation.Data, Simulation.Data, Simulation.Requests)
// are opaque JSON owned by the caller, package bench; the store only knows
// the few fields it indexes or filters on: an evaluation's domain, agent URL
// and status, and a simulation's task, trial and reward.
//
// # Layout
//
// Schema version 1 uses six top-level buckets:
//
//	meta         "schema_version" -> "1"
//	evaluations  evaluation id -> JSON of Evaluation
//	simulations  evaluation id -> nested bucket: simulation id -> JSON (Simulation without Requests)
//	requests     evaluation id -> nested bucket: simulation id -> JSON of Simulation.Requests
//	a2a_tasks    A2A task id -> JSON {"version", "user", "updated_at", "task"}
//	conformance  conformance run id -> JSON {"id", "agent_url", "level", "created_at", "data"}
//
// a2a_tasks holds the tasks of `proctor serve` (see TaskStore, an a2a-go
// taskstore.Store). It was added to version 1 without a version bump: a
// writable Open creates it when missing, readers treat a missing bucket as
// empty, and older proctors ignore it. conformance holds the reports of
// `proctor conformance` and the check_conformance skill (PutConformance,
// GetConformance, ListConformance); it was added the same way.
//
// Evaluation ids from NewID are UUIDv7 strings, so the evaluations bucket is
// ordered by creation time and ListEvaluations pages newest-first with a
// cursor. Request metrics live apart from simulations so that reading all the
// simulations of an evaluation does not read every request's metrics.
//
// # Durability and locking
//
// Each Put returns once its bbolt transaction is fsynced (unless WithNoSync);
// concurrent PutSimulation calls share transactions, the ones that queue
// while a commit runs going into the next. PutSimulation writes a simulation and its request metrics together, so a
// crash loses at most the simulations in flight and a restarted run can skip
// finished ones with SimulationIDs. After a crash, MarkInterrupted turns the
// evaluations left "running" into "interrupted", and MarkTasksInterrupted
// fails the A2A tasks whose executions died with the process.
//
// bbolt locks the file: one process may open it read-write (other Opens fail
// with ErrLocked after the lock timeout), or several may open it with
// WithReadOnly. Within a process a *DB is safe for concurrent use.
//
// Open never truncates or rewrites an existing file: a file that is not a
// proctor database, or one written by a newer schema version, is refused.
//
// # Examples
//
// The package example stores an evaluation and its simulations the way a
// resumable run does; ExampleOpen handles a database another proctor holds
// (ErrLocked), and ExampleDB_ListEvaluations pages newest first.
//
// Short ids: GetEvaluation and GetConformance accept a unique prefix or
// suffix of an id of at least 8 characters. Ids begin with their creation
// time, so the last 8 characters, which are random, make the short id.
package store
