package importer

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

// readGzip reads a gzipped test fixture.
func readGzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// published are the figures tau-bench issue #57 prints for a run, to
// three decimals.
type published struct {
	PassHatK    []float64
	FlipShare   float64
	ICC1        float64
	PerTrial    []float64
	TrialSpread float64
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func figures(s result.Summary) published {
	r := s.Reliability
	p := published{FlipShare: round3(r.FlipShare), ICC1: round3(*r.ICC1), TrialSpread: round3(r.TrialSpread)}
	for k := 1; k <= s.NumTrials; k++ {
		p.PassHatK = append(p.PassHatK, round3(s.PassHatK[strconv.Itoa(k)]))
	}
	for _, t := range r.PerTrial {
		p.PerTrial = append(p.PerTrial, round3(t.PassHat1))
	}
	return p
}

// TestTauBenchIssue57 imports tau-bench's published gpt-4o airline
// trajectories (50 tasks x 4 trials) and checks the noise floor against
// the figures of tau-bench issue #57.
func TestTauBenchIssue57(t *testing.T) {
	data := readGzip(t, "testdata/tau-bench/gpt-4o-airline.json.gz")
	eval, err := Read(data, Options{Source: "historical_trajectories/gpt-4o-airline.json", Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	want := published{PassHatK: []float64{0.420, 0.273, 0.220, 0.200}, FlipShare: 0.52, ICC1: 0.405,
		PerTrial: []float64{0.42, 0.44, 0.40, 0.42}, TrialSpread: 0.040}
	if diff := cmp.Diff(want, figures(eval.Summary)); diff != "" {
		t.Errorf("figures of tau-bench #57 (-published +imported):\n%s", diff)
	}
	head := struct {
		Domain, Agent, ImportedFrom string
		Origin                      result.Origin
		Tasks, Trials, Sims         int
		Flipping                    int
	}{eval.Domain, eval.Agent.Address(), eval.ImportedFrom, eval.Origin(), eval.Summary.NumTasks, eval.Summary.NumTrials,
		eval.Summary.NumSimulations, len(eval.Summary.Reliability.FlippingTasks)}
	wantHead := struct {
		Domain, Agent, ImportedFrom string
		Origin                      result.Origin
		Tasks, Trials, Sims         int
		Flipping                    int
	}{"airline", "tau-bench:gpt-4o-airline", "tau-bench: historical_trajectories/gpt-4o-airline.json", result.OriginImport, 50, 4, 200, 26}
	if diff := cmp.Diff(wantHead, head); diff != "" {
		t.Errorf("imported evaluation (-want +got):\n%s", diff)
	}
	ci := eval.Summary.Reliability.PassHat1BootstrapCI95
	if !(ci.Low < 0.42 && 0.42 < ci.High) {
		t.Errorf("bootstrap interval %v does not hold pass^1 0.42", ci)
	}
}

// TestReadTauBenchErrors: files that are not tau-bench's, or that leave
// the domain unknown, are refused with a message that says what to do.
func TestReadTauBenchErrors(t *testing.T) {
	tests := []struct {
		name, data, source, want string
	}{
		{"empty list", `[]`, "x.json", "the tau-bench trajectory file lists no runs: nothing to import"},
		{"no task id", `[{"reward": 1, "traj": []}]`, "airline.json", "tau-bench run 0 has no task_id or trial: is this a tau-bench trajectory file?"},
		{"unknown domain", `[{"task_id": 0, "trial": 0, "reward": 1, "info": {}, "traj": []}]`, "run.json",
			"cannot tell the domain of these tau-bench trajectories from the file name or the policy: give it (airline or retail)"},
		{"twice", `[{"task_id": 0, "trial": 0, "traj": []}, {"task_id": 0, "trial": 0, "traj": []}]`, "retail.json",
			"tau-bench file has two runs of task 0 trial 0: import one run at a time"},
		{"neither format", `"runs"`, "x.json", ErrUnknownFormat.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.TrimSpace([]byte(tt.data)), Options{Source: tt.source})
			if err == nil {
				t.Fatal("imported")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
