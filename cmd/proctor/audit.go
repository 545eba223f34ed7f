package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/store"
)

func newAuditCmd() *cobra.Command {
	var dbPath, tenant, since, format string
	var limit int
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "List the audit log of proctor serve: who asked for what, when, with which outcome",
		Long: `List the audit log that proctor serve keeps in its database: an entry per A2A call
(method and skill, the ids it named or made, accepted, refused with the reason, or failed)
and per refused request (rate limits, UI sign-ins). Tenants are named, tokens never stored.
The database keeps the newest ` + fmt.Sprint(store.MaxAuditEntries) + ` entries of authenticated callers, and apart from them
the newest ` + fmt.Sprint(store.MaxUnauthenticatedAuditEntries) + ` of callers without a valid token (failed sign-ins, with their address);
older ones are dropped as new ones come.`,
		Example: `  proctor audit
  proctor audit --tenant alice --since 24h
  proctor audit --since 2026-11-01T00:00:00Z --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != "json" {
				return usageErr("--format %q: want table or json", format)
			}
			from, err := parseSince(since, time.Now())
			if err != nil {
				return err
			}
			if limit < 0 {
				return usageErr("--limit %d: want 0 (all) or more", limit)
			}
			db, path, err := openDBForReading(dbPath)
			if err != nil {
				return failErr(err)
			}
			entries := []store.AuditEntry{}
			if db != nil {
				defer db.Close()
				if entries, err = db.ListAudit(cmd.Context(), store.AuditFilter{Tenant: tenant, Since: from, Limit: limit}); err != nil {
					return failErr(fmt.Errorf("%s: %w", path, err))
				}
			}
			if format == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			return writeAuditTable(cmd.OutOrStdout(), entries)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&tenant, "tenant", "", "only this tenant's entries")
	fl.StringVar(&since, "since", "", "only entries from this time on: a duration back from now (24h, 90m) or an RFC 3339 time")
	fl.StringVar(&format, "format", "table", "table or json")
	fl.IntVar(&limit, "limit", 0, "the newest N entries only (0: all)")
	return cmd
}

// parseSince reads --since: "" (from the start), a duration back from
// now, or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, usageErr("--since %s: want a positive duration (how far back), e.g. 24h", s)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, usageErr("--since %q: want a duration (24h, 90m) or an RFC 3339 time (2026-11-01T00:00:00Z)", s)
	}
	return t, nil
}

// writeAuditTable writes entries as a table, oldest first.
func writeAuditTable(w io.Writer, entries []store.AuditEntry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tTENANT\tACTION\tOBJECTS\tOUTCOME\tREASON")
	for _, e := range entries {
		tenant := e.Tenant
		switch {
		case e.Unauthenticated:
			tenant = "none, from " + e.Source
		case tenant == "":
			tenant = "-"
		}
		reason := strings.ReplaceAll(e.Reason, "\n", " ")
		if len(reason) > 120 {
			reason = reason[:117] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.UTC().Format(time.RFC3339), tenant, e.Action,
			strings.Join(e.Objects, ","), e.Outcome, reason)
	}
	return tw.Flush()
}
