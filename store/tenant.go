package store

import "context"

// Tenant is the caller a database handle acts for on a shared server
// (proctor serve with named tokens). Put one in a request's context with
// WithTenant: the records that request creates belong to Name, and what
// it reads is limited to them unless Admin. A context without a Tenant is
// unrestricted (the CLI, a server without tokens).
//
// Evaluations (and eval-set runs), conformance runs and A2A tasks carry
// their owner's name. Records written before tenants existed, or by a
// context without a Tenant, have no owner: only admins see them.
type Tenant struct {
	// Name is the tenant's name; never empty for a Tenant in a context.
	Name string
	// Admin sees and acts on every tenant's records.
	Admin bool
}

// tenantKey is the context key of a Tenant.
type tenantKey struct{}

// WithTenant returns ctx acting for t.
func WithTenant(ctx context.Context, t Tenant) context.Context {
	return context.WithValue(ctx, tenantKey{}, t)
}

// TenantFrom returns the tenant ctx acts for, and whether it has one.
func TenantFrom(ctx context.Context) (Tenant, bool) {
	t, ok := ctx.Value(tenantKey{}).(Tenant)
	return t, ok
}

// tenantName is the owner to record for what ctx creates: its tenant's
// name, or "" without one.
func tenantName(ctx context.Context) string {
	t, _ := TenantFrom(ctx)
	return t.Name
}

// sees reports whether ctx may see a record owned by owner: always
// without a tenant or as an admin, otherwise only its own tenant's.
func sees(ctx context.Context, owner string) bool {
	t, ok := TenantFrom(ctx)
	return !ok || t.Admin || (t.Name != "" && t.Name == owner)
}

// restricted reports whether ctx sees only some records.
func restricted(ctx context.Context) bool {
	t, ok := TenantFrom(ctx)
	return ok && !t.Admin
}
