package server_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
)

// proctorMessages make proctor's skills exercise the task lifecycle: a
// short evaluation of the built-in agent (a blocking send waits for it), and
// a long one to cancel, subscribe to and hang up on. proctor has no skill
// that asks for input, so multi-turn is skipped.
func proctorMessages() conformance.Messages {
	return conformance.Messages{
		Basic: `{"skill": "run_evaluation", "params": {"agent_url": "builtin", "task_ids": ["mock-01"]}}`,
		Slow:  `{"skill": "run_evaluation", "params": {"agent_url": "builtin", "num_trials": 5}}`,
	}
}

// TestProctorIsConformant: proctor serve is "full" on every interface it
// serves (JSON-RPC and REST at 1.0 and 0.3, gRPC at 1.0), with and without
// authentication, in under 200 requests and 10 seconds.
func TestProctorIsConformant(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tokens []string
	}{{"open", nil}, {"with tokens", []string{"s3cret"}}} {
		t.Run(tc.name, func(t *testing.T) {
			f := start(t, server.Config{AuthTokens: tc.tokens})
			opts := []conformance.Option{conformance.WithMessages(proctorMessages())}
			if len(tc.tokens) > 0 {
				opts = append(opts, conformance.WithAuthToken(tc.tokens[0]))
			}
			rep, err := conformance.Run(context.Background(), f.srv.URL(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Failed() {
				t.Errorf("%s %s [%s]: %s", r.Level, r.ID, strings.Join(r.Transports, ", "), r.Message)
			}
			if rep.Level != conformance.LevelFull {
				t.Errorf("level %s, want full", rep.Level)
			}
			var checked []string
			for _, in := range rep.Interfaces {
				if in.Checked {
					checked = append(checked, in.Name)
				}
			}
			slices.Sort(checked)
			want := []string{"GRPC 1.0", "HTTP+JSON 0.3", "HTTP+JSON 1.0", "JSONRPC 0.3", "JSONRPC 1.0"}
			if !slices.Equal(checked, want) {
				t.Errorf("checked %v, want %v", checked, want)
			}
			// Everything but multi-turn (no skill asks for input) and the
			// version negotiation 0.3 does not define ran.
			for _, r := range rep.Results {
				versioning03 := (r.ID == conformance.ReqVersionDefault || r.ID == conformance.ReqVersionUnsupported) &&
					(slices.Equal(r.Transports, []string{"HTTP+JSON 0.3"}) || slices.Equal(r.Transports, []string{"JSONRPC 0.3"}))
				if r.Status == conformance.Skip && r.ID != conformance.ReqMultiTurn && !strings.HasPrefix(r.ID, "auth-") && !versioning03 &&
					!(r.ID == conformance.ReqCardSecurity && len(tc.tokens) == 0) {
					t.Errorf("%s [%s] skipped: %s", r.ID, strings.Join(r.Transports, ", "), r.Message)
				}
			}
			if len(tc.tokens) > 0 && rep.Categories[conformance.CategoryAuth].Passed == 0 {
				t.Error("no auth check passed with tokens required")
			}
			limit := 10 * time.Second
			if raceEnabled {
				limit = 60 * time.Second // the race detector slows every evaluation
			}
			if rep.Requests >= 200 || rep.DurationMS >= float64(limit.Milliseconds()) {
				t.Errorf("%d requests in %.0f ms: want under 200 and %s", rep.Requests, rep.DurationMS, limit)
			}
			t.Logf("%s: %d checks passed, %d skipped; %d requests in %.0f ms", tc.name, rep.Summary.Passed, rep.Summary.Skipped, rep.Requests, rep.DurationMS)
		})
	}
}

// TestCheckConformanceSkill asks proctor serve to check another agent: a
// task that ends with the ConformanceReport artifact, stored in the
// database; a bad request is rejected.
func TestCheckConformanceSkill(t *testing.T) {
	f := start(t, server.Config{})
	c := client(t, f.srv.URL())
	peer := agenttest.StartLifecycle(t, agenttest.LifecycleOptions{Protocols: []string{"1.0"}, Transports: []string{"jsonrpc"}})
	var states []a2a.TaskState
	var report *a2a.Artifact
	var final *a2a.TaskStatusUpdateEvent
	req := skill(server.SkillCheckConformance, map[string]any{"agent_url": peer, "message": "hello",
		"slow_message": agenttest.LifecycleSlow, "multi_turn_message": agenttest.LifecycleAsk, "timeout": "1m"})
	for ev, err := range c.SendStreamingMessage(context.Background(), req) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case *a2a.Task:
			states = append(states, e.Status.State)
		case *a2a.TaskStatusUpdateEvent:
			states = append(states, e.Status.State)
			final = e
		case *a2a.TaskArtifactUpdateEvent:
			report = e.Artifact
		}
	}
	if states[0] != a2a.TaskStateWorking || states[len(states)-1] != a2a.TaskStateCompleted {
		t.Fatalf("states %v, want working first, completed last", states)
	}
	if report == nil || report.Name != server.ConformanceArtifact {
		t.Fatalf("report artifact %+v", report)
	}
	rep := data(t, report.Parts)
	if rep["level"] == "" || rep["agent_url"] != peer || rep["requests"].(float64) == 0 {
		t.Errorf("report %v", rep)
	}
	if md := text(report.Parts); !strings.Contains(md, "## A2A conformance") || !strings.Contains(md, "Level rule") {
		t.Errorf("Markdown summary: %q", md)
	}
	id, _ := data(t, final.Status.Message.Parts)["conformance_id"].(string)
	stored, err := skills.LoadConformance(context.Background(), f.db, id)
	if err != nil || string(stored.Level) != rep["level"] {
		t.Fatalf("stored report %s: %+v, %v", id, stored, err)
	}
	// a2a-go's own deviations (see internal/interop) are all it fails;
	// serving a 1.0 request without A2A-Version as 1.0 is not one.
	want := []string{conformance.ReqInvalidRequest, conformance.ReqListTasks, conformance.ReqSubscribeDone,
		conformance.ReqVersionUnsupported}
	if got := stored.FailedIDs(); !slices.Equal(got, want) {
		t.Errorf("failed %v", got)
	}

	res, err := c.SendMessage(context.Background(), skill(server.SkillCheckConformance, map[string]any{"agent_url": "ftp://x", "protocol": "2.0"}))
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateRejected {
		t.Fatalf("a bad request: %T %+v, want a rejected task", res, res)
	}
	if msg := text(task.Status.Message.Parts); !strings.Contains(msg, "agent_url") || !strings.Contains(msg, "protocol") {
		t.Errorf("rejection %q lacks a violation", msg)
	}
}

// TestCancelConformanceCheck: CancelTask stops a check at once.
func TestCancelConformanceCheck(t *testing.T) {
	f := start(t, server.Config{})
	c := client(t, f.srv.URL())
	hang := agenttest.HangingAgent(t)
	res, err := c.SendMessage(context.Background(), skill(server.SkillCheckConformance, map[string]any{"agent_url": hang.URL}))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	start := time.Now()
	canceled, err := c.CancelTask(context.Background(), &a2a.CancelTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if canceled.Status.State != a2a.TaskStateCanceled || time.Since(start) > 5*time.Second {
		t.Errorf("%s after %s", canceled.Status.State, time.Since(start))
	}
	if msg := text(canceled.Status.Message.Parts); !strings.Contains(msg, "conformance check") {
		t.Errorf("cancel message %q", msg)
	}
}
