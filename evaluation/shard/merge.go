package shard

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
)

// Merge checks that files are every shard of one evaluation, once each,
// and returns the evaluation they make (named id, not yet scored) with
// every simulation: what evaluation.Complete scores and stores. Shards of
// different evaluations (their fingerprints or counts differ), a shard
// given twice, a simulation in two shards and missing shards are errors
// that name the files and indices.
func Merge(id string, files []*File) (*result.Evaluation, []evaluation.Recorded, error) {
	if len(files) == 0 {
		return nil, nil, errors.New("no shard files to merge")
	}
	files = slices.SortedStableFunc(slices.Values(files), func(a, b *File) int { return cmp.Compare(a.ShardIndex, b.ShardIndex) })
	if err := sameEvaluation(files); err != nil {
		return nil, nil, err
	}
	if err := oneOfEach(files); err != nil {
		return nil, nil, err
	}
	recs, err := simulations(files)
	if err != nil {
		return nil, nil, err
	}
	first := files[0].Evaluation
	cfg := first.Config
	cfg.ShardIndex, cfg.NumShards = 0, 0
	eval := evaluation.NewEvaluation(id, cfg, first.Agent)
	eval.MergedShards = len(files)
	return eval, recs, nil
}

// sameEvaluation checks that every file is a shard of the first one's
// evaluation: the same count and fingerprint.
func sameEvaluation(files []*File) error {
	first := files[0]
	var odd []string
	for _, f := range files[1:] {
		switch {
		case f.NumShards != first.NumShards:
			odd = append(odd, fmt.Sprintf("%s is shard %d of %d", f.Source, f.ShardIndex, f.NumShards))
		case f.Fingerprint != first.Fingerprint:
			odd = append(odd, fmt.Sprintf("%s (shard %d, fingerprint %.12s)", f.Source, f.ShardIndex, f.Fingerprint))
		}
	}
	if len(odd) == 0 {
		return nil
	}
	return fmt.Errorf("the shard files are not all of one evaluation: %s is shard %d of %d with fingerprint %.12s, but %s; "+
		"merge the shards of one evaluation (the same domain, tasks, trials, agent, user, scoring and seed, and --num-shards)",
		first.Source, first.ShardIndex, first.NumShards, first.Fingerprint, strings.Join(odd, "; "))
}

// oneOfEach checks that every index below the count appears once (files
// are sorted by index).
func oneOfEach(files []*File) error {
	n := files[0].NumShards
	by := make(map[int][]string, n)
	for _, f := range files {
		by[f.ShardIndex] = append(by[f.ShardIndex], f.Source)
	}
	var errs []string
	for i := range n {
		if srcs := by[i]; len(srcs) > 1 {
			errs = append(errs, fmt.Sprintf("shard %d is given %d times (%s)", i, len(srcs), strings.Join(srcs, ", ")))
		}
	}
	var missing []string
	for i := range n {
		if len(by[i]) == 0 {
			missing = append(missing, fmt.Sprint(i))
		}
		if len(missing) == 20 {
			missing = append(missing, "...")
			break
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Sprintf("shard(s) %s of %d are missing (shard files are named %s)", strings.Join(missing, ", "), n, Name(0, n)))
	}
	if len(errs) > 0 {
		return errors.New("cannot merge: " + strings.Join(errs, "; "))
	}
	return nil
}

// simulations gathers every shard's simulations, refusing one (a task's
// trial) that two shards both carry.
func simulations(files []*File) ([]evaluation.Recorded, error) {
	total := 0
	for _, f := range files {
		total += len(f.Simulations)
	}
	recs := make([]evaluation.Recorded, 0, total)
	from := make(map[string]*File, total)
	for _, f := range files {
		for _, s := range f.Simulations {
			id := result.SimulationID(s.Simulation.TaskID, s.Simulation.Trial)
			if other := from[id]; other != nil {
				return nil, fmt.Errorf("cannot merge: simulation %s (task %s, trial %d) is in shard %d (%s) and in shard %d (%s)",
					id, s.Simulation.TaskID, s.Simulation.Trial, other.ShardIndex, other.Source, f.ShardIndex, f.Source)
			}
			from[id] = f
			recs = append(recs, evaluation.Recorded{Simulation: s.Simulation, Requests: s.Requests})
		}
	}
	return recs, nil
}
