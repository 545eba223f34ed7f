// Package shard carries the results of one shard of a sharded evaluation
// from the machine that ran it to the one that merges the shards: the shard
// file (File), its strict decoder for files from elsewhere (Decode), the
// merge of a complete set of shards into one evaluation (Merge), and where
// shard files live: a directory or a bucket of object storage (Location).
//
// A sharded evaluation is one evaluation split between NumShards
// processes: shard i runs the selected tasks whose position modulo
// NumShards is i, with every trial of each (skills.ShardTasks). Every shard
// records the same configuration but its index, and so the same
// Fingerprint, which Merge checks.
package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
)

// FormatV1 names the layout of a shard file; Decode refuses any other.
const FormatV1 = "proctor-shard/1"

// DefaultMaxBytes bounds the shard file Decode reads: 10,000 simulations
// with long transcripts fit many times over.
const DefaultMaxBytes = 2 << 30

// MaxShards bounds the number of shards of one evaluation (as
// skills.EvaluationRequest does).
const MaxShards = 100000

// File is one shard's result.
type File struct {
	Format string `json:"format"`
	// Fingerprint identifies the evaluation the shard belongs to: every
	// shard of one evaluation has the same (see Fingerprint).
	Fingerprint string `json:"fingerprint"`
	ShardIndex  int    `json:"shard_index"`
	NumShards   int    `json:"num_shards"`
	// Evaluation is the shard's own evaluation without its simulations:
	// its id, agent, configuration (Config.TaskIDs is the whole
	// selection, every shard's tasks), summary and metrics.
	Evaluation result.Evaluation `json:"evaluation"`
	// Simulations are the shard's simulations: every trial of each of its
	// tasks.
	Simulations []Simulation `json:"simulations"`

	// Source says where the file was read from (for errors); not written.
	Source string `json:"-"`
}

// Simulation is a simulation with its per-request metrics, which the
// evaluation's latency percentiles are computed from.
type Simulation struct {
	Simulation result.Simulation `json:"simulation"`
	Requests   []measure.Request `json:"requests,omitempty"`
}

// Name is the file name of shard index of num within its location, which
// sorts in shard order.
func Name(index, num int) string { return fmt.Sprintf("shard-%05d-of-%05d.json", index, num) }

// Fingerprint is the hex SHA-256 of what must match across the shards of
// one evaluation in cfg: what is evaluated (domain, split, task selection,
// trials), who (the agent and how it is spoken to), by whom (the user
// simulator and its model) and how it is scored; everything but the
// shard's index and what each process may choose for itself (concurrency,
// streaming, retries, one request's timeout and size cap, header names).
// A setting added to result.Config must match unless it is cleared here.
func Fingerprint(cfg result.Config) string {
	cfg.ShardIndex, cfg.Concurrency, cfg.Retries, cfg.RequestTimeout = 0, 0, 0, 0
	cfg.Streaming, cfg.MaxResponseBytes, cfg.HeaderNames = "", 0, nil
	cfg.ActionMatch = cfg.ActionMatch.OrDefault()
	data, err := json.Marshal(cfg)
	if err != nil { // an ECP config that does not encode was refused when the evaluation was asked for
		data = fmt.Appendf(nil, "unencodable: %v", err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// New makes the shard file of a finished shard evaluation from its
// simulations with their request metrics.
func New(eval *result.Evaluation, recs []evaluation.Recorded) *File {
	head := *eval
	head.Simulations, head.SimulationRows = nil, nil
	f := &File{
		Format: FormatV1, Fingerprint: Fingerprint(eval.Config),
		ShardIndex: eval.Config.ShardIndex, NumShards: max(eval.Config.NumShards, 1), Evaluation: head,
		Simulations: make([]Simulation, len(recs)),
	}
	for i, r := range recs {
		f.Simulations[i] = Simulation{Simulation: r.Simulation, Requests: r.Requests}
	}
	return f
}

// Encode writes f as JSON.
func (f *File) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("encode shard %d of %d: %w", f.ShardIndex, f.NumShards, err)
	}
	return nil
}

// Decode reads a shard file from r strictly: at most maxBytes (0:
// DefaultMaxBytes), one JSON object with no unknown field and nothing
// after it, which Validate accepts. source names the file in errors.
func Decode(r io.Reader, maxBytes int64, source string) (*File, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	limited := &io.LimitedReader{R: r, N: maxBytes + 1}
	tooLarge := func() error {
		return fmt.Errorf("shard file %s is larger than %d bytes: not a shard file, or raise the limit", source, maxBytes)
	}
	dec := json.NewDecoder(limited)
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		if limited.N <= 0 {
			return nil, tooLarge()
		}
		return nil, fmt.Errorf("shard file %s is not a proctor shard file: %w", source, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if limited.N <= 0 {
			return nil, tooLarge()
		}
		return nil, fmt.Errorf("shard file %s: data after its JSON object", source)
	}
	f.Source = source
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}
