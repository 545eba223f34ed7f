package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/server"
)

// tokenSource names where a token came from in errors, never the token.
type tokenSource struct {
	where string // "--auth-token" or PROCTOR_AUTH_TOKENS
	index int    // 1-based entry
}

func (s tokenSource) String() string { return fmt.Sprintf("%s entry %d", s.where, s.index) }

// parseTenants reads the tenants of --auth-token entries (flags) and of
// PROCTOR_AUTH_TOKENS (env, comma-separated), each NAME=TOKEN or a bare
// TOKEN; bare tokens belong to tenant server.DefaultTenant. admins names
// the admin tenants (--admin-tenant); DefaultTenant is one as well when
// no tenant is named, so that bare tokens see everything, as before
// tenants. Empty names or tokens, a name or a token given twice, and an
// admin that names no tenant are errors: a typo must not start a server
// that guards less than meant.
func parseTenants(flags []string, env string, admins []string) ([]server.Tenant, error) {
	entries := map[tokenSource]string{}
	var order []tokenSource
	for i, e := range flags {
		src := tokenSource{"--auth-token", i + 1}
		entries[src], order = e, append(order, src)
	}
	if env != "" {
		for i, e := range strings.Split(env, ",") {
			src := tokenSource{envAuthTokens, i + 1}
			entries[src], order = e, append(order, src)
		}
	}
	var tenants []server.Tenant
	var bare []string
	for _, src := range order {
		if strings.TrimSpace(entries[src]) == "" {
			return nil, emptyEntry(src)
		}
		name, token, err := splitTokenEntry(entries[src])
		if err != nil {
			return nil, usageErr("%s: %v", src, err)
		}
		if name == "" {
			bare = append(bare, token)
			continue
		}
		tenants = append(tenants, server.Tenant{Name: name, Tokens: []string{token}})
	}
	if len(bare) > 0 {
		tenants = append([]server.Tenant{{Name: server.DefaultTenant, Tokens: bare, Admin: len(tenants) == 0}}, tenants...)
	}
	if err := checkTenants(tenants); err != nil {
		return nil, err
	}
	return markAdmins(tenants, admins)
}

// emptyEntry refuses an empty token entry: a variable such as "," or " "
// would otherwise start the server with no authentication at all, the
// opposite of what whoever set it wanted.
func emptyEntry(src tokenSource) error {
	const refusal = "refusing to serve without the authentication it was meant to require"
	if src.where == envAuthTokens {
		return usageErr("%s: entry %d is empty (the value is a comma-separated list of NAME=TOKEN or TOKEN); %s", envAuthTokens, src.index, refusal)
	}
	return usageErr("--auth-token: a token is empty; %s", refusal)
}

// splitTokenEntry reads NAME=TOKEN, or a bare TOKEN (name ""). Neither
// may be empty or spaces.
func splitTokenEntry(entry string) (name, token string, err error) {
	entry = strings.TrimSpace(entry)
	name, token, named := strings.Cut(entry, "=")
	if !named {
		return "", entry, nil
	}
	name, token = strings.TrimSpace(name), strings.TrimSpace(token)
	switch {
	case name == "":
		return "", "", errors.New("the tenant name before '=' is empty; give NAME=TOKEN")
	case strings.Trim(token, "=") == "":
		return "", "", fmt.Errorf("tenant %q has an empty token (a bare token containing '=' must be written NAME=TOKEN)", name)
	}
	return name, token, nil
}

// checkTenants refuses a tenant named twice, a name the server would
// refuse, and a token given twice (with which tenant they were given,
// never the token).
func checkTenants(tenants []server.Tenant) error {
	names := map[string]bool{}
	tokens := map[string]string{}
	for _, t := range tenants {
		if err := server.CheckTenantName(t.Name); err != nil {
			return usageErr("--auth-token: %v", err)
		}
		if names[t.Name] {
			return usageErr("tenant %q is given twice: each tenant has one NAME=TOKEN (bare tokens are tenant %q's)", t.Name, server.DefaultTenant)
		}
		names[t.Name] = true
		for _, tok := range t.Tokens {
			if other, dup := tokens[tok]; dup {
				return usageErr("tenants %q and %q have the same token: give every tenant its own", other, t.Name)
			}
			tokens[tok] = t.Name
		}
	}
	return nil
}

// markAdmins makes the tenants admins names admins, each of which must
// be one of them.
func markAdmins(tenants []server.Tenant, admins []string) ([]server.Tenant, error) {
	for _, a := range admins {
		i := slices.IndexFunc(tenants, func(t server.Tenant) bool { return t.Name == a })
		if i < 0 {
			var names []string
			for _, t := range tenants {
				names = append(names, t.Name)
			}
			if len(names) == 0 {
				return nil, usageErr("--admin-tenant %q: no tenant is configured (give --auth-token NAME=TOKEN or %s)", a, envAuthTokens)
			}
			return nil, usageErr("--admin-tenant %q: not a tenant; the tenants are %s", a, strings.Join(names, ", "))
		}
		tenants[i].Admin = true
	}
	return tenants, nil
}

// countTokens counts the tenants' tokens.
func countTokens(tenants []server.Tenant) int {
	n := 0
	for _, t := range tenants {
		n += len(t.Tokens)
	}
	return n
}

// tenantFlags are proctor serve's admin tenants and per-tenant limits.
type tenantFlags struct {
	admins                        []string
	maxRunning, maxQueued, maxSim int
	rate                          float64
	burst                         int
}

func (f *tenantFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.admins, "admin-tenant", nil, "tenant (a NAME of --auth-token NAME=TOKEN) that sees every tenant's evaluations, runs and tasks (repeatable)")
	fl.IntVar(&f.maxRunning, strings.TrimPrefix(server.FlagTenantMaxRunning, "--"), 0, "long tasks (evaluations, eval-set runs, conformance checks) one tenant runs at once; more wait (0: no limit)")
	fl.IntVar(&f.maxQueued, strings.TrimPrefix(server.FlagTenantMaxQueued, "--"), 0, "long tasks of one tenant that may wait for a slot; one more is rejected (0: no limit)")
	fl.IntVar(&f.maxSim, strings.TrimPrefix(server.FlagTenantMaxSimulations, "--"), 0, "simulations (tasks x trials) one run_evaluation request may ask for (0: no limit)")
	fl.Float64Var(&f.rate, strings.TrimPrefix(server.FlagTenantRate, "--"), 0, "A2A requests per second one tenant may send, on average (0: no limit); more get 429 / RESOURCE_EXHAUSTED")
	fl.IntVar(&f.burst, strings.TrimPrefix(server.FlagTenantBurst, "--"), 0, "requests one tenant may send at once above --tenant-rate (default: the rate, at least 1)")
}

// limits checks the flags and returns the server's TenantLimits.
func (f *tenantFlags) limits() (server.TenantLimits, error) {
	for _, v := range []struct {
		flag string
		n    int
	}{{server.FlagTenantMaxRunning, f.maxRunning}, {server.FlagTenantMaxQueued, f.maxQueued},
		{server.FlagTenantMaxSimulations, f.maxSim}, {server.FlagTenantBurst, f.burst}} {
		if v.n < 0 {
			return server.TenantLimits{}, usageErr("%s %d: want 0 (no limit) or more", v.flag, v.n)
		}
	}
	if f.rate < 0 || math.IsNaN(f.rate) || math.IsInf(f.rate, 0) {
		return server.TenantLimits{}, usageErr("%s %v: want 0 (no limit) or a positive number of requests per second", server.FlagTenantRate, f.rate)
	}
	if f.burst > 0 && f.rate == 0 {
		return server.TenantLimits{}, usageErr("%s %d: it bounds bursts above %s, which is not set", server.FlagTenantBurst, f.burst, server.FlagTenantRate)
	}
	burst := f.burst
	if burst == 0 && f.rate > 0 {
		burst = max(1, int(math.Ceil(f.rate)))
	}
	return server.TenantLimits{MaxRunning: f.maxRunning, MaxQueued: f.maxQueued, MaxSimulations: f.maxSim,
		RequestsPerSecond: f.rate, Burst: burst}, nil
}
