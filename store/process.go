package store

// Process names the process that wrote an evaluation record, well enough
// for another process on the same machine to tell whether it is gone: a
// proctor killed while another one had the database open leaves its
// evaluations "running", and a resume may take over once their writer is
// gone (see Gone).
type Process struct {
	Host string `json:"host"`
	// Boot is the Linux boot id and PIDNamespace the writer's pid
	// namespace: a PID means something only within both.
	Boot         string `json:"boot,omitempty"`
	PIDNamespace string `json:"pid_ns,omitempty"`
	PID          int    `json:"pid"`
	// Start is the process's start time (clock ticks since boot, from
	// /proc), which tells a reused PID from the writer.
	Start string `json:"start,omitempty"`
}

// Writer is the process this handle writes as: PutEvaluation records it in
// an evaluation it writes without one.
func (db *DB) Writer() *Process { return db.writer }
