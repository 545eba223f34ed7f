package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// guardedAgent is a real agent behind a bearer token; its card stays public.
func guardedAgent(t *testing.T, token string) *httptest.Server {
	t.Helper()
	rpc := agenttest.Handler(agenttest.Sorry)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(agenttest.Card(srv.URL)))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token || r.Header.Get("X-Team") != "blue" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		rpc.ServeHTTP(w, r)
	}))
	return srv
}

// TestCredentialsReachTheAgentAndNothingElse sends a token from the
// environment and a header from a flag, and checks that neither value is in
// the output or the database, while the header name is recorded.
func TestCredentialsReachTheAgentAndNothingElse(t *testing.T) {
	const secret = "s3cret-token-value"
	srv := guardedAgent(t, secret)
	db := tempDB(t)
	t.Setenv(envBearerToken, secret)
	res := mustCLI(t, exitOK, "run", "--agent", srv.URL, "--db", db, "--task-ids", "mock-01,mock-02",
		"--header", "X-Team=blue", "--format", "json")
	eval := decodeObject(t, res.stdout)
	if n := num(t, eval, "metrics.errors"); n != 0 {
		t.Fatalf("the agent refused proctor's credentials: %v errors, status %v", n, field(t, eval, "metrics.status_codes"))
	}
	names := arr(t, eval, "config.header_names")
	if len(names) != 2 || names[0] != "Authorization" || names[1] != "X-Team" {
		t.Errorf("header names = %v", names)
	}
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range map[string]string{"stdout": res.stdout, "stderr": res.stderr, "database": string(raw)} {
		if strings.Contains(text, secret) || strings.Contains(text, "blue") {
			t.Errorf("a credential leaked into %s", where)
		}
	}

	// Without the token the agent says 401, recorded per request: every
	// simulation failed, and so did the evaluation.
	t.Setenv(envBearerToken, "")
	res = mustCLI(t, exitNoOutcome, "run", "--agent", srv.URL, "--db", db, "--task-ids", "mock-01", "--header", "X-Team=blue", "--format", "json")
	eval = decodeObject(t, res.stdout)
	if codes := obj(t, eval, "metrics.status_codes"); codes["401"] == nil {
		t.Errorf("status codes without the token: %v", codes)
	}
}

// TestServeRefusesEmptyTokens: a PROCTOR_AUTH_TOKENS of only commas or
// spaces (or an empty --auth-token) once started the server with no
// authentication at all. It must fail closed, saying why, before it
// listens.
func TestServeRefusesEmptyTokens(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		args      []string
		want      string
	}{
		{"a comma", ",", nil, envAuthTokens + ": entry 1 is empty"},
		{"spaces", "   ", nil, envAuthTokens + ": entry 1 is empty"},
		{"a token and an empty entry", "s3cret,, ", nil, envAuthTokens + ": entry 2 is empty"},
		{"an empty flag", "", []string{"--auth-token", " "}, "--auth-token: a token is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envAuthTokens, tc.env)
			// Port 0 on loopback: were the check missing, the server would
			// start, and the test's deadline would say so.
			args := append([]string{"serve", "--host", "127.0.0.1", "--port", "0", "--grpc-port", "-1", "--db", tempDB(t)}, tc.args...)
			r := mustCLI(t, exitUsage, args...)
			if !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "refusing to serve") {
				t.Errorf("stderr %q: want %q and a refusal", r.stderr, tc.want)
			}
			if strings.Contains(r.stderr, "serving at") {
				t.Errorf("the server started: %s", r.stderr)
			}
		})
	}
}

// TestRunKeepsItsReplyCap: the ceiling on a reply binds callers of proctor
// serve; the user of proctor run is the operator, whose flag may go above
// the default.
func TestRunKeepsItsReplyCap(t *testing.T) {
	res := mustCLI(t, exitOK, "run", "--agent", "builtin", "--db", tempDB(t), "--task-ids", "mock-01",
		"--max-response-bytes", "33554432", "--format", "json")
	if n := num(t, decodeObject(t, res.stdout), "config.max_response_bytes"); n != 33554432 {
		t.Errorf("max_response_bytes = %v, want 33554432", n)
	}
	r := mustCLI(t, exitUsage, "serve", "--port", "0", "--grpc-port", "-1", "--db", tempDB(t), "--max-response-bytes", "10")
	if !strings.Contains(r.stderr, "--max-response-bytes 10: want at least 1024") {
		t.Errorf("serve --max-response-bytes 10: %s", r.stderr)
	}
}
