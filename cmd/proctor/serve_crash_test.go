package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// servingLine is what proctor serve prints once it listens.
var servingLine = regexp.MustCompile(`(?m)^proctor: serving at (http://\S+) \(`)

// startServe starts `proctor serve` on a port of its choosing and returns
// the process, its stderr and its base URL, read from its stderr.
func startServe(ctx context.Context, t *testing.T, db string) (*exec.Cmd, *lockedBuffer, <-chan struct{}, string) {
	t.Helper()
	// n = 0: no progress line is awaited; serve prints none.
	cmd, _, stderr, _, stderrDone := startProctor(ctx, t, 0, "serve", "--port", "0", "--grpc-port", "-1", "--db", db)
	for {
		if m := servingLine.FindStringSubmatch(stderr.String()); m != nil {
			return cmd, stderr, stderrDone, m[1]
		}
		select {
		case <-stderrDone:
			t.Fatalf("proctor serve ended before serving:\n%s", stderr.String())
		case <-ctx.Done():
			t.Fatalf("proctor serve did not start in time:\n%s", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func a2aClient(ctx context.Context, t *testing.T, base string) *sdkclient.Client {
	t.Helper()
	card, err := agentcard.DefaultResolver.Resolve(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sdkclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

func skillRequest(name string, params map[string]any) *a2a.SendMessageRequest {
	// A client that polls asks for the task at once; a blocking send
	// would wait for the evaluation to end.
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser,
		a2a.NewDataPart(map[string]any{"skill": name, "params": params})),
		Config: &a2a.SendMessageConfig{ReturnImmediately: true}}
}

func dataOf(parts []*a2a.Part) map[string]any {
	for _, p := range parts {
		if d, ok := p.Data().(map[string]any); ok {
			return d
		}
	}
	return nil
}

func statusData(task *a2a.Task) map[string]any {
	if task.Status.Message == nil {
		return nil
	}
	return dataOf(task.Status.Message.Parts)
}

// startEvaluation sends run_evaluation and returns the working task it
// answers with at once.
func startEvaluation(ctx context.Context, t *testing.T, c *sdkclient.Client, params map[string]any) *a2a.Task {
	t.Helper()
	res, err := c.SendMessage(ctx, skillRequest("run_evaluation", params))
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("run_evaluation answered %T %+v, want a working task", res, res)
	}
	return task
}

// pollTask polls a task with GetTask until until says stop or the task
// ends, and returns the last state seen.
func pollTask(ctx context.Context, t *testing.T, c *sdkclient.Client, id a2a.TaskID, until func(*a2a.Task) bool) *a2a.Task {
	t.Helper()
	for {
		task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err != nil {
			t.Fatalf("GetTask: %v", err)
		}
		if until(task) || task.Status.State.Terminal() {
			return task
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task %s: still %s: %s", id, task.Status.State, statusText(task))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func statusText(task *a2a.Task) string {
	if task.Status.Message == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range task.Status.Message.Parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

// TestServeCrashAndResume kills a real `proctor serve` (SIGKILL: no
// deferred code, no final save) while it runs an evaluation for an A2A
// client, restarts it on the same database with --no-resume, and checks
// that the evaluation is reported interrupted, its task failed naming the
// resume request, and that run_evaluation {"resume": ID} finishes it
// without running any finished simulation again. (Without --no-resume the
// restart carries the task on itself: TestServeKilledTaskCarriesOn.)
func TestServeCrashAndResume(t *testing.T) {
	const total = mockTasks // 17 tasks x 1 trial
	buildProctor(t)
	db := tempDB(t)
	seen := newContextCounter()
	slow := agenttest.Start(t, seen.wrap(agenttest.Delayed(60*time.Millisecond, agenttest.Sorry)))

	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd, stderr, stderrDone, base := startServe(ctx, t, db)
	c := a2aClient(ctx, t, base)

	task := startEvaluation(ctx, t, c, map[string]any{"agent_url": slow.URL, "concurrency": 1})
	var evalID string
	task = pollTask(ctx, t, c, task.ID, func(task *a2a.Task) bool {
		d := statusData(task)
		if id, ok := d["evaluation_id"].(string); ok {
			evalID = id
		}
		done, _ := d["done"].(float64)
		return done >= 2
	})
	if task.Status.State != a2a.TaskStateWorking || evalID == "" {
		t.Fatalf("task %s before the kill: %s %q", task.ID, task.Status.State, statusText(task))
	}
	reported := int(statusData(task)["done"].(float64))

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-stderrDone
	if err := cmd.Wait(); err == nil || cmd.ProcessState.Success() {
		t.Fatalf("proctor serve was not killed (%v):\n%s", err, stderr.String())
	}
	before := seen.snapshot()

	// The database opens cleanly after the kill (read-only: nothing marks
	// the evaluation yet), holding what was reported and at most the one
	// simulation in flight (concurrency 1) besides.
	ro, err := store.Open(db, store.WithReadOnly())
	if err != nil {
		t.Fatalf("open the database after the kill: %v", err)
	}
	rec, err := ro.GetEvaluation(ctx, evalID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != string(result.StatusRunning) {
		t.Errorf("status after the kill %q, want running (nobody marked it yet)", rec.Status)
	}
	sims, err := ro.Simulations(ctx, evalID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sims) < reported || len(sims) >= total {
		t.Errorf("%d simulations stored after the kill, %d were reported done, %d in all", len(sims), reported, total)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	// Restart on the same database: the evaluation is marked interrupted,
	// and said to be.
	serve2, stderr2, stderr2Done, base2 := startServeArgs(ctx, t, db, "--no-resume")
	if !strings.Contains(stderr2.String(), "proctor: 1 evaluation(s) left running by a proctor that stopped are now marked interrupted (resume one with run_evaluation") {
		t.Errorf("the restart does not report the interrupted evaluation:\n%s", stderr2.String())
	}
	c2 := a2aClient(ctx, t, base2)
	// The task the kill cut short ends failed, naming the request that
	// finishes its evaluation.
	cut, err := c2.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`run_evaluation {"resume": %q}`, evalID); cut.Status.State != a2a.TaskStateFailed || !strings.Contains(statusText(cut), want) {
		t.Errorf("the killed evaluation's task after the restart: %s %q; want failed naming %s", cut.Status.State, statusText(cut), want)
	}
	res, err := c2.SendMessage(ctx, skillRequest("get_results", map[string]any{"id": evalID}))
	if err != nil {
		t.Fatal(err)
	}
	answer, ok := res.(*a2a.Task)
	if !ok || answer.Status.State != a2a.TaskStateCompleted || answer.Status.Message == nil {
		t.Fatalf("get_results answered %T %+v, want a completed task", res, res)
	}
	prior := dataOf(answer.Status.Message.Parts)
	if prior == nil {
		t.Fatalf("get_results: no data part: %+v", answer.Status.Message.Parts)
	}
	if s := str(t, prior, "status"); s != string(result.StatusInterrupted) {
		t.Errorf("get_results after the restart: status %q, want interrupted", s)
	}
	kept := contextIDs(t, prior)
	if len(kept) != len(sims) {
		t.Errorf("get_results lists %d simulations, %d were stored", len(kept), len(sims))
	}
	if n := num(t, prior, "summary.num_simulations"); n != float64(len(kept)) {
		t.Errorf("the interrupted evaluation's summary counts %v simulations, it has %d", n, len(kept))
	}

	// Resume it (faster than it began: only concurrency may change).
	resumed := startEvaluation(ctx, t, c2, map[string]any{"resume": evalID, "concurrency": 8})
	final := pollTask(ctx, t, c2, resumed.ID, func(*a2a.Task) bool { return false })
	if final.Status.State != a2a.TaskStateCompleted || len(final.Artifacts) != 1 {
		t.Fatalf("resumed task ended %s with %d artifacts: %s", final.Status.State, len(final.Artifacts), statusText(final))
	}
	if d := statusData(final); d["evaluation_id"] != evalID || d["total"] != float64(total) {
		t.Errorf("resumed task's final status data %v, want evaluation %s of %d simulations", d, evalID, total)
	}
	result := dataOf(final.Artifacts[0].Parts)
	if result == nil {
		t.Fatalf("the Result artifact has no data part")
	}
	checkSchema(t, result)
	// Complete, each simulation once, the kept ones unchanged and not run
	// again; the agent saw at most one conversation (the one in flight at
	// the kill) beyond the evaluation's simulations.
	after := seen.snapshot()
	checkResumed(t, result, evalID, prior, before, after, total, 1)
	t.Logf("killed after %d reported simulations, %d stored; the agent saw %d conversations before the kill, %d in all, for %d simulations",
		reported, len(sims), len(before), len(after), total)

	// Stop the server as Ctrl-C does; the database then opens cleanly and
	// holds the completed evaluation.
	if err := serve2.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-stderr2Done
	if err := serve2.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupt {
			t.Errorf("proctor serve stopped with %v", err)
		}
	}
	rw, err := store.Open(db)
	if err != nil {
		t.Fatalf("open the database after the resumed run: %v", err)
	}
	defer rw.Close()
	recs, err := rw.ListEvaluations(ctx, store.ListFilter{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].ID != evalID || recs[0].Status != "completed" {
		t.Errorf("stored evaluations %+v, want %s completed", recs, evalID)
	}
	if all, err := rw.Simulations(ctx, evalID); err != nil || len(all) != total {
		t.Errorf("%d simulations stored (%v), want %d", len(all), err, total)
	}
}

// TestServeKilledTaskCarriesOn kills a real `proctor serve` (SIGKILL)
// while it runs an evaluation for an A2A client that polls GetTask, and
// restarts it on the same database: the restart resumes the evaluation by
// itself under the same task, which the client sees go on from working to
// completed with every simulation once, the finished ones not run again.
func TestServeKilledTaskCarriesOn(t *testing.T) {
	const total = mockTasks
	buildProctor(t)
	db := tempDB(t)
	seen := newContextCounter()
	slow := agenttest.Start(t, seen.wrap(agenttest.Delayed(60*time.Millisecond, agenttest.Sorry)))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cmd, stderr, stderrDone, base := startServe(ctx, t, db)
	c := a2aClient(ctx, t, base)
	task := startEvaluation(ctx, t, c, map[string]any{"agent_url": slow.URL, "concurrency": 1})
	var evalID string
	pollTask(ctx, t, c, task.ID, func(task *a2a.Task) bool {
		evalID, _ = statusData(task)["evaluation_id"].(string)
		done, _ := statusData(task)["done"].(float64)
		return done >= 2
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-stderrDone
	if err := cmd.Wait(); err == nil {
		t.Fatalf("proctor serve was not killed:\n%s", stderr.String())
	}
	before := seen.snapshot()
	prior := decodeObject(t, mustCLI(t, exitOK, "results", evalID, "--db", db, "--format", "json").stdout)

	serve2, stderr2, stderr2Done, base2 := startServe(ctx, t, db)
	if want := "proctor: resuming 1 A2A task(s) a previous stop left unfinished: " + string(task.ID) + " (evaluation " + evalID + ")"; !strings.Contains(stderr2.String(), want) {
		t.Errorf("the restart does not say %q:\n%s", want, stderr2.String())
	}
	c2 := a2aClient(ctx, t, base2)
	var states []a2a.TaskState
	final := pollTask(ctx, t, c2, task.ID, func(task *a2a.Task) bool {
		if len(states) == 0 || states[len(states)-1] != task.Status.State {
			states = append(states, task.Status.State)
		}
		return false
	})
	if final.Status.State != a2a.TaskStateCompleted || len(final.Artifacts) != 1 {
		t.Fatalf("task %s after the restart ended %s: %s\n%s", task.ID, final.Status.State, statusText(final), stderr2.String())
	}
	if states[0] != a2a.TaskStateWorking {
		t.Errorf("the client saw the task go %v after the restart, want working then completed", states)
	}
	after := seen.snapshot()
	stopServe(t, serve2, stderr2, stderr2Done)
	resumed := decodeObject(t, mustCLI(t, exitOK, "results", evalID, "--db", db, "--format", "json").stdout)
	checkResumed(t, resumed, evalID, prior, before, after, total, 1)
}
