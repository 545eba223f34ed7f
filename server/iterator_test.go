package server

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/skills"
)

// TestExecuteStopsWhenTheConsumerBreaks ranges over Execute the way a2a-go
// does and stops after each event in turn, as a2a-go's loop does when it
// cannot write an event (a full disk, a client gone): the executor must not
// call yield again after it returned false (the runtime then panics with
// "range function continued iteration after function for loop body
// returned false"), must return, and must stop its evaluation. Each run
// waits in the queue first, so that queue positions, progress, heartbeats,
// the artifact and the final status are all cut short once.
func TestExecuteStopsWhenTheConsumerBreaks(t *testing.T) {
	f := startServer(t, Config{GRPCPort: -1})
	svc := f.executor.svc
	agent := agenttest.Start(t, agenttest.Delayed(2*time.Millisecond, agenttest.Sorry))
	params := fmt.Sprintf(`{"skill": "run_evaluation", "params": {"agent_url": %q, "task_ids": ["mock-01", "mock-02", "mock-03"], "concurrency": 1}}`, agent.URL)

	total := len(runExecute(t, svc, params, -1))
	if total < 6 {
		t.Fatalf("a whole run sent %d events; want queue, start, progress, artifact and end", total)
	}
	for stopAfter := range total {
		t.Run(fmt.Sprintf("break after %d", stopAfter+1), func(t *testing.T) {
			runExecute(t, svc, params, stopAfter)
		})
	}
}

// runExecute runs one request through a fresh executor whose only slot is
// held until its second event (its place in line), consuming its events until the one at index
// stopAfter (all of them when negative). It fails the test unless Execute
// returns and leaves nothing running.
func runExecute(t *testing.T, svc *skills.Service, request string, stopAfter int) []a2a.Event {
	t.Helper()
	e := &executor{svc: svc, queue: newQueue(1), progressEvery: time.Millisecond, cancelWait: DefaultCancelWait, running: map[a2a.TaskID]*activeRun{}}
	held, err := e.queue.acquire(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hold := sync.OnceFunc(held)
	defer hold()
	ec := &a2asrv.ExecutorContext{TaskID: a2a.NewTaskID(), ContextID: a2a.NewContextID(),
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(request))}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var events []a2a.Event
	for ev, err := range e.Execute(ctx, ec) {
		if err != nil {
			t.Fatalf("event %d: %v", len(events), err)
		}
		events = append(events, ev)
		if len(events) == 2 {
			hold() // the second event is the place in line: now the run may start
		}
		if len(events)-1 == stopAfter {
			break
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("Execute did not return in time after %d events", len(events))
	}
	hold()
	e.mu.Lock()
	left := len(e.running)
	e.mu.Unlock()
	if left != 0 {
		t.Errorf("%d runs still tracked after Execute returned", left)
	}
	if running, waiting := e.queue.stats(); running != 0 || waiting != 0 {
		t.Errorf("queue after Execute: %d running, %d waiting", running, waiting)
	}
	return events
}
