package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

type fixture struct {
	srv *server.Server
	db  *store.DB
}

// start serves cfg over the built-in domains and a fresh store; each
// with changes the skills service first.
func start(t *testing.T, cfg server.Config, with ...func(*skills.Service)) fixture {
	t.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Port == 0 {
		cfg.GRPCPort = max(cfg.GRPCPort, 0)
	}
	svc := &skills.Service{Domains: reg, Store: db}
	for _, w := range with {
		w(svc)
	}
	srv, err := server.New(cfg, svc)
	if err != nil {
		t.Fatal(err)
	}
	server.ServeInBackground(t, srv, db)
	return fixture{srv: srv, db: db}
}

func client(t *testing.T, base string, opts ...sdkclient.FactoryOption) *sdkclient.Client {
	t.Helper()
	// A 1.0 client says so, and gets the 1.0 card.
	card, err := agentcard.DefaultResolver.Resolve(context.Background(), base, agentcard.WithRequestHeader(a2a.SvcParamVersion, "1.0"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sdkclient.NewFromCard(context.Background(), card, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

func skill(name server.Skill, params any) *a2a.SendMessageRequest {
	body := map[string]any{"skill": string(name)}
	if params != nil {
		body["params"] = params
	}
	// Like every client that polls, ask for the task at once: a blocking
	// send waits for the evaluation to end.
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(body)),
		Config: &a2a.SendMessageConfig{ReturnImmediately: true}}
}

func text(parts []*a2a.Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

// answerOf is what proctor said in reply to a request answered on the
// spot: the status message of the completed task it answers with (a bare
// Message, as other agents answer, is taken as it is).
func answerOf(tb testing.TB, res a2a.SendMessageResult) *a2a.Message {
	tb.Helper()
	switch r := res.(type) {
	case *a2a.Message:
		return r
	case *a2a.Task:
		if r.Status.State != a2a.TaskStateCompleted || r.Status.Message == nil {
			tb.Fatalf("answered a task %s with status %+v, want completed with a message", r.ID, r.Status)
		}
		return r.Status.Message
	}
	tb.Fatalf("answered %T %+v", res, res)
	return nil
}

func data(t *testing.T, parts []*a2a.Part) map[string]any {
	t.Helper()
	for _, p := range parts {
		if d, ok := p.Data().(map[string]any); ok {
			return d
		}
	}
	t.Fatalf("no data part in %v", parts)
	return nil
}

// awaitEnd waits, up to limit, for task to end, following its events
// instead of polling, and returns it as GetTask then shows it.
func awaitEnd(t *testing.T, c *sdkclient.Client, task *a2a.Task, limit time.Duration) *a2a.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for !task.Status.State.Terminal() {
		for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
			// An error: the task ended before the subscription (which is
			// then refused), or the time is up. GetTask tells which.
			if err != nil || statusOf(ev).State.Terminal() {
				break
			}
		}
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		if err != nil {
			t.Fatalf("task %s, last %s: %v", task.ID, task.Status.State, err)
		}
		task = got
	}
	return task
}

// awaitStatus follows a running task's events until one's status data
// satisfies cond; it fails the test if the task ends first or a minute
// passes.
func awaitStatus(t *testing.T, c *sdkclient.Client, id a2a.TaskID, what string, cond func(map[string]any) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		st := statusOf(ev)
		if st.Message != nil {
			for _, p := range st.Message.Parts {
				if d, ok := p.Data().(map[string]any); ok && cond(d) {
					return
				}
			}
		}
		if st.State.Terminal() {
			t.Fatalf("the task ended %s before %s", st.State, what)
		}
	}
	t.Fatalf("the task's events ended before %s", what)
}

// statusOf is the task status an event carries (zero for an artifact).
func statusOf(ev a2a.Event) a2a.TaskStatus {
	switch e := ev.(type) {
	case *a2a.Task:
		return e.Status
	case *a2a.TaskStatusUpdateEvent:
		return e.Status
	}
	return a2a.TaskStatus{}
}

func TestListDomainsAndHelp(t *testing.T) {
	f := start(t, server.Config{})
	c := client(t, f.srv.URL())
	res, err := c.SendMessage(context.Background(), skill(server.SkillListDomains, nil))
	if err != nil {
		t.Fatal(err)
	}
	doms := data(t, answerOf(t, res).Parts)["domains"].([]any)
	if len(doms) != 1 || doms[0].(map[string]any)["num_tasks"].(float64) != 17 {
		t.Errorf("domains = %v", doms)
	}
	res, err = c.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello, can you test my agent?"))})
	if err != nil {
		t.Fatal(err)
	}
	if help := text(answerOf(t, res).Parts); !strings.Contains(help, `"skill": "run_evaluation"`) || !strings.Contains(help, "participants") {
		t.Errorf("free text reply does not show the structured forms: %s", help)
	}
}

func TestRejectedRequestsListEveryViolation(t *testing.T) {
	f := start(t, server.Config{})
	c := client(t, f.srv.URL())
	cases := []struct {
		name string
		req  *a2a.SendMessageRequest
		want []string
	}{
		{"violations", skill(server.SkillRunEvaluation, map[string]any{"agent_url": "ftp://x", "num_trials": 5000, "transport": "smoke"}),
			[]string{"agent_url", "num_trials 5000", "transport \"smoke\""}},
		{"wrong type", skill(server.SkillRunEvaluation, map[string]any{"agent_url": "builtin", "num_trials": "three"}), []string{"num_trials: want a int"}},
		{"unknown param", skill(server.SkillRunEvaluation, map[string]any{"agent_url": "builtin", "colour": "red"}), []string{`unknown field "colour"`}},
		{"unknown skill", skill("dance", nil), []string{`unknown skill "dance"`}},
		{"unknown task", skill(server.SkillRunEvaluation, map[string]any{"agent_url": "builtin", "task_ids": []string{"mock-99"}}), []string{"has no task mock-99"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.SendMessage(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			task, ok := res.(*a2a.Task)
			if !ok || task.Status.State != a2a.TaskStateRejected {
				t.Fatalf("got %T %+v, want a rejected task", res, res)
			}
			msg := text(task.Status.Message.Parts)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("rejection %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestRunEvaluationStreamed follows an evaluation live: a working task,
// progress updates, the Result artifact, then completed.
func TestRunEvaluationStreamed(t *testing.T) {
	f := start(t, server.Config{})
	c := client(t, f.srv.URL())
	var states []a2a.TaskState
	var progress int
	var result *a2a.Artifact
	req := skill(server.SkillRunEvaluation, map[string]any{"agent_url": "builtin", "task_ids": []string{"mock-01", "mock-02", "mock-03"}})
	for ev, err := range c.SendStreamingMessage(context.Background(), req) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case *a2a.Task:
			states = append(states, e.Status.State)
		case *a2a.TaskStatusUpdateEvent:
			states = append(states, e.Status.State)
			if e.Status.Message != nil && strings.Contains(text(e.Status.Message.Parts), "simulations done") {
				progress++
			}
		case *a2a.TaskArtifactUpdateEvent:
			result = e.Artifact
		}
	}
	if states[0] != a2a.TaskStateWorking || states[len(states)-1] != a2a.TaskStateCompleted {
		t.Errorf("states %v: want working first, completed last", states)
	}
	if progress == 0 {
		t.Error("no progress updates")
	}
	if result == nil || result.Name != server.ResultArtifact {
		t.Fatalf("result artifact = %+v", result)
	}
	eval := data(t, result.Parts)
	summary := eval["summary"].(map[string]any)
	if summary["avg_reward"].(float64) != 1 || summary["num_simulations"].(float64) != 3 {
		t.Errorf("summary = %v", summary)
	}
	if md := text(result.Parts); !strings.Contains(md, "## proctor evaluation") {
		t.Errorf("no Markdown summary: %q", md)
	}
	if sims := eval["simulations"].([]any); len(sims[0].(map[string]any)["messages"].([]any)) == 0 {
		t.Error("transcripts missing by default")
	}
}

// TestRunEvaluationPolled: a client that does not stream gets a working
// task at once, and GetTask shows it completed with its artifact.
func TestRunEvaluationPolled(t *testing.T) {
	f := start(t, server.Config{})
	c := client(t, f.srv.URL())
	slow := agenttest.Start(t, agenttest.Delayed(50*time.Millisecond, agenttest.Sorry))
	res, err := c.SendMessage(context.Background(), skill(server.SkillRunEvaluation, map[string]any{
		"agent_url": slow.URL, "task_ids": []string{"mock-01", "mock-02"}, "include_transcripts": false}))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	if task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("first answer %s, want working at once", task.Status.State)
	}
	task = awaitEnd(t, c, task, 30*time.Second)
	if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 {
		t.Fatalf("final %s with %d artifacts", task.Status.State, len(task.Artifacts))
	}
	eval := data(t, task.Artifacts[0].Parts)
	if eval["summary"].(map[string]any)["avg_reward"].(float64) != 0 {
		t.Errorf("a refusing agent scored %v", eval["summary"])
	}
	if msgs := eval["simulations"].([]any)[0].(map[string]any)["messages"]; msgs != nil {
		t.Errorf("include_transcripts false still sent messages")
	}
	res, err = c.SendMessage(context.Background(), skill(server.SkillGetResults, map[string]any{"id": eval["id"]}))
	if err != nil {
		t.Fatal(err)
	}
	if got := data(t, answerOf(t, res).Parts); got["id"] != eval["id"] {
		t.Errorf("get_results returned %v", got["id"])
	}
}

func TestCancelKeepsFinishedSimulations(t *testing.T) {
	f := start(t, server.Config{})
	c := client(t, f.srv.URL())
	slow := agenttest.Start(t, agenttest.Delayed(100*time.Millisecond, agenttest.Sorry))
	res, err := c.SendMessage(context.Background(), skill(server.SkillRunEvaluation, map[string]any{"agent_url": slow.URL, "concurrency": 1}))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	awaitStatus(t, c, task.ID, "a finished simulation", func(d map[string]any) bool {
		done, _ := d["done"].(float64)
		return done >= 1
	})
	start := time.Now()
	canceled, err := c.CancelTask(context.Background(), &a2a.CancelTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("cancel took %v", took)
	}
	if canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("state after cancel: %s", canceled.Status.State)
	}
	id, _ := data(t, canceled.Status.Message.Parts)["evaluation_id"].(string)
	recs, err := f.db.Simulations(context.Background(), id)
	if err != nil || len(recs) == 0 || len(recs) >= 17 {
		t.Fatalf("evaluation %s kept %d simulations (%v)", id, len(recs), err)
	}
}

func TestAuth(t *testing.T) {
	f := start(t, server.Config{AuthTokens: []string{"s3cret"}})
	base := f.srv.URL()
	// The card and health stay public.
	for _, p := range []string{"/.well-known/agent-card.json", server.PathHealth} {
		resp, err := http.Get(base + p)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", p, resp, err)
		}
		resp.Body.Close()
	}
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{}}`)
	for _, token := range []string{"", "wrong"} {
		req, _ := http.NewRequest(http.MethodPost, base+server.PathJSONRPC, bytes.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			ID    int `json:"id"`
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != 401 || out.Error.Code != -31401 || out.ID != 7 || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("token %q: status %d, body %+v", token, resp.StatusCode, out)
		}
	}
	c := client(t, base, sdkclient.WithCallInterceptors(bearer("s3cret")))
	if _, err := c.SendMessage(context.Background(), skill(server.SkillListDomains, nil)); err != nil {
		t.Errorf("with the token: %v", err)
	}
	// The card declares the scheme, so a2a-go's own AuthInterceptor sends
	// the token without being told where.
	creds := sdkclient.NewInMemoryCredentialsStore()
	creds.Set("session", server.BearerScheme, "s3cret")
	c = client(t, base, sdkclient.WithCallInterceptors(&sdkclient.AuthInterceptor{Service: creds}))
	// Clients that do not say their version get the card both versions read,
	// with the scheme in the 0.3 form.
	union, err := a2aclient.Dial(context.Background(), base, a2aclient.WithHeaders(http.Header{"Authorization": {"Bearer s3cret"}}))
	if err != nil {
		t.Fatalf("proctor's own client on the union card: %v", err)
	}
	_ = union.Close()
	if _, err := c.SendMessage(sdkclient.AttachSessionID(context.Background(), "session"), skill(server.SkillListDomains, nil)); err != nil {
		t.Errorf("with credentials found through the card: %v", err)
	}
}

type bearer string

func (b bearer) Before(ctx context.Context, req *sdkclient.Request) (context.Context, any, error) {
	req.ServiceParams.Append("Authorization", "Bearer "+string(b))
	return ctx, nil, nil
}

func (bearer) After(context.Context, *sdkclient.Response) error { return nil }
