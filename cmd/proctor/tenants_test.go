package main

import (
	"context"
	"encoding/json"
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
