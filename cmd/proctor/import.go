package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/importer"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// maxImportBytes bounds a file proctor import reads (1 GiB).
const maxImportBytes = 1 << 30

type importFlags struct {
	dbPath, format, out, agent, domain string
}

func newImportCmd() *cobra.Command {
	f := &importFlags{}
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Store another evaluator's results (tau2-bench, tau-bench) as an evaluation",
		Long: `Read a tau2-bench results.json or a tau-bench trajectory file and store it as an
evaluation, so that a published run can be shown, compared and rescored like one of
proctor's own. The format is found from the file: a JSON object is tau2's Results (the
layout 'proctor results --format tau2' writes), a JSON list tau-bench's runs
(EnvRunResult). FILE may be gzipped (.gz). tau2's directory layout (results.json beside
a simulations/ directory of one file per simulation) is read from the directory or its
results.json.

The rewards are the file's, not scored again; the summary, pass^k and the noise floor
(with 2+ trials) are computed as for proctor's own runs. The evaluation is marked as
imported (its ORIGIN in 'proctor results' is "import"). tau2 files name their domain and
agent; tau-bench files do not, so the domain and agent come from --domain and --agent,
else from the file name ("gpt-4o-airline.json": agent gpt-4o-airline, domain airline).`,
		Example: `  proctor import results.json
  proctor import historical_trajectories/gpt-4o-airline.json
  proctor import run.json.gz --agent my-agent --domain retail --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runImport(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&f.format, "format", "table", "output format of the imported evaluation: table, json or markdown")
	fl.StringVar(&f.out, "out", "", "write the result to this file instead of stdout")
	fl.StringVar(&f.agent, "agent", "", "name of the agent evaluated (default: the file's, or its file name)")
	fl.StringVar(&f.domain, "domain", "", "domain evaluated (default: the file's, or found in its name or policy)")
	return cmd
}

func runImport(cmd *cobra.Command, f *importFlags, path string) error {
	if !slices.Contains([]string{"table", "json", "markdown"}, f.format) {
		return usageErr("--format %q: want table, json or markdown", f.format)
	}
	if err := checkOut(f.out); err != "" {
		return usageErr("%s", err)
	}
	eval, err := readImport(path, importer.Options{Agent: f.agent, Domain: f.domain, Source: path, Now: time.Now().UTC()})
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	db, err := openWritableDB(ctx, f.dbPath, cmd.ErrOrStderr(), "see 'proctor results'")
	if err != nil {
		return failErr(err)
	}
	defer db.Close()
	eval.ID = store.NewID()
	recs := make([]evaluation.Recorded, len(eval.Simulations))
	for i, s := range eval.Simulations {
		recs[i].Simulation = s
	}
	if err := evaluation.Complete(ctx, db, eval, recs); err != nil {
		return failErr(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: imported %d simulations of %s into evaluation %s\n", len(recs), eval.ImportedFrom, eval.ID)
	return writeResult(cmd.OutOrStdout(), f.out, f.format, eval, nil)
}

// readImport reads the file (or tau2 directory) at path and converts it.
// Unreadable or foreign data is a usage error that says what is wanted.
func readImport(path string, opts importer.Options) (*result.Evaluation, error) {
	meta, simDir, err := tau2Layout(path)
	if err != nil {
		return nil, err
	}
	data, err := readImportFile(meta)
	if err != nil {
		return nil, err
	}
	var eval *result.Evaluation
	if simDir != "" {
		var sims [][]byte
		if sims, err = readSimulationFiles(simDir); err == nil {
			eval, err = importer.ReadTau2(data, sims, opts)
		}
	} else {
		eval, err = importer.Read(data, opts)
	}
	if err != nil {
		return nil, usageErr("import %s: %v", path, err)
	}
	return eval, nil
}

// tau2Layout says which file holds the results and, for tau2's directory
// layout, the directory of simulation files ("" for a file on its own).
func tau2Layout(path string) (string, string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", usageErr("import: %v", err)
	}
	if fi.IsDir() {
		meta := filepath.Join(path, "results.json")
		if _, err := os.Stat(meta); err != nil {
			return "", "", usageErr("import %s: a directory must hold tau2's results.json (and simulations/)", path)
		}
		return meta, simulationsDir(path), nil
	}
	return path, simulationsDir(filepath.Dir(path)), nil
}

// simulationsDir is dir's simulations/ directory, or "" when it has none.
func simulationsDir(dir string) string {
	d := filepath.Join(dir, "simulations")
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return d
	}
	return ""
}

// readImportFile reads a file to import, unzipping a .gz one, up to
// maxImportBytes.
func readImportFile(path string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, usageErr("import: %v", err)
	}
	defer file.Close()
	var r io.Reader = file
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(file)
		if err != nil {
			return nil, usageErr("import %s: not gzip data: %v", path, err)
		}
		r = zr
	}
	data, err := io.ReadAll(io.LimitReader(r, maxImportBytes+1))
	switch {
	case err != nil:
		return nil, failErr(fmt.Errorf("read %s: %w", path, err))
	case len(data) > maxImportBytes:
		return nil, usageErr("import %s: larger than 1 GiB; split the run", path)
	}
	return data, nil
}

// readSimulationFiles reads tau2's simulations/*.json in name order.
func readSimulationFiles(dir string) ([][]byte, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([][]byte, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
