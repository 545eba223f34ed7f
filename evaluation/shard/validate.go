package shard

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/proctor-eval/proctor/result"
)

// maxProblems bounds the problems Validate lists.
const maxProblems = 10

// Validate checks that f is the complete result of its shard: a known
// format, a shard index within the count, a fingerprint that matches its
// configuration, and, for every task of its share of the selection (its
// position modulo NumShards is ShardIndex), every trial once, each
// simulation named and scored as proctor names and scores them.
func (f *File) Validate() error {
	var p problems
	if f.Format != FormatV1 {
		return fmt.Errorf("shard file %s: format %q, want %q (written by another proctor version?)", f.Source, f.Format, FormatV1)
	}
	cfg := f.Evaluation.Config
	switch {
	case f.NumShards < 1 || f.NumShards > MaxShards:
		p.add("num_shards %d: want 1 to %d", f.NumShards, MaxShards)
	case f.ShardIndex < 0 || f.ShardIndex >= f.NumShards:
		p.add("shard_index %d: want 0 to %d", f.ShardIndex, f.NumShards-1)
	case max(cfg.NumShards, 1) != f.NumShards || cfg.ShardIndex != f.ShardIndex:
		p.add("its evaluation's config says shard %d of %d, the file shard %d of %d", cfg.ShardIndex, cfg.NumShards, f.ShardIndex, f.NumShards)
	}
	if fp := Fingerprint(cfg); fp != f.Fingerprint {
		p.add("fingerprint %.12s does not match its evaluation's config (%.12s): the file was changed", f.Fingerprint, fp)
	}
	if cfg.NumTrials < 1 || cfg.NumTrials > 1000 {
		p.add("num_trials %d: want 1 to 1000", cfg.NumTrials)
	}
	if len(p) == 0 {
		f.checkSimulations(&p)
	}
	return p.err(f.Source)
}

// checkSimulations checks that the simulations are exactly every trial of
// every task of the shard's share, each sound.
func (f *File) checkSimulations(p *problems) {
	cfg := f.Evaluation.Config
	share := map[string]bool{}
	position := map[string]int{}
	for i, id := range cfg.TaskIDs {
		if _, dup := position[id]; dup {
			p.add("task %q is selected twice", id)
			continue
		}
		position[id] = i
		if i%f.NumShards == f.ShardIndex {
			share[id] = true
		}
	}
	seen := make(map[string]bool, len(f.Simulations))
	for _, s := range f.Simulations {
		sim := &s.Simulation
		id := result.SimulationID(sim.TaskID, sim.Trial)
		switch pos, selected := position[sim.TaskID]; {
		case !selected:
			p.add("simulation %q: task %q is not selected", sim.ID, sim.TaskID)
		case !share[sim.TaskID]:
			p.add("simulation %q: task %q belongs to shard %d, not %d", sim.ID, sim.TaskID, pos%f.NumShards, f.ShardIndex)
		case sim.Trial < 0 || sim.Trial >= cfg.NumTrials:
			p.add("simulation %q: trial %d, want 0 to %d", sim.ID, sim.Trial, cfg.NumTrials-1)
		case sim.ID != id:
			p.add("simulation %q: want id %q for task %q trial %d", sim.ID, id, sim.TaskID, sim.Trial)
		case seen[id]:
			p.add("simulation %q appears twice", id)
		case math.IsNaN(sim.Reward) || sim.Reward < 0 || sim.Reward > 1:
			p.add("simulation %q: reward %v, want 0 to 1", id, sim.Reward)
		case sim.TerminationReason == "":
			p.add("simulation %q: no termination reason", id)
		}
		seen[id] = true
	}
	if want := len(share) * cfg.NumTrials; len(seen) != want && len(*p) == 0 {
		p.add("%d simulations, want %d (%d tasks x %d trials): the shard did not finish", len(seen), want, len(share), cfg.NumTrials)
	}
}

// problems collects what is wrong with a shard file.
type problems []string

func (p *problems) add(format string, a ...any) {
	if len(*p) <= maxProblems {
		*p = append(*p, fmt.Sprintf(format, a...))
	}
}

func (p problems) err(source string) error {
	if len(p) == 0 {
		return nil
	}
	if len(p) > maxProblems {
		p = append(p[:maxProblems], "and more")
	}
	return errors.New("shard file " + source + " is invalid: " + strings.Join(p, "; "))
}
