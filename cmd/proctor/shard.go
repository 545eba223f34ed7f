package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	// The object stores --shard-out and merge reach through gocloud.dev/blob
	// (a directory needs none of them).
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/evaluation/shard"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// envShardIndex is the variable a Kubernetes Indexed Job sets in each of
// its pods to the pod's completion index.
const envShardIndex = "JOB_COMPLETION_INDEX"

// shardFlags are proctor run's flags for one shard of a sharded evaluation.
type shardFlags struct {
	numShards, index int
	out              string
}

func addShardFlags(cmd *cobra.Command, f *shardFlags) {
	fl := cmd.Flags()
	fl.IntVar(&f.numShards, "num-shards", 0, "split the selected tasks between N shard runs (every trial of a task in one); with --shard-index and --shard-out")
	fl.IntVar(&f.index, "shard-index", 0, "the shard this run is, 0 to N-1 (default: $"+envShardIndex+", which a Kubernetes Indexed Job sets)")
	fl.StringVar(&f.out, "shard-out", "", "write this shard's result, for 'proctor merge', to a directory or a bucket URL (file://, s3://, gs://, azblob://)")
}

// resolve checks the shard flags and fills the index from the environment
// when --shard-index is not given. It returns the problems, for validate.
func (f *shardFlags) resolve(cmd *cobra.Command, resuming bool) []string {
	changed := cmd.Flags().Changed
	if resuming || (!changed("num-shards") && !changed("shard-index")) {
		if !resuming && f.out != "" {
			return []string{"--shard-out needs --num-shards N (and --shard-index or $" + envShardIndex + ")"}
		}
		return nil
	}
	var errs []string
	if f.numShards < 1 || f.numShards > shard.MaxShards {
		errs = append(errs, fmt.Sprintf("--num-shards %d: want 1 to %d", f.numShards, shard.MaxShards))
	}
	if !changed("shard-index") {
		v, ok := os.LookupEnv(envShardIndex)
		n, err := strconv.Atoi(strings.TrimSpace(v))
		switch {
		case !ok:
			errs = append(errs, "--num-shards needs --shard-index I (0 to N-1), or $"+envShardIndex+" (set by a Kubernetes Indexed Job)")
		case err != nil:
			errs = append(errs, fmt.Sprintf("$%s %q: want a shard index, 0 to N-1", envShardIndex, v))
		default:
			f.index = n
		}
	}
	if f.numShards >= 1 && (f.index < 0 || f.index >= f.numShards) {
		errs = append(errs, fmt.Sprintf("shard index %d: want 0 to %d for --num-shards %d", f.index, f.numShards-1, f.numShards))
	}
	if f.out == "" {
		errs = append(errs, "--num-shards needs --shard-out: a directory or bucket URL that 'proctor merge' reads the shards from")
	}
	return errs
}

// writeShard writes a shard evaluation's result to --shard-out once every
// one of its simulations has an outcome (the evaluation completed, or
// failed because each of them failed): an interrupted shard writes
// nothing, and is finished with --resume.
func writeShard(ctx context.Context, cmd *cobra.Command, db *store.DB, eval *result.Evaluation, out string) error {
	if out == "" || eval == nil || eval.Config.NumShards == 0 {
		return nil
	}
	if eval.Status != result.StatusCompleted && (eval.Status != result.StatusFailed || eval.Error != result.NoOutcome(eval.Simulations)) {
		return nil
	}
	results := skills.NewResults(db)
	stored, err := results.Evaluation(ctx, eval.ID)
	if err != nil {
		return failErr(fmt.Errorf("shard result: %w", err))
	}
	recs, err := results.Recorded(ctx, stored)
	if err != nil {
		return failErr(fmt.Errorf("shard result: %w", err))
	}
	loc, err := shard.Open(ctx, out, true)
	if err != nil {
		return failErr(err)
	}
	defer loc.Close()
	where, err := loc.Write(ctx, shard.New(stored, recs))
	if err != nil {
		return failErr(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: shard %d of %d written to %s\n", stored.Config.ShardIndex, stored.Config.NumShards, where)
	return nil
}

type mergeFlags struct {
	dbPath, format, out, tau2Data string
	maxBytes                      int64
}

func newMergeCmd() *cobra.Command {
	f := &mergeFlags{}
	cmd := &cobra.Command{
		Use:   "merge LOCATION...",
		Short: "Combine the shards of a sharded evaluation into one stored evaluation",
		Long: `Read the shard files that 'proctor run --num-shards N --shard-index I --shard-out LOCATION'
wrote, check that they are every shard of one evaluation once, and store the evaluation
they make, scored as one process would have scored it.

A LOCATION is a directory, a bucket URL (file://, s3://bucket/prefix, gs://bucket/prefix,
azblob://container/prefix), or one shard file (a path or URL ending in .json). Every
shard-NNNNN-of-NNNNN.json in a directory or prefix is read.`,
		Example: `  proctor merge ./shards
  proctor merge s3://evals/run-42?region=eu-west-1 --format json --out result.json
  proctor merge a/shard-00000-of-00002.json b/shard-00001-of-00002.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runMerge(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&f.format, "format", "table", "output format: table, json, markdown, tau2 (tau2-bench's results.json), html (one self-contained file)")
	fl.StringVar(&f.out, "out", "", "write the result to this file instead of stdout")
	fl.Int64Var(&f.maxBytes, "max-shard-bytes", shard.DefaultMaxBytes, "largest shard file read")
	addTau2Flag(cmd, &f.tau2Data)
	return cmd
}

func runMerge(cmd *cobra.Command, f *mergeFlags, args []string) error {
	ctx := cmd.Context()
	if err := checkOut(f.out); err != "" {
		return usageErr("%s", err)
	}
	var files []*shard.File
	for _, arg := range args {
		got, err := readShards(ctx, arg, f.maxBytes)
		if err != nil {
			return failErr(err)
		}
		files = append(files, got...)
	}
	eval, recs, err := shard.Merge(store.NewID(), files)
	if err != nil {
		return failErr(err)
	}
	cat, err := newCatalog(f.tau2Data)
	if err != nil {
		return err
	}
	db, err := openWritableDB(ctx, f.dbPath, cmd.ErrOrStderr(), "see 'proctor results'")
	if err != nil {
		return failErr(err)
	}
	defer db.Close()
	if err := evaluation.Complete(ctx, db, eval, recs); err != nil {
		return failErr(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: merged %d shards (%d simulations) into evaluation %s\n", len(files), len(recs), eval.ID)
	return writeResult(cmd.OutOrStdout(), f.out, f.format, eval, cat)
}

func readShards(ctx context.Context, spec string, maxBytes int64) ([]*shard.File, error) {
	loc, err := shard.Open(ctx, spec, false)
	if err != nil {
		return nil, err
	}
	defer loc.Close()
	return loc.Read(ctx, maxBytes)
}
