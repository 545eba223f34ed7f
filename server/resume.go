package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// ResumableTask is an A2A task a previous `proctor serve` left unfinished
// (stopped by a drain, or killed) that this one carries on under the same
// id (see Server.Resume).
type ResumableTask struct {
	ID a2a.TaskID
	// Owner is the user name the task belongs to.
	Owner string
	// EvaluationID is the evaluation the task resumes; "" when the task's
	// request starts again from the beginning (it was queued, or is an
	// eval-set run or a conformance check, which do not resume).
	EvaluationID string
}

// RecoverResumableTasks is RecoverTasks for a server that resumes: the
// tasks it can carry on are left as they are and returned, to pass to
// Server.Resume; the others end as RecoverTasks ends them (their ids are
// ended). A task can be carried on when its request holds no credentials
// (the store keeps them redacted, so a resume could not send them) and it
// ran an evaluation that did not complete, or had not started one, or ran
// an eval-set run or a conformance check (started again from the
// beginning).
func RecoverResumableTasks(ctx context.Context, db *store.DB) (ended []a2a.TaskID, resumable []ResumableTask, err error) {
	kept := map[a2a.TaskID]string{}
	ended, err = db.RecoverTasks(ctx, func(task *a2a.Task, evaluations store.EvaluationStatus) store.TaskRecovery {
		if evalID, ok := resumableTask(task, evaluations); ok {
			kept[task.ID] = evalID
			return store.TaskRecovery{Keep: true}
		}
		return recoverTask(task, evaluations)
	})
	if err != nil {
		return nil, nil, err
	}
	for id, evalID := range kept {
		owner, err := db.TaskOwner(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		resumable = append(resumable, ResumableTask{ID: id, Owner: owner, EvaluationID: evalID})
	}
	sort.Slice(resumable, func(i, j int) bool { return resumable[i].ID < resumable[j].ID })
	return ended, resumable, nil
}

// resumableTask reports whether a task left unfinished can be carried on,
// and the evaluation it resumes ("" to run its request again).
func resumableTask(task *a2a.Task, evaluations store.EvaluationStatus) (string, bool) {
	msg := requestMessage(task)
	if msg == nil || withheld(msg) {
		return "", false // no request, or one whose credentials are gone
	}
	req, err := parseRequest(msg)
	if err != nil || !isLongKind(req.kind) {
		return "", false
	}
	evalID := taskEvaluationID(task)
	if evalID == "" || req.kind != SkillRunEvaluation {
		return "", true
	}
	status, ok := evaluations(evalID)
	return evalID, ok && (status == string(result.StatusInterrupted) || status == string(result.StatusRunning))
}

// withheld reports whether a stored request had credentials, which the
// store keeps redacted: sent again, it would lack them.
func withheld(msg *a2a.Message) bool {
	b, err := json.Marshal(msg.Parts)
	return err != nil || bytes.Contains(b, []byte(strconv.Quote(Redacted)))
}

// requestMessage is the request a task was made for: the first user
// message of its history.
func requestMessage(task *a2a.Task) *a2a.Message {
	for _, m := range task.History {
		if m != nil && m.Role == a2a.MessageRoleUser {
			return m
		}
	}
	return nil
}

// isLongKind reports whether a request is for a long-running skill: new
// work, which a draining server refuses.
func isLongKind(k Skill) bool {
	return k == SkillRunEvaluation || k == SkillRunEvalSet || k == SkillCheckConformance
}

// Resume carries on the tasks a previous process left unfinished (see
// RecoverResumableTasks), each under its own id and on its owner's behalf:
// its request is sent again, in-process, to the task; an evaluation
// resumes where it stopped, running only the simulations it did not
// finish. They take their turn in the queue like any request. A client
// polling GetTask sees the task go on from working to its end. Call it
// after New and before or while Serve serves.
func (s *Server) Resume(ctx context.Context, tasks []ResumableTask) error {
	var errs []error
	for _, r := range tasks {
		if err := s.resumeOne(ctx, r); err != nil {
			errs = append(errs, fmt.Errorf("resume task %s: %w", r.ID, err))
		}
	}
	return errors.Join(errs...)
}

func (s *Server) resumeOne(ctx context.Context, r ResumableTask) error {
	if r.Owner != "" { // the task, its evaluation and its limits are its tenant's
		ctx = store.WithTenant(ctx, store.Tenant{Name: r.Owner})
	}
	ctx, call := a2asrv.NewCallContext(ctx, nil)
	call.User = &a2asrv.User{Name: r.Owner, Authenticated: r.Owner != ""}
	task, err := s.handler.GetTask(ctx, &a2a.GetTaskRequest{ID: r.ID})
	if err != nil {
		return err
	}
	msg := requestMessage(task)
	if msg == nil {
		return errors.New("the task holds no request")
	}
	cp := *msg
	cp.TaskID, cp.ContextID = task.ID, task.ContextID
	s.executor.mu.Lock()
	s.executor.resumes[r.ID] = r
	s.executor.mu.Unlock()
	// The same message (same id): a2a-go adds nothing to the history.
	_, err = s.handler.SendMessage(ctx, &a2a.SendMessageRequest{Message: &cp, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		s.executor.mu.Lock()
		delete(s.executor.resumes, r.ID)
		s.executor.mu.Unlock()
	}
	return err
}

// takeResume returns, and forgets, what Resume registered for the task of
// ec.
func (e *executor) takeResume(ec *a2asrv.ExecutorContext) (ResumableTask, bool) {
	if ec.StoredTask == nil {
		return ResumableTask{}, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.resumes[ec.TaskID]
	delete(e.resumes, ec.TaskID)
	return r, ok
}

// resumeParams is the run_evaluation that resumes evalID for a request
// orig: the stored evaluation says the rest.
func resumeParams(orig *runParams, evalID string) *runParams {
	p := &runParams{EvaluationRequest: skills.EvaluationRequest{Resume: evalID}}
	if orig != nil {
		p.Concurrency, p.IncludeTranscripts = orig.Concurrency, orig.IncludeTranscripts
	}
	return p
}
