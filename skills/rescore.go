package skills

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// RescoreRequest asks for a stored evaluation to be scored again, from what
// it recorded, under the same or other scoring settings.
type RescoreRequest struct {
	// ID is the evaluation to score again (or a short id: a unique prefix or suffix).
	ID string `json:"id" validate:"required,max=100"`
	// Strict, when set, chooses strict or lenient scoring; nil keeps the
	// source's.
	Strict *bool `json:"strict,omitempty"`
	// ActionMatch, when set, chooses how ACTION matches actions ("tau2"
	// or "exact"); empty keeps the source's.
	ActionMatch result.ActionMatch `json:"action_match,omitempty" validate:"omitempty,oneof=tau2 exact"`
	// JudgeModel, JudgeSamples, Temperature and Seed configure the
	// NL_ASSERTION judge; unset ones keep the source's.
	JudgeModel   string   `json:"judge_model,omitempty" validate:"omitempty,max=200,modelspec"`
	JudgeSamples int      `json:"judge_samples,omitempty" validate:"gte=0,lte=25"`
	Temperature  *float64 `json:"temperature,omitempty" validate:"omitempty,gte=0,lte=2"`
	Seed         *int64   `json:"seed,omitempty"`
	// Concurrency bounds the simulations scored at the same time (judge
	// calls); 0 keeps the source's.
	Concurrency int `json:"concurrency,omitempty" validate:"gte=0,lte=10000"`
}

// Rescoring is a prepared rescore: its source loaded, its scorer made, its
// record created. Execute scores it.
type Rescoring struct {
	src, eval *result.Evaluation
	store     *store.DB
	scorer    *scoring.Scorer
	tasks     []*domains.Task
}

// Source returns the evaluation being scored again.
func (r *Rescoring) Source() *result.Evaluation { return r.src }

// Evaluation returns the new evaluation; after Execute it holds the scores.
func (r *Rescoring) Evaluation() *result.Evaluation { return r.eval }

// Execute scores every recorded simulation of the source, storing each as
// it is scored, and reports each to onProgress (which may be nil).
func (r *Rescoring) Execute(ctx context.Context, onProgress func(evaluation.Progress)) error {
	err := evaluation.Rescore(ctx, r.store, r.scorer, r.src, r.eval, r.tasks, max(r.eval.Config.Concurrency, 1), onProgress)
	if err != nil {
		return fmt.Errorf("rescore %s of %s: %w", r.eval.ID, r.src.ID, err)
	}
	return nil
}

// PrepareRescore checks a rescore request and sets it up; nothing contacts
// the agent or the user simulator, then or later.
func (s *Service) PrepareRescore(ctx context.Context, req RescoreRequest) (*Rescoring, error) {
	if err := s.validator().Struct(&req); err != nil {
		return nil, validationError(err)
	}
	src, err := s.loadStored(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	cfg := rescoredConfig(src.Config, req)
	domain, tasks, _, err := s.resolveTasks(src.Config)
	if err != nil {
		return nil, err
	}
	judge, err := s.judge(ctx, cfg, tasks)
	if err != nil {
		return nil, err
	}
	sc := scoring.NewScorer(domain, cfg.Strict).WithActionMatch(cfg.ActionMatch).WithJudge(judge)
	eval := evaluation.NewEvaluation(store.NewID(), cfg, src.Agent)
	return &Rescoring{src: src, eval: eval, store: s.Store, scorer: sc, tasks: tasks}, nil
}

// rescoredConfig is the source's config with the request's scoring
// settings: what the new evaluation records.
func rescoredConfig(cfg result.Config, req RescoreRequest) result.Config {
	if req.Strict != nil {
		cfg.Strict = *req.Strict
	}
	cfg.ActionMatch = cmp.Or(req.ActionMatch, cfg.ActionMatch).OrDefault()
	cfg.JudgeModel = cmp.Or(req.JudgeModel, cfg.JudgeModel)
	cfg.JudgeSamples = cmp.Or(req.JudgeSamples, cfg.JudgeSamples)
	if req.Temperature != nil {
		cfg.Temperature = req.Temperature
	}
	if req.Seed != nil {
		cfg.Seed = req.Seed
	}
	cfg.Concurrency = cmp.Or(req.Concurrency, cfg.Concurrency)
	return cfg
}

// judge makes the NL_ASSERTION judge that cfg names, when a task needs one.
func (s *Service) judge(ctx context.Context, cfg result.Config, tasks []*domains.Task) (scoring.Judge, error) {
	if !needsJudge(tasks) || cfg.JudgeModel == "" || s.Models == nil {
		return nil, nil
	}
	m, err := s.Models.Model(ctx, cfg.JudgeModel, llm.RoleJudge)
	if err != nil {
		return nil, invalid("judge_model: %v", err)
	}
	return scoring.NewLLMJudge(scoring.LLMJudgeConfig{Model: m, Samples: cfg.JudgeSamples, Temperature: cfg.Temperature, Seed: cfg.Seed})
}

// loadStored reads a stored evaluation with its simulations, to score or
// audit it again; an id that names none, or several, is the request's
// error.
func (s *Service) loadStored(ctx context.Context, id string) (*result.Evaluation, error) {
	src, err := s.results().Evaluation(ctx, id)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
		return nil, invalid("id: %v", err)
	}
	return src, err
}
