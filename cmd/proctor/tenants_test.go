package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/store"
)

// TestParseTenants: NAME=TOKEN names a tenant, a bare token is tenant
// default's (an admin only when no tenant is named), --admin-tenant marks
// admins; every mistake is refused saying which entry, never the token.
func TestParseTenants(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flags   []string
		env     string
		admins  []string
		want    []server.Tenant
		wantErr string
	}{
		{name: "none"},
		{name: "bare tokens: one admin tenant, as before tenants", flags: []string{"t1"}, env: "t2",
			want: []server.Tenant{{Name: server.DefaultTenant, Tokens: []string{"t1", "t2"}, Admin: true}}},
		{name: "named", flags: []string{"alice=ta", "bob=tb=="}, env: " carol = tc ", admins: []string{"carol"},
			want: []server.Tenant{{Name: "alice", Tokens: []string{"ta"}}, {Name: "bob", Tokens: []string{"tb=="}},
				{Name: "carol", Tokens: []string{"tc"}, Admin: true}}},
		{name: "bare and named: default is no admin unless named", flags: []string{"t0", "alice=ta"},
			want: []server.Tenant{{Name: server.DefaultTenant, Tokens: []string{"t0"}}, {Name: "alice", Tokens: []string{"ta"}}}},
		{name: "bare and named, default admin", flags: []string{"t0", "alice=ta"}, admins: []string{"default"},
			want: []server.Tenant{{Name: server.DefaultTenant, Tokens: []string{"t0"}, Admin: true}, {Name: "alice", Tokens: []string{"ta"}}}},
		{name: "empty name", flags: []string{"=S3CR"}, wantErr: "--auth-token entry 1: the tenant name before '=' is empty"},
		{name: "empty token", env: "a=S3CR,bob=", wantErr: envAuthTokens + ` entry 2: tenant "bob" has an empty token`},
		{name: "empty entry", env: "a=x, ,", wantErr: envAuthTokens + ": entry 2 is empty"},
		{name: "name twice", flags: []string{"alice=S3CR1"}, env: "alice=S3CR2", wantErr: `tenant "alice" is given twice`},
		{name: "token twice", flags: []string{"alice=S3CR", "bob=S3CR"}, wantErr: `tenants "alice" and "bob" have the same token`},
		{name: "bad name", flags: []string{"al ice=S3CR"}, wantErr: `tenant name "al ice"`},
		{name: "unknown admin", flags: []string{"alice=S3CR"}, admins: []string{"bob"}, wantErr: `--admin-tenant "bob": not a tenant; the tenants are alice`},
		{name: "admin without tenants", admins: []string{"bob"}, wantErr: "no tenant is configured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseTenants(tc.flags, tc.env, tc.admins)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "S3CR") {
					t.Errorf("the error shows a token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tenants (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTenantLimitFlags: negative limits, a burst without a rate, are
// refused naming the flag; a rate alone gets a burst of its size.
func TestTenantLimitFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       tenantFlags
		want    server.TenantLimits
		wantErr string
	}{
		{name: "none"},
		{name: "all", f: tenantFlags{maxRunning: 2, maxQueued: 3, maxSim: 100, rate: 2.5, burst: 10},
			want: server.TenantLimits{MaxRunning: 2, MaxQueued: 3, MaxSimulations: 100, RequestsPerSecond: 2.5, Burst: 10}},
		{name: "rate alone", f: tenantFlags{rate: 2.5}, want: server.TenantLimits{RequestsPerSecond: 2.5, Burst: 3}},
		{name: "negative", f: tenantFlags{maxQueued: -1}, wantErr: "--tenant-max-queued -1"},
		{name: "negative rate", f: tenantFlags{rate: -1}, wantErr: "--tenant-rate -1"},
		{name: "burst alone", f: tenantFlags{burst: 4}, wantErr: "--tenant-burst 4: it bounds bursts above --tenant-rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.f.limits()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("limits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAuditCommand lists a database's audit log by tenant and time, as a
// table and as JSON.
func TestAuditCommand(t *testing.T) {
	path := tempDB(t)
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Round(time.Second)
	for _, e := range []store.AuditEntry{
		{Time: now.Add(-48 * time.Hour), Tenant: "alice", Action: "SendMessage/run_evaluation", Objects: []string{"t1"}, Outcome: store.AuditAccepted},
		{Time: now.Add(-time.Hour), Tenant: "bob", Action: "GetTask", Objects: []string{"t1"}, Outcome: store.AuditRefused, Reason: "task not found"},
		{Time: now.Add(-time.Minute), Tenant: "alice", Action: "GetTask", Objects: []string{"t1"}, Outcome: store.AuditAccepted},
	} {
		if err := db.AppendAudit(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()

	r := mustCLI(t, exitOK, "audit", "--db", path, "--tenant", "alice", "--since", "24h", "--format", "json")
	var got []store.AuditEntry
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if len(got) != 1 || got[0].Action != "GetTask" || got[0].Tenant != "alice" {
		t.Errorf("alice's last 24h: %+v", got)
	}
	r = mustCLI(t, exitOK, "audit", "--db", path)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "TIME") || !strings.Contains(lines[2], "refused") || !strings.Contains(lines[2], "task not found") {
		t.Errorf("table:\n%s", r.stdout)
	}
	for _, bad := range []string{"--since=yesterday", "--format=xml", "--since=-1h"} {
		if r := mustCLI(t, exitUsage, "audit", "--db", path, bad); !strings.Contains(r.stderr, strings.Split(strings.TrimPrefix(bad, "--"), "=")[0]) {
			t.Errorf("%s: %s", bad, r.stderr)
		}
	}
}

// TestServeWithTenants: proctor serve with tenants from the environment,
// an admin from a flag and a limit: each tenant's requests act for it, the
// limit names its flag, and proctor audit lists what happened.
func TestServeWithTenants(t *testing.T) {
	db := tempDB(t)
	t.Setenv(envAuthTokens, "alice=alice-S3CRET,bob=bob-S3CRET")
	url := startCLI(t, `http://127\.0\.0\.1:\d+`, "serve", "--host", "127.0.0.1", "--port", "0", "--grpc-port", "-1", "--db", db,
		"--admin-tenant", "bob", "--tenant-max-simulations", "1")
	send := func(token, skill string, params map[string]any) string {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": map[string]any{
			"message": map[string]any{"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
				"parts": []any{map[string]any{"data": map[string]any{"skill": skill, "params": params}}}}}})
		req, err := http.NewRequest("POST", url+server.PathJSONRPC, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if a := send("alice-S3CRET", "run_evaluation", map[string]any{"agent_url": "builtin", "task_ids": []string{"mock-01", "mock-02"}}); !strings.Contains(a, "per request (--tenant-max-simulations)") {
		t.Errorf("2 simulations over a limit of 1: %s", a)
	}
	a := send("alice-S3CRET", "run_evaluation", map[string]any{"agent_url": "builtin", "task_ids": []string{"mock-01"}})
	m := regexp.MustCompile(`"evaluation_id":"([0-9a-f-]{36})"`).FindStringSubmatch(a)
	if m == nil {
		t.Fatalf("alice's evaluation: %.400s", a)
	}
	if a := send("bob-S3CRET", "get_results", map[string]any{"id": m[1]}); !strings.Contains(a, "status **completed**") {
		t.Errorf("bob, an admin, does not see alice's evaluation: %.400s", a)
	}
	r := mustCLI(t, exitOK, "audit", "--db", db, "--tenant", "alice", "--format", "json")
	var entries []store.AuditEntry
	if err := json.Unmarshal([]byte(r.stdout), &entries); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	var outcomes []string
	for _, e := range entries {
		outcomes = append(outcomes, e.Action+" "+string(e.Outcome))
	}
	want := []string{"SendMessage/run_evaluation refused", "run_evaluation ended accepted", "SendMessage/run_evaluation accepted"}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Errorf("alice's audit entries (-want +got):\n%s", diff)
	}
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("S3CRET")) {
		t.Error("a token is in the database file")
	}
}
