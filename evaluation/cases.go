package evaluation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// CaseRecorder plays one trial of a case and records what the agent did,
// unscored: the actual invocations, what was seen of each turn, request
// metrics, and ErrorMessage when the case could not be played.
type CaseRecorder interface {
	RecordCase(ctx context.Context, set *evalset.Set, c *evalset.Case, trial int) *result.CaseResult
}

// CaseScorer scores a recorded case trial in place (its verdict per
// metric and per invocation, and its final status), and totals the
// scored trials of an evaluation, numTrials of each case.
type CaseScorer interface {
	ScoreCase(ctx context.Context, set *evalset.Set, c *evalset.Case, r *result.CaseResult)
	Summarize(results []*result.CaseResult, numTrials int) result.EvalSetSummary
}

// NewEvalSetRun starts the record of an evaluation of eval sets.
func NewEvalSetRun(id string, cfg result.EvalSetConfig, agent result.AgentInfo, sets []*evalset.Set) *result.EvalSetRun {
	t := now()
	run := &result.EvalSetRun{ID: id, Status: result.StatusRunning, Agent: agent, Config: cfg, CreatedAt: t, UpdatedAt: t}
	run.Sets = setInfos(sets)
	return run
}

// setInfos are what the record of an evaluation keeps of its sets.
func setInfos(sets []*evalset.Set) []result.EvalSetInfo {
	var out []result.EvalSetInfo
	for _, s := range sets {
		out = append(out, result.EvalSetInfo{
			ID: s.ID, AppName: s.AppName, Name: s.Name, Format: s.Format, Path: s.Path, NumCases: len(s.Cases),
			Metrics: s.Metrics, Cases: s.Cases,
		})
	}
	return out
}

// CaseResultID is the stored id of a case's trial:
// "<evalSetId>/<evalId>#<trial>", trials counting from 1.
func CaseResultID(setID, caseID string, trial int) string {
	return fmt.Sprintf("%s/%s#%d", setID, caseID, trial)
}

// RunCases plays every case trial of sets (case x trial) that is not
// already stored (so a second RunCases of the same run resumes it), each
// recorded by the CaseRecorder and scored by the CaseScorer, then totals
// the run. When ctx ends early, finished case trials are kept and the run
// is saved as interrupted.
func (r *Runner) RunCases(ctx context.Context, run *result.EvalSetRun, sets []*evalset.Set) error {
	return runCases(ctx, r, run, sets, nil)
}

// runCases is RunCases; with recorded, the trials are those recorded,
// scored again and not played.
func runCases(ctx context.Context, r *Runner, run *result.EvalSetRun, sets []*evalset.Set, recorded map[string]*result.CaseResult) error {
	k := &cases{r: r, run: run, sets: sets, tracer: r.tracer(), recorded: recorded}
	if r.CaseScorer != nil {
		k.summarize = r.CaseScorer.Summarize
	}
	return runEngine[caseTrial, *result.CaseResult](ctx, r, k)
}

// caseTrial is one trial of a case, to play.
type caseTrial struct {
	set   *evalset.Set
	c     *evalset.Case
	trial int
}

// cases is the kind of an evaluation of eval sets.
type cases struct {
	r         *Runner
	run       *result.EvalSetRun
	sets      []*evalset.Set
	summarize func([]*result.CaseResult, int) result.EvalSetSummary
	tracer    trace.Tracer
	// recorded, when set, holds the case trials of a run being scored
	// again, by id: they are scored, not played.
	recorded map[string]*result.CaseResult
}

func (k *cases) evaluationID() string { return k.run.ID }

func (k *cases) names() kindNames { return kindNames{record: "eval-set run", trial: "case result"} }

// begin refuses a runner without its parts and sets whose ids collide,
// and marks the run running.
func (k *cases) begin() error {
	if (k.r.CaseRecorder == nil && k.recorded == nil) || k.r.CaseScorer == nil {
		return fmt.Errorf("eval-set runner: a case recorder and a case scorer are both required")
	}
	seen := map[string]string{}
	for _, s := range k.sets {
		if prev, ok := seen[s.ID]; ok {
			return fmt.Errorf("eval sets %s and %s both have the id %q: give one of them another evalSetId", prev, s.Path, s.ID)
		}
		seen[s.ID] = s.Path
	}
	k.run.Status, k.run.Error, k.run.FinishedAt = result.StatusRunning, "", nil
	return nil
}

// record is the run's record without its case trials, which live in
// their own records.
func (k *cases) record() (store.Evaluation, error) {
	run := k.run
	run.UpdatedAt = now()
	head := *run
	head.Cases = nil
	data, err := json.Marshal(head)
	if err != nil {
		return store.Evaluation{}, fmt.Errorf("encode eval-set run: %w", err)
	}
	return store.Evaluation{
		ID: run.ID, Kind: store.KindEvalSets, AgentURL: run.Agent.Address(), Status: string(run.Status),
		CreatedAt: run.CreatedAt, UpdatedAt: run.UpdatedAt, Data: data,
	}, nil
}

// trials are trial by trial, set by set, case by case, as tRPC-Agent-Go
// orders them; a rescore's only those its source recorded.
func (k *cases) trials() []caseTrial {
	var out []caseTrial
	for trial := 1; trial <= max(k.run.Config.NumRuns, 1); trial++ {
		for _, s := range k.sets {
			for _, c := range s.Cases {
				if _, ok := k.recorded[CaseResultID(s.ID, c.ID, trial)]; k.recorded != nil && !ok {
					continue // a rescore scores what its source recorded
				}
				out = append(out, caseTrial{s, c, trial})
			}
		}
	}
	return out
}

func (k *cases) trialID(j caseTrial) string { return CaseResultID(j.set.ID, j.c.ID, j.trial) }

func (k *cases) id(cr *result.CaseResult) string { return cr.ID }

func (k *cases) passed(cr *result.CaseResult) bool { return cr.FinalEvalStatus == result.EvalPassed }

// play records a case trial (or, in a rescore, takes its recording) and
// scores it.
func (k *cases) play(ctx context.Context, j caseTrial) (*result.CaseResult, bool) {
	ctx, span := k.startTrialSpan(ctx, j)
	id := k.trialID(j)
	var cr *result.CaseResult
	if k.recorded != nil {
		cr = recordedCopy(k.recorded[id])
	} else {
		cr = k.r.CaseRecorder.RecordCase(ctx, j.set, j.c, j.trial)
	}
	cr.ID, cr.EvalSetID, cr.EvalID, cr.RunID = id, j.set.ID, j.c.ID, j.trial
	k.r.CaseScorer.ScoreCase(ctx, j.set, j.c, cr)
	endCaseSpan(span, cr)
	return cr, ctx.Err() != nil // cut short: the case trial stays to do
}

// recordedCopy is a stored case trial with its scores cleared, to be
// scored again.
func recordedCopy(src *result.CaseResult) *result.CaseResult {
	cr := *src
	cr.FinalEvalStatus, cr.OverallEvalMetricResults, cr.EvalMetricResultPerInvocation = "", nil, nil
	// LLM calls of the source's judges are not this scoring's.
	cr.LLMCalls = slices.DeleteFunc(slices.Clone(cr.LLMCalls), func(c llm.Call) bool { return c.Role == llm.RoleJudge })
	return &cr
}

// row stores a case trial under its case, "<evalSetId>/<evalId>", with a
// reward of 1 when it passed.
func (k *cases) row(cr *result.CaseResult) (store.Simulation, error) {
	reward := 0.0
	if k.passed(cr) {
		reward = 1
	}
	return encodeRow("case result", store.Simulation{ID: cr.ID, TaskID: cr.EvalSetID + "/" + cr.EvalID, Trial: cr.RunID, Reward: reward},
		cr, cr.Requests)
}

func (k *cases) decode(rec store.Simulation) (*result.CaseResult, error) { return decodeCase(rec) }

func decodeCase(rec store.Simulation) (*result.CaseResult, error) {
	var cr result.CaseResult
	if err := json.Unmarshal(rec.Data, &cr); err != nil {
		return nil, err
	}
	return &cr, nil
}

// settle is a copy of a case trial without its requests, and their
// latencies.
func (k *cases) settle(cr *result.CaseResult) (*result.CaseResult, []float64) {
	lat := make([]float64, len(cr.Requests))
	for i, q := range cr.Requests {
		lat[i] = q.LatencyMS
	}
	settled := *cr
	settled.Requests = nil
	return &settled, lat
}

// observe: no one watches case trials.
func (k *cases) observe(*result.CaseResult) {}

func (k *cases) progress(p Progress, done []*result.CaseResult) Progress {
	p.LastCase = done[len(done)-1]
	return p
}

// finish orders the case trials as planned and totals them.
func (k *cases) finish(done []*result.CaseResult, latencies []float64) {
	done = sortedCases(done, k.sets)
	run := k.run
	run.Cases = done
	run.Summary = k.summarize(done, max(run.Config.NumRuns, 1))
	run.Summary.NumSets = len(k.sets)
	ms := make([]result.Metrics, len(done))
	for i, cr := range done {
		ms[i] = cr.Metrics
	}
	run.Metrics = result.Merge(ms, latencies)
}

// end marks how the run ended.
func (k *cases) end(status result.Status, why string) {
	k.run.Status, k.run.Error, k.run.FinishedAt = status, why, nil
	if status == result.StatusCompleted {
		t := now()
		k.run.FinishedAt = &t
	}
}

// sortedCases orders case trials trial by trial, in the sets' case order.
func sortedCases(done []*result.CaseResult, sets []*evalset.Set) []*result.CaseResult {
	order := map[string]int{}
	for _, s := range sets {
		for _, c := range s.Cases {
			order[s.ID+"/"+c.ID] = len(order)
		}
	}
	slices.SortStableFunc(done, func(a, b *result.CaseResult) int {
		if a.RunID != b.RunID {
			return a.RunID - b.RunID
		}
		return order[a.EvalSetID+"/"+a.EvalID] - order[b.EvalSetID+"/"+b.EvalID]
	})
	return done
}
