package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"go.etcd.io/bbolt"
)

// Simulation is one simulation (one task x one trial) of an evaluation.
type Simulation struct {
	// ID is the caller's key, e.g. "task-3#0", unique within an evaluation.
	ID string `json:"id"`
	// TaskID is the task simulated.
	TaskID string `json:"task_id"`
	// Trial is the trial number of the task.
	Trial int `json:"trial"`
	// Reward is the simulation's reward; it must be finite.
	Reward float64 `json:"reward"`
	// Data is the full simulation result (transcript, reward breakdown,
	// metrics) as opaque JSON; stored compacted, null or empty reads back
	// as nil.
	Data json.RawMessage `json:"data"`
	// Requests is the per-request metrics array. It is stored in its own
	// bucket so that listing simulations does not read it; Simulations
	// leaves it nil, Requests returns it.
	Requests json.RawMessage `json:"requests"`
}

// simRecord is the stored form of a Simulation: everything but Requests.
type simRecord struct {
	ID     string          `json:"id"`
	TaskID string          `json:"task_id"`
	Trial  int             `json:"trial"`
	Reward float64         `json:"reward"`
	Data   json.RawMessage `json:"data"`
}

// PutSimulation inserts s into evaluation evalID, or replaces the simulation
// with the same ID. The simulation and its request metrics are written in one
// transaction, so a crash loses at most the simulations still in flight and
// never leaves one without its metrics. Replacing a simulation with nil
// Requests removes its old request metrics. The evaluation must exist (else
// the error wraps ErrNotFound).
//
// Calls from many goroutines are group-committed: the simulations that
// queue while a commit runs share the next transaction and its fsync. Each call returns only once
// its simulation is durable, so a simulation acknowledged is never lost.
func (db *DB) PutSimulation(ctx context.Context, evalID string, s Simulation) error {
	if err := validateID(kindEvaluation, evalID); err != nil {
		return err
	}
	if err := validateID(kindSimulation, s.ID); err != nil {
		return err
	}
	val, reqs, err := db.encodeSimulation(evalID, s)
	if err != nil {
		return err
	}
	return db.batch(ctx, func(tx *bbolt.Tx) error {
		return putSimulation(tx, evalID, s.ID, val, reqs)
	})
}

// encodeSimulation checks s and returns its stored value and its compacted
// request metrics (nil when it has none). It runs outside the write
// transaction: writers are serialized.
func (db *DB) encodeSimulation(evalID string, s Simulation) (val, reqs []byte, err error) {
	if math.IsNaN(s.Reward) || math.IsInf(s.Reward, 0) {
		return nil, nil, fmt.Errorf("store: simulation %q of evaluation %q: reward %v is not a finite number", s.ID, evalID, s.Reward)
	}
	if err := db.checkSize(fmt.Sprintf("data of simulation %q of evaluation %q", s.ID, evalID), len(s.Data)); err != nil {
		return nil, nil, err // before encoding a huge payload
	}
	val, err = encodeJSON(simRecord{ID: s.ID, TaskID: s.TaskID, Trial: s.Trial, Reward: s.Reward, Data: normRaw(s.Data)})
	if err != nil {
		return nil, nil, fmt.Errorf("store: encode simulation %q of evaluation %q: %w", s.ID, evalID, err)
	}
	if err := db.checkSize(fmt.Sprintf("simulation %q of evaluation %q", s.ID, evalID), len(val)); err != nil {
		return nil, nil, err
	}
	if r := normRaw(s.Requests); r != nil {
		if err := db.checkSize(fmt.Sprintf("request metrics of simulation %q of evaluation %q", s.ID, evalID), len(r)); err != nil {
			return nil, nil, err
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, r); err != nil {
			return nil, nil, fmt.Errorf("store: request metrics of simulation %q of evaluation %q are not valid JSON: %w", s.ID, evalID, err)
		}
		reqs = buf.Bytes()
	}
	return val, reqs, nil
}

// putSimulation writes a simulation's value and request metrics (nil
// removes stored ones) in tx.
func putSimulation(tx *bbolt.Tx, evalID, simID string, val, reqs []byte) error {
	ekey, skey := []byte(evalID), []byte(simID)
	if tx.Bucket(bucketEvaluations).Get(ekey) == nil {
		return fmt.Errorf("%w: evaluation %q (storing simulation %q)", ErrNotFound, evalID, simID)
	}
	sims, err := tx.Bucket(bucketSimulations).CreateBucketIfNotExists(ekey)
	if err != nil {
		return fmt.Errorf("store: simulations bucket of evaluation %q: %w", evalID, err)
	}
	if err := sims.Put(skey, val); err != nil {
		return fmt.Errorf("store: put simulation %q of evaluation %q: %w", simID, evalID, err)
	}
	parent := tx.Bucket(bucketRequests)
	if reqs == nil {
		if rb := parent.Bucket(ekey); rb != nil {
			if err := rb.Delete(skey); err != nil {
				return fmt.Errorf("store: delete request metrics of simulation %q of evaluation %q: %w", simID, evalID, err)
			}
		}
		return nil
	}
	rb, err := parent.CreateBucketIfNotExists(ekey)
	if err != nil {
		return fmt.Errorf("store: requests bucket of evaluation %q: %w", evalID, err)
	}
	if err := rb.Put(skey, reqs); err != nil {
		return fmt.Errorf("store: put request metrics of simulation %q of evaluation %q: %w", simID, evalID, err)
	}
	return nil
}

// evalExists returns an ErrNotFound error if evaluation evalID is missing.
func evalExists(tx *bbolt.Tx, evalID string) error {
	b := tx.Bucket(bucketEvaluations)
	if b == nil || b.Get([]byte(evalID)) == nil {
		return fmt.Errorf("%w: evaluation %q", ErrNotFound, evalID)
	}
	return nil
}

// nested returns the nested bucket evalID of top-level bucket parent, or nil.
func nested(tx *bbolt.Tx, parent []byte, evalID string) *bbolt.Bucket {
	p := tx.Bucket(parent)
	if p == nil {
		return nil
	}
	return p.Bucket([]byte(evalID))
}

// Simulations returns the simulations of evaluation evalID (exact id),
// sorted by ID (byte order), without their Requests. It returns an empty,
// non-nil slice for an evaluation with no simulations, and an error wrapping
// ErrNotFound for a missing evaluation.
func (db *DB) Simulations(ctx context.Context, evalID string) ([]Simulation, error) {
	out := []Simulation{}
	err := db.view(ctx, func(tx *bbolt.Tx) error {
		if err := evalExists(tx, evalID); err != nil {
			return err
		}
		b := nested(tx, bucketSimulations, evalID)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		n := 0
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := checkCtx(ctx, n); err != nil {
				return err
			}
			n++
			sim, err := decodeSimulation(evalID, k, v)
			if err != nil {
				return err
			}
			out = append(out, sim)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeSimulation decodes a stored simulation of evaluation evalID. The
// key is authoritative for the ID. A corrupt value yields an error naming
// the key, never a panic.
func decodeSimulation(evalID string, key, v []byte) (Simulation, error) {
	if v == nil {
		return Simulation{}, fmt.Errorf("store: corrupt simulation %q of evaluation %q: a nested bucket where a record was expected", key, evalID)
	}
	var r simRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return Simulation{}, fmt.Errorf("store: corrupt simulation %q of evaluation %q: %w", key, evalID, err)
	}
	return Simulation{ID: string(key), TaskID: r.TaskID, Trial: r.Trial, Reward: r.Reward, Data: normRaw(r.Data)}, nil
}

// GetSimulation returns simulation simID of evaluation evalID (exact ids),
// without its Requests, reading only that record: a viewer showing one
// conversation need not read the others. A missing evaluation or simulation
// returns an error wrapping ErrNotFound.
func (db *DB) GetSimulation(ctx context.Context, evalID, simID string) (Simulation, error) {
	var out Simulation
	err := db.view(ctx, func(tx *bbolt.Tx) error {
		if err := evalExists(tx, evalID); err != nil {
			return err
		}
		sims := nested(tx, bucketSimulations, evalID)
		var v []byte
		if sims != nil && simID != "" {
			v = sims.Get([]byte(simID))
		}
		if v == nil {
			return fmt.Errorf("%w: simulation %q of evaluation %q", ErrNotFound, simID, evalID)
		}
		var err error
		out, err = decodeSimulation(evalID, []byte(simID), v)
		return err
	})
	if err != nil {
		return Simulation{}, err
	}
	return out, nil
}

// SimulationIDs returns the set of simulation ids stored for evaluation
// evalID. It reads keys only, so it is cheap; a resumed evaluation uses it to
// skip the simulations already done. A missing evaluation returns an error
// wrapping ErrNotFound.
func (db *DB) SimulationIDs(ctx context.Context, evalID string) (map[string]bool, error) {
	out := map[string]bool{}
	err := db.view(ctx, func(tx *bbolt.Tx) error {
		if err := evalExists(tx, evalID); err != nil {
			return err
		}
		b := nested(tx, bucketSimulations, evalID)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		n := 0
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if err := checkCtx(ctx, n); err != nil {
				return err
			}
			n++
			out[string(k)] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AllRequests returns the per-request metrics stored with every simulation
// of evaluation evalID, by simulation id, read in one transaction: what
// calling Requests for each simulation returns, without a transaction (and,
// with short locks, an open of the file) per simulation. Simulations
// stored without metrics are absent. A missing evaluation returns an error
// wrapping ErrNotFound.
func (db *DB) AllRequests(ctx context.Context, evalID string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := db.view(ctx, func(tx *bbolt.Tx) error {
		if err := evalExists(tx, evalID); err != nil {
			return err
		}
		rb := nested(tx, bucketRequests, evalID)
		if rb == nil {
			return nil
		}
		c := rb.Cursor()
		n := 0
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := checkCtx(ctx, n); err != nil {
				return err
			}
			n++
			if v != nil {
				out[string(k)] = bytes.Clone(v) // v is only valid inside the transaction
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Requests returns the per-request metrics stored with simulation simID of
// evaluation evalID: the JSON given as Simulation.Requests, compacted, or nil
// if none was given. A missing evaluation or simulation returns an error
// wrapping ErrNotFound.
func (db *DB) Requests(ctx context.Context, evalID, simID string) (json.RawMessage, error) {
	var out json.RawMessage
	err := db.view(ctx, func(tx *bbolt.Tx) error {
		if err := evalExists(tx, evalID); err != nil {
			return err
		}
		skey := []byte(simID)
		sims := nested(tx, bucketSimulations, evalID)
		if sims == nil || sims.Get(skey) == nil {
			return fmt.Errorf("%w: simulation %q of evaluation %q", ErrNotFound, simID, evalID)
		}
		if rb := nested(tx, bucketRequests, evalID); rb != nil {
			if v := rb.Get(skey); v != nil {
				out = bytes.Clone(v) // v is only valid inside the transaction
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PutSimulations stores many simulations of evaluation evalID in one
// transaction (and one fsync): all of them or, on an error, none. It is
// PutSimulation for a caller that has several at once: a runner whose
// trials finish faster than commits, or the shards of a sharded evaluation
// being merged. Like PutSimulation it is group-committed with the writes
// of other goroutines, and returns once the simulations are durable.
func (db *DB) PutSimulations(ctx context.Context, evalID string, sims []Simulation) error {
	if err := validateID(kindEvaluation, evalID); err != nil {
		return err
	}
	recs, err := db.encodeSimulations(evalID, sims)
	if err != nil {
		return err
	}
	return db.batch(ctx, func(tx *bbolt.Tx) error { return putEncoded(tx, evalID, recs) })
}

// encodedSimulation is a simulation checked and encoded for the store.
type encodedSimulation struct {
	id        string
	val, reqs []byte
}

// encodeSimulations checks and encodes sims, simulations of evalID, in key
// order: bbolt then appends to its pages instead of moving what each
// insertion lands before.
func (db *DB) encodeSimulations(evalID string, sims []Simulation) ([]encodedSimulation, error) {
	recs := make([]encodedSimulation, len(sims))
	for i, s := range sims {
		if err := validateID(kindSimulation, s.ID); err != nil {
			return nil, err
		}
		val, reqs, err := db.encodeSimulation(evalID, s)
		if err != nil {
			return nil, err
		}
		recs[i] = encodedSimulation{s.ID, val, reqs}
	}
	slices.SortFunc(recs, func(a, b encodedSimulation) int { return strings.Compare(a.id, b.id) })
	return recs, nil
}

// putEncoded writes encoded simulations of evalID in tx.
func putEncoded(tx *bbolt.Tx, evalID string, recs []encodedSimulation) error {
	for _, r := range recs {
		if err := putSimulation(tx, evalID, r.id, r.val, r.reqs); err != nil {
			return err
		}
	}
	return nil
}
