package server

import (
	"context"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// resumeHint is the text and data that tell a caller how to finish an
// evaluation that stopped: run_evaluation {"resume": evalID}. The data is
// plain JSON values (see dataPart).
func resumeHint(evalID string) (string, map[string]any) {
	return fmt.Sprintf("resume it with run_evaluation {\"resume\": %q}", evalID),
		map[string]any{"evaluation_id": evalID, "resume": map[string]any{"skill": string(SkillRunEvaluation), "params": map[string]any{"resume": evalID}}}
}

// RecoverTasks ends the A2A tasks that a previous `proctor serve` left
// unfinished (killed, or stopped before they could be updated), from the
// real state of their work, and returns their ids: a task whose evaluation
// completed ends completed (get_results gives its results); one whose
// evaluation did not ends failed with the resume request that finishes it;
// any other (a queued request, a conformance check) ends failed, saying to
// send the request again. Call it after the database is open and before
// the server serves.
func RecoverTasks(ctx context.Context, db *store.DB) ([]a2a.TaskID, error) {
	return db.RecoverTasks(ctx, recoverTask)
}

// recoverTask decides how an interrupted task ends (see RecoverTasks).
func recoverTask(task *a2a.Task, evaluations store.EvaluationStatus) store.TaskRecovery {
	evalID := taskEvaluationID(task)
	status, ok := evaluations(evalID)
	switch {
	case !ok:
		return store.TaskRecovery{State: a2a.TaskStateFailed, Parts: []*a2a.Part{a2a.NewTextPart(
			"proctor restarted before this task finished; its work was lost. Send the request again.")}}
	case status == string(result.StatusCompleted):
		return store.TaskRecovery{State: a2a.TaskStateCompleted, Parts: []*a2a.Part{
			a2a.NewTextPart(fmt.Sprintf("Evaluation %s completed (proctor restarted before this task said so); "+
				"get_results {\"id\": %q} gives its results.", evalID, evalID)),
			dataPart(map[string]any{"evaluation_id": evalID}),
		}}
	}
	hint, data := resumeHint(evalID)
	return store.TaskRecovery{State: a2a.TaskStateFailed, Parts: []*a2a.Part{
		a2a.NewTextPart(fmt.Sprintf("proctor restarted while evaluation %s was running (it is %s and keeps its finished simulations); %s.",
			evalID, status, hint)),
		dataPart(data),
	}}
}

// taskEvaluationID is the id of the evaluation a task reported in its
// status messages (the newest first), "" when it reported none.
func taskEvaluationID(task *a2a.Task) string {
	msgs := []*a2a.Message{task.Status.Message}
	for i := len(task.History) - 1; i >= 0; i-- {
		msgs = append(msgs, task.History[i])
	}
	for _, m := range msgs {
		if m == nil || m.Role != a2a.MessageRoleAgent {
			continue
		}
		for _, p := range m.Parts {
			if d, ok := p.Data().(map[string]any); ok {
				if id, ok := d["evaluation_id"].(string); ok && id != "" {
					return id
				}
			}
		}
	}
	return ""
}
