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

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/evaluation"
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
	Simulation result.Simulation          `json:"simulation"`
	Requests   []a2aclient.RequestMetrics `json:"requests,omitempty"`
}

// Name is the file name of shard index of num within its location, which
// sorts in shard order.
func Name(index, num int) string { return fmt.Sprintf("shard-%05d-of-%05d.json", index, num) }

// fingerprinted is what must be equal across the shards of one
// evaluation: what is evaluated (domain, split, task selection, trials),
// who (the agent and how it is spoken to), by whom (the user simulator and
// its model) and how it is scored. Concurrency, retries, timeouts of one
// request and the shard's own index are each shard's business.
type fingerprinted struct {
	Domain        string             `json:"domain"`
	Split         string             `json:"split"`
	TaskIDs       []string           `json:"task_ids"`
	NumTasks      int                `json:"num_tasks"`
	NumTrials     int                `json:"num_trials"`
	NumShards     int                `json:"num_shards"`
	Agent         string             `json:"agent"`
	Profile       string             `json:"profile"`
	Transport     string             `json:"transport"`
	Protocol      string             `json:"protocol"`
	User          string             `json:"user"`
	UserModel     string             `json:"user_model"`
	JudgeModel    string             `json:"judge_model"`
	JudgeSamples  int                `json:"judge_samples"`
	Temperature   *float64           `json:"temperature"`
	Seed          *int64             `json:"seed"`
	MaxSteps      int                `json:"max_steps"`
	MaxErrors     int                `json:"max_errors"`
	Timeout       result.Duration    `json:"timeout"`
	Strict        bool               `json:"strict"`
	ActionMatch   result.ActionMatch `json:"action_match"`
	ECPConfig     map[string]any     `json:"ecp_config"`
	ECPAllowTools []string           `json:"ecp_allow_tools"`
}

// Fingerprint is the hex SHA-256 of what must match across the shards of
// one evaluation in cfg (everything but the shard index and the settings
// each process may choose for itself).
func Fingerprint(cfg result.Config) string {
	data, err := json.Marshal(fingerprinted{
		Domain: cfg.Domain, Split: cfg.Split, TaskIDs: cfg.TaskIDs, NumTasks: cfg.NumTasks, NumTrials: cfg.NumTrials,
		NumShards: cfg.NumShards, Agent: cfg.Agent, Profile: cfg.Profile, Transport: cfg.Transport, Protocol: cfg.Protocol,
		User: cfg.User, UserModel: cfg.UserModel, JudgeModel: cfg.JudgeModel, JudgeSamples: cfg.JudgeSamples,
		Temperature: cfg.Temperature, Seed: cfg.Seed, MaxSteps: cfg.MaxSteps, MaxErrors: cfg.MaxErrors, Timeout: cfg.Timeout,
		Strict: cfg.Strict, ActionMatch: cfg.ActionMatch.OrDefault(), ECPConfig: cfg.ECPConfig, ECPAllowTools: cfg.ECPAllowTools,
	})
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
