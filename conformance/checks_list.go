package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	pb1 "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// listQuery is a ListTasks request, written once for every binding.
type listQuery struct {
	contextID, status, pageToken string
	// after is statusTimestampAfter as sent (JSON-RPC, HTTP+JSON); gRPC
	// sends it only when it is an RFC 3339 time.
	after                   string
	pageSize, historyLength *int
}

func (q listQuery) jsonParams() map[string]any {
	p := map[string]any{}
	for k, v := range map[string]string{"contextId": q.contextID, "status": q.status, "pageToken": q.pageToken, "statusTimestampAfter": q.after} {
		if v != "" {
			p[k] = v
		}
	}
	if q.pageSize != nil {
		p["pageSize"] = *q.pageSize
	}
	if q.historyLength != nil {
		p["historyLength"] = *q.historyLength
	}
	return p
}

func (q listQuery) queryValues() url.Values {
	v := url.Values{}
	for k, s := range q.jsonParams() {
		switch x := s.(type) {
		case string:
			v.Set(k, x)
		case int:
			v.Set(k, strconv.Itoa(x))
		}
	}
	return v
}

// unknownStateNumber is a TaskState number a2a.proto does not define: an
// invalid status filter in gRPC's terms.
const unknownStateNumber = 99

func (q listQuery) grpcRequest() *pb1.ListTasksRequest {
	req := &pb1.ListTasksRequest{ContextId: q.contextID, PageToken: q.pageToken}
	if q.status != "" {
		n, ok := pb1.TaskState_value[q.status]
		if !ok {
			n = unknownStateNumber
		}
		req.Status = pb1.TaskState(n)
	}
	if t, err := time.Parse(time.RFC3339Nano, q.after); err == nil {
		req.StatusTimestampAfter = timestamppb.New(t)
	}
	if q.pageSize != nil {
		n := int32(*q.pageSize)
		req.PageSize = &n
	}
	if q.historyLength != nil {
		n := int32(*q.historyLength)
		req.HistoryLength = &n
	}
	return req
}

func intPtr(n int) *int { return &n }

// listedTask is one task of a ListTasks page.
type listedTask struct {
	obj          wireObject
	timestamp    *time.Time
	hasArtifacts bool
}

// listPage is a ListTasks answer.
type listPage struct {
	tasks []listedTask
	next  string
	total int
}

func (p listPage) ids() []string {
	out := make([]string, len(p.tasks))
	for i, t := range p.tasks {
		out[i] = t.obj.ID
	}
	return out
}

// parsePage reads a ListTasks answer; it says what is wrong with one that
// is not a page. gRPC answers are proto JSON, which leaves out empty
// fields: there, an absent nextPageToken or tasks is an empty one.
func parsePage(rep reply, binding string) (listPage, string) {
	if rep.isError() || rep.result == nil {
		return listPage{}, rep.describe()
	}
	m, ok := object(rep.result)
	if !ok {
		return listPage{}, "a result that is not a JSON object"
	}
	grpc := binding == bindingGRPC
	var page listPage
	var problems []string
	if raw, ok := m["nextPageToken"]; ok && jsonType(raw) == "string" {
		page.next = jsonStr(raw)
	} else if !grpc || ok {
		problems = append(problems, "no nextPageToken string (it MUST always be present, \"\" on the last page)")
	}
	for _, key := range []string{"pageSize", "totalSize"} {
		raw, ok := m[key]
		if !ok && grpc {
			continue
		}
		n, err := jsonInteger(raw)
		if err != nil {
			problems = append(problems, "no "+key+" integer")
		} else if key == "totalSize" {
			page.total = n
		}
	}
	tasks, isArr := array(m["tasks"])
	if !isArr && !(grpc && m["tasks"] == nil) {
		problems = append(problems, "no tasks array")
	}
	for i, raw := range tasks {
		t, p := parseListedTask(raw)
		if p != "" {
			problems = append(problems, fmt.Sprintf("tasks[%d]: %s", i, p))
			continue
		}
		page.tasks = append(page.tasks, t)
	}
	return page, strings.Join(problems, "; ")
}

// jsonInteger reads an integer written as a JSON number or, as proto JSON
// writes 64-bit ones, a string.
func jsonInteger(raw json.RawMessage) (int, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strconv.Atoi(s)
	}
	var n int
	err := json.Unmarshal(raw, &n)
	return n, err
}

func parseListedTask(raw json.RawMessage) (listedTask, string) {
	m, ok := object(raw)
	if !ok {
		return listedTask{}, "not an object"
	}
	o, err := decodeObject(raw)
	if err != nil || o.Kind != kindTask {
		return listedTask{}, "not a Task"
	}
	t := listedTask{obj: o}
	_, t.hasArtifacts = m["artifacts"]
	if status, ok := object(m["status"]); ok {
		if ts, err := time.Parse(time.RFC3339Nano, jsonStr(status["timestamp"])); err == nil {
			t.timestamp = &ts
		}
	}
	return t, ""
}

// listRequirements are the list-tasks category's requirements.
func listRequirements() []string {
	return []string{ReqListTasks, ReqListPagination, ReqListOrder, ReqListFilters, ReqListInvalidParams}
}

// checkListTasks checks ListTasks (1.0 §3.1.4) on a 1.0 interface; 0.3
// has no such operation and gets no list-tasks results.
func (r *run) checkListTasks(ctx context.Context, info *cardInfo, c caller, in Interface) {
	tr := []string{in.Name}
	skipRest := func(why string, ids ...string) {
		for _, id := range ids {
			r.skip(id, tr, why)
		}
	}
	if in.ProtocolVersion != version10 {
		return // ListTasks is an A2A 1.0 operation: nothing to say about 0.3
	}
	first := c.list(ctx, listQuery{pageSize: intPtr(100)})
	if refusedForAuth(first) && info.security && r.o.token == "" {
		skipRest("ListTasks is refused without credentials; give an auth token to check it", listRequirements()...)
		return
	}
	page, problem := parsePage(first, in.ProtocolBinding)
	if problem != "" {
		expected := "a ListTasks page (tasks, nextPageToken, pageSize, totalSize)"
		if refusedForAuth(first) {
			problem += ", a refusal for lack of credentials though the card declares no security"
		}
		r.fail(ReqListTasks, tr, expected, problem, first.ex)
		skipRest("ListTasks gave no page", ReqListPagination, ReqListOrder, ReqListFilters)
		if refusedForAuth(first) {
			skipRest("ListTasks is refused for lack of credentials: its parameters cannot be judged", ReqListInvalidParams)
		} else {
			r.checkListInvalidParams(ctx, c, in)
		}
		return
	}
	mine := r.createdOn(c)
	if missing := missingFrom(page, mine); len(missing) > 0 && page.next == "" {
		r.fail(ReqListTasks, tr, "the tasks this run started on the interface", fmt.Sprintf("a list without %s", strings.Join(missing, ", ")), first.ex)
	} else {
		r.pass(ReqListTasks, tr, fmt.Sprintf("a page of %d of %d tasks", len(page.tasks), page.total))
	}
	r.checkListOrder(in, page, first.ex)
	r.checkListPages(ctx, c, in, page)
	r.checkListFilters(ctx, c, in, page, first)
	r.checkListInvalidParams(ctx, c, in)
}

// createdOn are the ids of the tasks the run started on c.
func (r *run) createdOn(c caller) []string {
	var ids []string
	for _, t := range r.created {
		if t.c == c {
			ids = append(ids, t.id)
		}
	}
	return ids
}

func missingFrom(page listPage, ids []string) []string {
	listed := map[string]bool{}
	for _, id := range page.ids() {
		listed[id] = true
	}
	var missing []string
	for _, id := range ids {
		if !listed[id] {
			missing = append(missing, truncateText(id, 40))
		}
	}
	return missing
}

// checkListOrder: newest status timestamp first, among the tasks that
// carry one.
func (r *run) checkListOrder(in Interface, page listPage, ex Exchange) {
	tr := []string{in.Name}
	var prev *listedTask
	stamped := 0
	for i := range page.tasks {
		t := &page.tasks[i]
		if t.timestamp == nil {
			continue
		}
		stamped++
		if prev != nil && t.timestamp.After(*prev.timestamp) {
			r.fail(ReqListOrder, tr, "tasks in descending status timestamp order",
				fmt.Sprintf("task %s (%s) after task %s (%s)", truncateText(t.obj.ID, 40), t.timestamp.Format(time.RFC3339Nano),
					truncateText(prev.obj.ID, 40), prev.timestamp.Format(time.RFC3339Nano)), ex)
			return
		}
		prev = t
	}
	if stamped < 2 {
		r.skip(ReqListOrder, tr, fmt.Sprintf("%d listed tasks carry a status timestamp: nothing to order", stamped))
		return
	}
	r.pass(ReqListOrder, tr, fmt.Sprintf("%d tasks, newest status first", stamped))
}

// checkListPages follows pages of one task.
func (r *run) checkListPages(ctx context.Context, c caller, in Interface, all listPage) {
	tr := []string{in.Name}
	if all.total < 2 && len(all.tasks) < 2 {
		r.skip(ReqListPagination, tr, "fewer than two tasks to page through")
		return
	}
	rep1 := c.list(ctx, listQuery{pageSize: intPtr(1)})
	p1, problem := parsePage(rep1, in.ProtocolBinding)
	switch {
	case problem != "":
		r.fail(ReqListPagination, tr, "a page of one task", problem, rep1.ex)
		return
	case len(p1.tasks) != 1 || p1.next == "":
		r.fail(ReqListPagination, tr, "one task and a nextPageToken for pageSize 1 of several tasks",
			fmt.Sprintf("%d tasks, nextPageToken %q", len(p1.tasks), truncateText(p1.next, 40)), rep1.ex)
		return
	}
	rep2 := c.list(ctx, listQuery{pageSize: intPtr(1), pageToken: p1.next})
	p2, problem := parsePage(rep2, in.ProtocolBinding)
	switch {
	case problem != "":
		r.fail(ReqListPagination, tr, "the next page", problem, rep2.ex)
	case len(p2.tasks) != 1 || p2.tasks[0].obj.ID == p1.tasks[0].obj.ID:
		r.fail(ReqListPagination, tr, "another task on the next page",
			fmt.Sprintf("%v after %v", p2.ids(), p1.ids()), rep1.ex, rep2.ex)
	default:
		r.pass(ReqListPagination, tr, "pageSize 1 gave one task and a token leading to the next")
	}
}

// checkListFilters filters by the context and state of a finished task
// of the page, by a time no task can be after, and trims history.
func (r *run) checkListFilters(ctx context.Context, c caller, in Interface, all listPage, first reply) {
	tr := []string{in.Name}
	var bad []string
	var exs []Exchange
	note := func(what string, rep reply) {
		bad = append(bad, what)
		exs = append(exs, rep.ex)
	}
	for _, t := range all.tasks {
		if t.hasArtifacts {
			note("task "+truncateText(t.obj.ID, 40)+" lists artifacts though includeArtifacts was not asked for", first)
			break
		}
	}
	far := c.list(ctx, listQuery{after: "2999-01-01T00:00:00Z"})
	if p, problem := parsePage(far, in.ProtocolBinding); problem != "" || len(p.tasks) > 0 {
		note(fmt.Sprintf("statusTimestampAfter 2999-01-01: %s%v, want no task", problem, p.ids()), far)
	}
	var probe *listedTask
	for i := range all.tasks {
		if terminalState(all.tasks[i].obj.State) && all.tasks[i].obj.ContextID != "" {
			probe = &all.tasks[i]
			break
		}
	}
	if probe == nil {
		r.judgeFilters(tr, bad, exs, "no finished task to filter by; statusTimestampAfter and artifacts checked")
		return
	}
	byCtx := c.list(ctx, listQuery{contextID: probe.obj.ContextID, historyLength: intPtr(0)})
	if p, problem := parsePage(byCtx, in.ProtocolBinding); problem != "" || !containsID(p, probe.obj.ID) || !allMatch(p, func(t listedTask) bool {
		return t.obj.ContextID == probe.obj.ContextID && t.obj.History == 0
	}) {
		note(fmt.Sprintf("contextId %s with historyLength 0: %s%v, want task %s (and only its context), without history",
			truncateText(probe.obj.ContextID, 40), problem, p.ids(), truncateText(probe.obj.ID, 40)), byCtx)
	}
	state := stateEnumName(probe.obj.State)
	byState := c.list(ctx, listQuery{status: state})
	if p, problem := parsePage(byState, in.ProtocolBinding); problem != "" || (!containsID(p, probe.obj.ID) && p.next == "") ||
		!allMatch(p, func(t listedTask) bool { return t.obj.State == probe.obj.State }) {
		note(fmt.Sprintf("status %s: %s%v, want only %s tasks, task %s among them", state, problem, p.ids(), state, truncateText(probe.obj.ID, 40)), byState)
	}
	r.judgeFilters(tr, bad, exs, "")
}

func (r *run) judgeFilters(tr, bad []string, exs []Exchange, partial string) {
	switch {
	case len(bad) > 0:
		r.failMsg(ReqListFilters, tr, "ListTasks filters deviate: "+strings.Join(bad, "; "), exs...)
	case partial != "":
		r.pass(ReqListFilters, tr, partial)
	default:
		r.pass(ReqListFilters, tr, "contextId, status, statusTimestampAfter and historyLength filter as asked; artifacts left out")
	}
}

func containsID(p listPage, id string) bool {
	for _, t := range p.tasks {
		if t.obj.ID == id {
			return true
		}
	}
	return false
}

func allMatch(p listPage, ok func(listedTask) bool) bool {
	for _, t := range p.tasks {
		if !ok(t) {
			return false
		}
	}
	return true
}

// stateEnumName is a normalized state's 1.0 name: TASK_STATE_COMPLETED.
func stateEnumName(s string) string {
	return "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
}

// checkListInvalidParams sends the official A2A TCK's invalid ListTasks
// requests (test_tasks_list_method.py, TestEdgeCasesAndErrors); each must
// be InvalidParamsError.
func (r *run) checkListInvalidParams(ctx context.Context, c caller, in Interface) {
	tr := []string{in.Name}
	want := errInvalidParams()
	probes := []struct {
		what string
		q    listQuery
	}{
		{"pageToken proctor-invalid-token", listQuery{pageToken: "proctor-invalid-token"}},
		{"status INVALID_STATUS", listQuery{status: "INVALID_STATUS"}},
		{"pageSize 0", listQuery{pageSize: intPtr(0)}},
		{"pageSize -1", listQuery{pageSize: intPtr(-1)}},
		{"pageSize 101", listQuery{pageSize: intPtr(101)}},
		{"historyLength -1", listQuery{historyLength: intPtr(-1)}},
		{"statusTimestampAfter -1", listQuery{after: "-1"}}, // gRPC's timestamp is typed: not sent there
	}
	var bad []string
	var exs []Exchange
	for _, p := range probes {
		if in.ProtocolBinding == bindingGRPC && p.q.after != "" {
			continue
		}
		rep := c.list(ctx, p.q)
		if !want.matches(rep, in.ProtocolBinding) {
			got := rep.describe()
			if !rep.isError() && rep.result != nil {
				got = "a page"
			}
			bad = append(bad, p.what+": "+got)
			exs = append(exs, rep.ex)
		}
	}
	if len(bad) > 0 {
		r.fail(ReqListInvalidParams, tr, want.describe(in.ProtocolBinding)+" for each invalid parameter", strings.Join(bad, "; "), exs[:min(len(exs), 3)]...)
		return
	}
	r.pass(ReqListInvalidParams, tr, "every invalid parameter is answered with "+want.describe(in.ProtocolBinding))
}
