package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/google/go-cmp/cmp"
)

// TestTenantsSeeTheirOwnRecords: records made for a tenant carry its
// name; a tenant sees its own (by id, short id and in lists), an admin
// and an unrestricted context see all, and records without an owner are
// the admins' only. Another tenant's record answers exactly as a missing
// one, and cannot be overwritten.
func TestTenantsSeeTheirOwnRecords(t *testing.T) {
	db := openTemp(t)
	bg := context.Background()
	alice := WithTenant(bg, Tenant{Name: "alice"})
	bob := WithTenant(bg, Tenant{Name: "bob"})
	root := WithTenant(bg, Tenant{Name: "root", Admin: true})
	ids := map[string]string{"alice": NewID(), "bob": NewID(), "nobody": NewID()}
	for owner, ctx := range map[string]context.Context{"alice": alice, "bob": bob, "nobody": bg} {
		if err := db.PutEvaluation(ctx, Evaluation{ID: ids[owner], Domain: "mock", Status: "completed"}); err != nil {
			t.Fatal(err)
		}
		if err := db.PutConformance(ctx, ConformanceRun{ID: ids[owner], Level: "full"}); err != nil {
			t.Fatal(err)
		}
	}
	type view struct{ Get, Short, Listed, Conformance, ConformanceListed []string }
	look := func(ctx context.Context) view {
		var v view
		for _, owner := range []string{"alice", "bob", "nobody"} {
			id := ids[owner]
			if e, err := db.GetEvaluation(ctx, id); err == nil && e.ID == id {
				v.Get = append(v.Get, owner)
			}
			if _, err := db.GetEvaluation(ctx, id[len(id)-8:]); err == nil {
				v.Short = append(v.Short, owner)
			}
			if _, err := db.GetConformance(ctx, id); err == nil {
				v.Conformance = append(v.Conformance, owner)
			}
		}
		owners := map[string]string{ids["alice"]: "alice", ids["bob"]: "bob", ids["nobody"]: "nobody"}
		evals, _ := db.ListEvaluations(ctx, ListFilter{Limit: -1})
		for i := len(evals) - 1; i >= 0; i-- {
			v.Listed = append(v.Listed, owners[evals[i].ID])
		}
		runs, _ := db.ListConformance(ctx, ConformanceFilter{Limit: -1})
		for i := len(runs) - 1; i >= 0; i-- {
			v.ConformanceListed = append(v.ConformanceListed, owners[runs[i].ID])
		}
		return v
	}
	all := []string{"alice", "bob", "nobody"}
	want := map[string]view{
		"alice":        {Get: []string{"alice"}, Short: []string{"alice"}, Listed: []string{"alice"}, Conformance: []string{"alice"}, ConformanceListed: []string{"alice"}},
		"bob":          {Get: []string{"bob"}, Short: []string{"bob"}, Listed: []string{"bob"}, Conformance: []string{"bob"}, ConformanceListed: []string{"bob"}},
		"root":         {Get: all, Short: all, Listed: all, Conformance: all, ConformanceListed: all},
		"unrestricted": {Get: all, Short: all, Listed: all, Conformance: all, ConformanceListed: all},
	}
	got := map[string]view{"alice": look(alice), "bob": look(bob), "root": look(root), "unrestricted": look(bg)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("who sees what (-want +got):\n%s", diff)
	}
	if e, _ := db.GetEvaluation(bg, ids["alice"]); e.Tenant != "alice" {
		t.Errorf("owner %q, want alice", e.Tenant)
	}

	// Bob's error about alice's record is the error about no record.
	_, errAlice := db.GetEvaluation(bob, ids["alice"])
	missing := ids["alice"][:24] + "000000000000"
	_, errMissing := db.GetEvaluation(bob, missing)
	if !errors.Is(errAlice, ErrNotFound) || fmt.Sprint(errAlice) != strings.ReplaceAll(fmt.Sprint(errMissing), missing, ids["alice"]) {
		t.Errorf("bob about alice's: %v; about none: %v", errAlice, errMissing)
	}
	// Bob cannot overwrite it; alice's update, and root's, keep the owner.
	if err := db.PutEvaluation(bob, Evaluation{ID: ids["alice"], Status: "failed"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob overwrote alice's evaluation: %v", err)
	}
	if err := db.PutConformance(bob, ConformanceRun{ID: ids["alice"]}); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob overwrote alice's conformance run: %v", err)
	}
	for _, ctx := range []context.Context{alice, root, bg} {
		if err := db.PutEvaluation(ctx, Evaluation{ID: ids["alice"], Status: "completed"}); err != nil {
			t.Fatal(err)
		}
		if e, _ := db.GetEvaluation(bg, ids["alice"]); e.Tenant != "alice" {
			t.Errorf("after an update the owner is %q", e.Tenant)
		}
	}
}

// TestTenantTasks: with WithTenantTasks a task belongs to the tenant that
// created it; another tenant gets not found, an admin gets and lists it,
// and an admin's update keeps its owner.
func TestTenantTasks(t *testing.T) {
	db := openTemp(t)
	s := db.TaskStore(WithTenantTasks())
	bg := context.Background()
	alice := WithTenant(bg, Tenant{Name: "alice"})
	bob := WithTenant(bg, Tenant{Name: "bob"})
	root := WithTenant(bg, Tenant{Name: "root", Admin: true})
	now := time.Now()
	task := &a2a.Task{ID: "t1", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now}}
	if _, err := s.Create(alice, task); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(bob, "t1"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("bob's Get: %v", err)
	}
	if st, err := s.Get(root, "t1"); err != nil || st.User != "alice" {
		t.Errorf("root's Get: %v %+v", err, st)
	}
	if _, err := s.Update(root, &taskstore.UpdateRequest{Task: task, PrevVersion: taskstore.TaskVersionMissing}); err != nil {
		t.Errorf("root's Update: %v", err)
	}
	if st, _ := s.Get(alice, "t1"); st == nil || st.User != "alice" || st.Version != 2 {
		t.Errorf("after root's update: %+v", st)
	}
	count := func(ctx context.Context) int {
		resp, err := s.List(ctx, &a2a.ListTasksRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return len(resp.Tasks)
	}
	if diff := cmp.Diff(map[string]int{"alice": 1, "bob": 0, "root": 1}, map[string]int{"alice": count(alice), "bob": count(bob), "root": count(root)}); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
}

// TestAuditLog: entries come back oldest first, filtered by tenant and
// time, and the log keeps only the newest once full.
func TestAuditLog(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		e := AuditEntry{Time: start.Add(time.Duration(i) * time.Hour), Tenant: []string{"alice", "bob"}[i%2], Action: fmt.Sprint("a", i), Outcome: AuditAccepted}
		if err := db.appendAudit(ctx, bucketAudit, e, 4); err != nil {
			t.Fatal(err)
		}
	}
	actions := func(f AuditFilter) []string {
		es, err := db.ListAudit(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, e := range es {
			out = append(out, e.Action)
		}
		return out
	}
	got := map[string][]string{
		"all": actions(AuditFilter{}), "alice": actions(AuditFilter{Tenant: "alice"}),
		"since 3h": actions(AuditFilter{Since: start.Add(3 * time.Hour)}), "last 2": actions(AuditFilter{Limit: 2}),
	}
	want := map[string][]string{
		"all": {"a1", "a2", "a3", "a4"}, "alice": {"a2", "a4"}, "since 3h": {"a3", "a4"}, "last 2": {"a3", "a4"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit entries (-want +got):\n%s", diff)
	}
}

// TestOthersTaskCostsWhatAMissingOneCosts: getting another tenant's task
// reads its owner and stops: its cost does not depend on the task's size
// and is within a small constant of a missing task's, where the owner's
// get decodes the whole task.
func TestOthersTaskCostsWhatAMissingOneCosts(t *testing.T) {
	db := openTemp(t)
	s := db.TaskStore(WithTenantTasks())
	alice := WithTenant(context.Background(), Tenant{Name: "alice"})
	bob := WithTenant(context.Background(), Tenant{Name: "bob"})
	task := &a2a.Task{ID: "big", ContextID: "c"}
	for i := range 500 {
		task.History = append(task.History, &a2a.Message{ID: fmt.Sprint(i), Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart(strings.Repeat("x", 200))}})
	}
	if _, err := s.Create(alice, task); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(alice, &a2a.Task{ID: "small", ContextID: "c"}); err != nil {
		t.Fatal(err)
	}
	allocs := func(ctx context.Context, id a2a.TaskID) float64 {
		return testing.AllocsPerRun(5, func() { _, _ = s.Get(ctx, id) })
	}
	big, small, missing, own := allocs(bob, "big"), allocs(bob, "small"), allocs(bob, "nope"), allocs(alice, "big")
	t.Logf("allocations per Get: bob of alice's large task %.0f, of her small one %.0f, of a missing one %.0f; alice of her large one %.0f",
		big, small, missing, own)
	if math.Abs(big-small) > 5 || big > missing+50 || own < 10*big { // -race adds an allocation here and there
		t.Errorf("bob's get of alice's large task costs %.0f allocations, of her small one %.0f, of a missing one %.0f; alice's own %.0f",
			big, small, missing, own)
	}
}

// TestUnauthenticatedAuditEntriesKeptApart: unauthenticated callers'
// entries fill a ring of their own, so that a flood of them drops only
// their own oldest and never an authenticated caller's; ListAudit merges
// both in time order, and a tenant filter selects authenticated ones.
func TestUnauthenticatedAuditEntriesKeptApart(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return start.Add(time.Duration(i) * time.Minute) }
	if err := db.AppendAudit(ctx, AuditEntry{Time: at(0), Tenant: "alice", Action: "alice-1", Outcome: AuditAccepted}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 6; i++ {
		e := AuditEntry{Time: at(i), Action: fmt.Sprint("flood-", i), Outcome: AuditRefused, Unauthenticated: true, Source: "192.0.2.9"}
		if err := db.appendAudit(ctx, bucketAuditUnauthenticated, e, 3); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AppendAudit(ctx, AuditEntry{Time: at(7), Tenant: "alice", Action: "alice-2", Outcome: AuditAccepted}); err != nil {
		t.Fatal(err)
	}
	actions := func(f AuditFilter) []string {
		es, err := db.ListAudit(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, e := range es {
			out = append(out, e.Action)
		}
		return out
	}
	got := map[string][]string{"all": actions(AuditFilter{}), "alice": actions(AuditFilter{Tenant: "alice"}), "last 2": actions(AuditFilter{Limit: 2})}
	want := map[string][]string{
		"all":    {"alice-1", "flood-4", "flood-5", "flood-6", "alice-2"},
		"alice":  {"alice-1", "alice-2"},
		"last 2": {"flood-6", "alice-2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit entries (-want +got):\n%s", diff)
	}
}
