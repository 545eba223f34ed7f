package skills

import (
	"cmp"
	"context"
	"strconv"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// AuditRequest asks how far a stored evaluation's user simulator kept to
// its scenarios.
type AuditRequest struct {
	// ID is the evaluation (or a short id: a unique prefix or suffix).
	ID string `json:"id" validate:"required,max=100"`
	// AuditModel, when set, is the model of an LLM auditor that reads each
	// conversation beside the deterministic checks.
	AuditModel string `json:"audit_model,omitempty" validate:"omitempty,max=200,modelspec"`
	// Concurrency bounds the conversations audited at the same time by the
	// model; 0 keeps the evaluation's.
	Concurrency int `json:"concurrency,omitempty" validate:"gte=0,lte=10000"`
}

// AuditUsers checks the user simulator's conduct in every simulation of a
// stored evaluation (scoring.CheckUser, and the LLM auditor when asked),
// counts the failures that may be the simulator's, and scores the
// evaluation with them set aside, beside its plain score. Nothing is
// played or stored; only the auditor's model is called.
func (s *Service) AuditUsers(ctx context.Context, req AuditRequest) (*result.UserAudit, error) {
	if err := s.validator().Struct(&req); err != nil {
		return nil, validationError(err)
	}
	src, err := s.loadStored(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	_, tasks, _, err := s.resolveTasks(src.Config)
	if err != nil {
		return nil, err
	}
	byTask := map[string]*domains.Task{}
	order := make([]string, len(tasks))
	for i, t := range tasks {
		byTask[t.ID], order[i] = t, t.ID
	}
	audit := &result.UserAudit{Evaluation: src.ID, Domain: src.Domain, AuditModel: req.AuditModel}
	for i := range src.Simulations {
		sim := &src.Simulations[i]
		a := result.SimulationAudit{ID: sim.ID, TaskID: sim.TaskID, Trial: sim.Trial, Passed: sim.Passed()}
		if t := byTask[sim.TaskID]; t != nil {
			a.Flags = scoring.CheckUser(t, sim)
		}
		audit.Simulations = append(audit.Simulations, a)
	}
	if req.AuditModel != "" {
		calls, err := s.runAuditor(ctx, req, src, byTask, audit)
		if err != nil {
			return nil, err
		}
		audit.AuditorCalls = calls
	}
	setAside(audit, src, order)
	return audit, nil
}

// runAuditor has the LLM auditor read every simulation; it returns the
// auditor's model calls.
func (s *Service) runAuditor(ctx context.Context, req AuditRequest, src *result.Evaluation, byTask map[string]*domains.Task, audit *result.UserAudit) (int, error) {
	if s.Models == nil {
		return 0, invalid("audit_model: this service has no language models configured")
	}
	m, err := s.Models.Model(ctx, req.AuditModel, llm.RoleJudge)
	if err != nil {
		return 0, invalid("audit_model: %v", err)
	}
	auditor, ledger := scoring.UserAuditor{Model: m}, &llm.Ledger{}
	err = eachBounded(ctx, len(audit.Simulations), cmp.Or(req.Concurrency, src.Config.Concurrency), func(i int) {
		a, sim := &audit.Simulations[i], &src.Simulations[i]
		task := byTask[sim.TaskID]
		if task == nil {
			return
		}
		actx := llm.WithCallKey(llm.WithLedger(ctx, ledger), sim.TaskID, strconv.Itoa(sim.Trial))
		v, err := auditor.Audit(actx, task, sim)
		if err != nil {
			v = &result.AuditorVerdict{Deviations: []string{}, Error: err.Error()}
		}
		a.Auditor = v
	})
	return len(ledger.Calls()), err
}

// setAside marks the failed simulations that may be the simulator's and
// scores the evaluation without them.
func setAside(audit *result.UserAudit, src *result.Evaluation, order []string) {
	audit.SetAside = []string{}
	var kept []result.Simulation
	for i := range audit.Simulations {
		a := &audit.Simulations[i]
		if !a.Passed {
			audit.Failed++
			a.Attributable = len(a.Flags) > 0 || a.Auditor != nil && a.Auditor.CouldChangeOutcome
		}
		if a.Attributable {
			audit.Attributable++
			audit.SetAside = append(audit.SetAside, a.ID)
			continue
		}
		kept = append(kept, src.Simulations[i])
	}
	audit.PassHat1 = scoring.Summarize(src.Simulations, order).PassHatK["1"]
	audit.PassHat1SetAside = scoring.Summarize(kept, order).PassHatK["1"]
}
