package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/store"
)

// DefaultTenant names the tenant of Config.AuthTokens (bare tokens,
// `--auth-token TOKEN`). It is an admin when no Config.Tenants are named,
// so a server with bare tokens only behaves as before tenants: every token
// sees everything.
const DefaultTenant = "default"

// Tenant is a named caller of a shared server: the tokens that act for
// it, and whether it is an admin. Each tenant sees only the evaluations,
// conformance runs, eval-set runs and A2A tasks it created; an admin sees
// every tenant's, and those without an owner (made before tenants, or by
// the CLI).
type Tenant struct {
	Name   string
	Tokens []string
	Admin  bool
}

// tokenEntry is a configured token as the server keeps it: its SHA-256
// (the token itself is not kept) and its tenant.
type tokenEntry struct {
	sum    [sha256.Size]byte
	tenant store.Tenant
}

// tokenTable is every configured token, looked up in constant time.
type tokenTable []tokenEntry

// newTokenTable checks cfg's tenants and tokens: names and tokens must be
// non-empty and unique (a bare token's tenant is DefaultTenant).
func newTokenTable(cfg Config) (tokenTable, error) {
	tenants := cfg.Tenants
	if len(cfg.AuthTokens) > 0 {
		tenants = append([]Tenant{{Name: DefaultTenant, Tokens: cfg.AuthTokens, Admin: len(cfg.Tenants) == 0}}, tenants...)
	}
	var table tokenTable
	names := map[string]bool{}
	tokens := map[[sha256.Size]byte]string{}
	for _, t := range tenants {
		if err := CheckTenantName(t.Name); err != nil {
			return nil, err
		}
		if names[t.Name] {
			return nil, fmt.Errorf("server: tenant %q is named twice; give each tenant one name (several tokens may share it)", t.Name)
		}
		names[t.Name] = true
		if len(t.Tokens) == 0 {
			return nil, fmt.Errorf("server: tenant %q has no token", t.Name)
		}
		for _, tok := range t.Tokens {
			if strings.TrimSpace(tok) == "" {
				return nil, fmt.Errorf("server: tenant %q has an empty token", t.Name)
			}
			sum := sha256.Sum256([]byte(tok))
			if other, dup := tokens[sum]; dup {
				return nil, fmt.Errorf("server: tenants %q and %q share a token; every token must name one tenant", other, t.Name)
			}
			tokens[sum] = t.Name
			table = append(table, tokenEntry{sum: sum, tenant: store.Tenant{Name: t.Name, Admin: t.Admin}})
		}
	}
	return table, nil
}

// CheckTenantName refuses a tenant name that is empty, long, or holds
// characters that would be unclear in logs and the audit log.
func CheckTenantName(name string) error {
	if name == "" {
		return errors.New("server: a tenant name is empty")
	}
	if len(name) > 64 {
		return fmt.Errorf("server: tenant name %.20q...: at most 64 characters", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("server: tenant name %q: use letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

// lookup returns the tenant of token. Every configured token is compared,
// in constant time, whichever matches: neither the time taken nor its
// length says which token (or whether any) matched.
func (tt tokenTable) lookup(token string) (store.Tenant, bool) {
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range tt {
		eq := subtle.ConstantTimeCompare(tt[i].sum[:], sum[:])
		found = subtle.ConstantTimeSelect(eq, i, found)
	}
	if found < 0 || token == "" {
		return store.Tenant{}, false
	}
	return tt[found].tenant, true
}

// tenantOf returns the name of the tenant a request acts for, "" on a
// server without tokens (for request logs and metrics).
func tenantOf(ctx context.Context) string {
	t, _ := store.TenantFrom(ctx)
	return t.Name
}

// TenantOf is tenantOf for other packages: the tenant a request's context
// acts for, "" without one.
func TenantOf(ctx context.Context) string { return tenantOf(ctx) }

// tenantUser is an a2asrv.CallInterceptor that names a tenant's call's
// user after the tenant. State that a2a-go or ADK keys by the user as
// well as the context id is then the tenant's own: above all the chat's
// sessions (ADK's A2A executor keys a session by user and context id), so
// that a caller who sends another tenant's contextId starts a session of
// its own rather than joining, and reading, the other's.
type tenantUser struct {
	a2asrv.PassthroughCallInterceptor
}

// Before implements a2asrv.CallInterceptor.
func (tenantUser) Before(ctx context.Context, callCtx *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if t, ok := store.TenantFrom(ctx); ok {
		callCtx.User = a2asrv.NewAuthenticatedUser("tenant:"+t.Name, nil)
	}
	return ctx, nil, nil
}
