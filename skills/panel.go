package skills

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"sync"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// PanelRequest asks several judges to grade the NL assertions of a stored
// evaluation's conversations.
type PanelRequest struct {
	// ID is the evaluation (or a short id: a unique prefix or suffix).
	ID string `json:"id" validate:"required,max=100"`
	// JudgeModels are the judges' model specs, 2 to 8 of them, distinct.
	JudgeModels []string `json:"judge_models" validate:"min=2,max=8,unique,dive,max=200,modelspec"`
	// JudgeSamples are each judge's verdicts per conversation, decided by
	// majority; 0 keeps the evaluation's (else scoring.DefaultJudgeSamples).
	JudgeSamples int      `json:"judge_samples,omitempty" validate:"gte=0,lte=25"`
	Temperature  *float64 `json:"temperature,omitempty" validate:"omitempty,gte=0,lte=2"`
	Seed         *int64   `json:"seed,omitempty"`
	// Concurrency bounds the conversations graded at the same time; 0
	// keeps the evaluation's.
	Concurrency int `json:"concurrency,omitempty" validate:"gte=0,lte=10000"`
}

// panelJudge is one judge of a panel with the ledger of its calls.
type panelJudge struct {
	judge  scoring.Judge
	ledger *llm.Ledger
}

// JudgePanel grades every NL assertion of a stored evaluation's
// conversations under each judge and says how far they agree. Only the
// judges' models are called: nothing is played, and nothing is stored.
// onProgress, if not nil, is told each conversation graded (by every
// judge) and the number to grade.
func (s *Service) JudgePanel(ctx context.Context, req PanelRequest, onProgress func(done, total int)) (*result.JudgePanel, error) {
	if err := s.validator().Struct(&req); err != nil {
		return nil, validationError(err)
	}
	if s.Models == nil {
		return nil, invalid("judge_models: this service has no language models configured")
	}
	src, err := s.loadStored(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	_, tasks, _, err := s.resolveTasks(src.Config)
	if err != nil {
		return nil, err
	}
	samples := cmp.Or(req.JudgeSamples, src.Config.JudgeSamples, scoring.DefaultJudgeSamples)
	judges, err := s.panelJudges(ctx, req, samples)
	if err != nil {
		return nil, err
	}
	panel := &result.JudgePanel{Evaluation: src.ID, Domain: src.Domain, Judges: req.JudgeModels, Samples: samples}
	sims, byTask := panelSimulations(src, tasks, panel)
	concurrency := cmp.Or(req.Concurrency, src.Config.Concurrency, 1)
	if err := gradeAll(ctx, judges, sims, byTask, concurrency, onProgress); err != nil {
		return nil, err
	}
	for i := range sims {
		panel.Simulations = append(panel.Simulations, sims[i].view)
	}
	for _, j := range judges {
		panel.JudgeCalls = append(panel.JudgeCalls, len(j.ledger.Calls()))
	}
	summarizePanel(panel)
	return panel, nil
}

// panelJudges makes the panel's judges.
func (s *Service) panelJudges(ctx context.Context, req PanelRequest, samples int) ([]panelJudge, error) {
	var judges []panelJudge
	for i, spec := range req.JudgeModels {
		m, err := s.Models.Model(ctx, spec, llm.RoleJudge)
		if err != nil {
			return nil, invalid("judge_models[%d]: %v", i, err)
		}
		j, err := scoring.NewLLMJudge(scoring.LLMJudgeConfig{Model: m, Samples: samples, Temperature: req.Temperature, Seed: req.Seed})
		if err != nil {
			return nil, err
		}
		judges = append(judges, panelJudge{judge: j, ledger: &llm.Ledger{}})
	}
	return judges, nil
}

// panelSim is a simulation to grade, with its view being filled in.
type panelSim struct {
	sim  *result.Simulation
	view result.PanelSimulation
}

// panelSimulations picks the simulations to grade: those whose task has NL
// assertions and whose run ended in a scored way; the others are counted
// in panel.NotGraded.
func panelSimulations(src *result.Evaluation, tasks []*domains.Task, panel *result.JudgePanel) ([]panelSim, map[string]*domains.Task) {
	byTask := map[string]*domains.Task{}
	for _, t := range tasks {
		byTask[t.ID] = t
	}
	var sims []panelSim
	for i := range src.Simulations {
		sim := &src.Simulations[i]
		t := byTask[sim.TaskID]
		if t == nil || t.EvaluationCriteria == nil || len(t.EvaluationCriteria.NLAssertions) == 0 || !sim.TerminationReason.Rewardable() {
			panel.NotGraded++
			continue
		}
		sims = append(sims, panelSim{sim: sim, view: result.PanelSimulation{ID: sim.ID, TaskID: sim.TaskID, Trial: sim.Trial,
			Assertions: t.EvaluationCriteria.NLAssertions, NLInReward: slices.Contains(sim.RewardInfo.RewardBasis, domains.BasisNLAssertion)}})
	}
	return sims, byTask
}

// gradeAll has every judge grade every simulation, concurrency
// simulations at a time.
func gradeAll(ctx context.Context, judges []panelJudge, sims []panelSim, byTask map[string]*domains.Task, concurrency int, onProgress func(done, total int)) error {
	var mu sync.Mutex
	done := 0
	return eachBounded(ctx, len(sims), concurrency, func(i int) {
		gradeOne(ctx, judges, &sims[i], byTask[sims[i].sim.TaskID])
		mu.Lock()
		defer mu.Unlock()
		done++
		if onProgress != nil {
			onProgress(done, len(sims))
		}
	})
}

// eachBounded calls do(i) for i in [0, n), at most concurrency (at least
// 1) at a time, until ctx ends; it returns when every call started has
// returned, with ctx's error if it ended.
func eachBounded(ctx context.Context, n, concurrency int, do func(i int)) error {
	sem := make(chan struct{}, max(concurrency, 1))
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			do(i)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// gradeOne has every judge grade one simulation, and works out its
// outcome under each.
func gradeOne(ctx context.Context, judges []panelJudge, ps *panelSim, task *domains.Task) {
	v := &ps.view
	n := len(v.Assertions)
	v.Met, v.Errors = make([][]bool, len(judges)), make([]string, len(judges))
	failed := false
	for j, pj := range judges {
		jctx := llm.WithCallKey(llm.WithLedger(ctx, pj.ledger), ps.sim.TaskID, strconv.Itoa(ps.sim.Trial))
		v.Met[j] = make([]bool, n)
		checks, err := pj.judge.Assess(jctx, task, ps.sim.Messages)
		if err != nil {
			v.Errors[j], failed = err.Error(), true
			continue
		}
		for a := range min(n, len(checks)) {
			v.Met[j][a] = checks[a].Met
		}
	}
	if !failed {
		v.Errors = nil
	}
	for a := range n {
		v.Agreement = append(v.Agreement, scoring.PairwiseAgreement(verdictCounts(v.Met, a)))
	}
	other := 1.0 // the reward's other bases, when NL_ASSERTION is one
	for b, r := range ps.sim.RewardInfo.RewardBreakdown {
		if b != domains.BasisNLAssertion {
			other *= r
		}
	}
	for j := range judges {
		all := 0.0
		if !slices.Contains(v.Met[j], false) {
			all = 1
		}
		if v.NLInReward {
			all *= other
		}
		v.Outcomes = append(v.Outcomes, all)
	}
}

// verdictCounts counts the judges that found assertion a met and not met.
func verdictCounts(met [][]bool, a int) []int {
	counts := []int{0, 0}
	for _, m := range met {
		if m[a] {
			counts[0]++
		} else {
			counts[1]++
		}
	}
	return counts
}

// summarizePanel works out the panel's agreement and variance figures
// from its simulations.
func summarizePanel(p *result.JudgePanel) {
	var items [][]int
	var outcomes [][]float64
	var agreement float64
	p.OutcomeChanges = []string{}
	for _, s := range p.Simulations {
		for a := range s.Assertions {
			c := verdictCounts(s.Met, a)
			items = append(items, c)
			agreement += s.Agreement[a]
			if c[0] == 0 || c[1] == 0 {
				p.Unanimous++
			}
		}
		outcomes = append(outcomes, s.Outcomes)
		if slices.Min(s.Outcomes) != slices.Max(s.Outcomes) {
			p.OutcomeChanges = append(p.OutcomeChanges, s.ID)
		}
	}
	p.Assertions = len(items)
	if p.Assertions > 0 {
		p.Agreement = agreement / float64(p.Assertions)
	}
	if k, ok := scoring.FleissKappa(items); ok {
		p.FleissKappa = &k
	}
	p.AgentVarianceShare, p.JudgeVarianceShare = scoring.VarianceShares(outcomes)
}
