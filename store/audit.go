package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"
)

// AuditOutcome is how an audited request ended.
type AuditOutcome string

// Audit outcomes.
const (
	// AuditAccepted: the request was served (a long task was started).
	AuditAccepted AuditOutcome = "accepted"
	// AuditRefused: the request was refused (a limit, a bad request, an
	// object the caller does not see); Reason says why.
	AuditRefused AuditOutcome = "refused"
	// AuditFailed: the request was accepted but could not be served.
	AuditFailed AuditOutcome = "failed"
)

// MaxAuditEntries is how many audit entries of authenticated callers the
// database keeps: each new one past it drops the oldest.
const MaxAuditEntries = 100_000

// MaxUnauthenticatedAuditEntries is how many entries of unauthenticated
// callers (failed sign-ins) the database keeps, apart from the others:
// each new one past it drops the oldest of them, never an authenticated
// caller's entry, so that nobody without a token can flush the log.
const MaxUnauthenticatedAuditEntries = 10_000

// AuditEntry is one line of the audit log: who asked for what, when, and
// how it ended. It never holds a credential: tenants are named, not their
// tokens, and requests are summed up by their action and object ids.
type AuditEntry struct {
	// Seq numbers entries in the order they were written (set by
	// AppendAudit).
	Seq uint64 `json:"seq"`
	// Time is when the request was answered (set by AppendAudit when
	// zero).
	Time time.Time `json:"time"`
	// Tenant is the caller's tenant name; "" on a server without tokens.
	Tenant string `json:"tenant,omitempty"`
	// Action is the A2A method (SendMessage, GetTask...) and, for a
	// message, its skill ("SendMessage/run_evaluation").
	Action string `json:"action"`
	// Objects are the ids the request named or made (task, evaluation,
	// conformance run, eval-set run).
	Objects []string `json:"objects,omitempty"`
	// Outcome is how it ended, and Reason why when refused or failed.
	Outcome AuditOutcome `json:"outcome"`
	Reason  string       `json:"reason,omitempty"`
	// Unauthenticated marks the entry of a caller who sent no valid token
	// (a failed sign-in): it is kept apart, within
	// MaxUnauthenticatedAuditEntries.
	Unauthenticated bool `json:"unauthenticated,omitempty"`
	// Source is the caller's network address, where the entry records it
	// (unauthenticated callers').
	Source string `json:"source,omitempty"`
}

// AppendAudit adds e to the audit log, dropping the oldest entry of its
// kind once the log holds MaxAuditEntries authenticated callers' entries,
// or MaxUnauthenticatedAuditEntries unauthenticated callers'.
func (db *DB) AppendAudit(ctx context.Context, e AuditEntry) error {
	if e.Unauthenticated {
		return db.appendAudit(ctx, bucketAuditUnauthenticated, e, MaxUnauthenticatedAuditEntries)
	}
	return db.appendAudit(ctx, bucketAudit, e, MaxAuditEntries)
}

// appendAudit is AppendAudit to bucket, keeping at most keep entries there.
func (db *DB) appendAudit(ctx context.Context, bucket []byte, e AuditEntry, keep uint64) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC().Round(0)
	}
	if len(e.Reason) > 1024 {
		e.Reason = e.Reason[:1024] + "..."
	}
	// Entries of concurrent requests share a commit (batch).
	return db.batch(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucket)
		seq, err := b.NextSequence()
		if err != nil {
			return fmt.Errorf("store: audit: %w", err)
		}
		e.Seq = seq
		val, err := encodeJSON(e)
		if err != nil {
			return fmt.Errorf("store: encode audit entry: %w", err)
		}
		if seq > keep {
			if err := b.Delete(auditKey(seq - keep)); err != nil {
				return fmt.Errorf("store: audit: drop oldest: %w", err)
			}
		}
		return b.Put(auditKey(seq), val)
	})
}

// auditKey is the key of the entry numbered seq: big-endian, so that keys
// sort in the order entries were written.
func auditKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, seq)
}

// AuditFilter selects audit entries for ListAudit.
type AuditFilter struct {
	// Tenant, when set, selects that tenant's entries.
	Tenant string
	// Since, when set, selects entries at or after it.
	Since time.Time
	// Limit is the most entries returned (the newest): 0 means no limit.
	Limit int
}

// ListAudit returns the audit entries matching f, oldest first,
// authenticated and unauthenticated callers' together (a Tenant filter
// selects only authenticated ones). It returns an empty, non-nil slice
// when nothing matches.
func (db *DB) ListAudit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	var out []AuditEntry
	err := db.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		if out, err = listAuditBucket(ctx, tx.Bucket(bucketAudit), f); err != nil || f.Tenant != "" {
			return err
		}
		unauth, err := listAuditBucket(ctx, tx.Bucket(bucketAuditUnauthenticated), f)
		out = append(out, unauth...)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b AuditEntry) int { return a.Time.Compare(b.Time) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return append([]AuditEntry{}, out...), nil
}

// listAuditBucket returns the entries of one audit bucket (nil: none)
// matching f, oldest first.
func listAuditBucket(ctx context.Context, b *bbolt.Bucket, f AuditFilter) ([]AuditEntry, error) {
	var out []AuditEntry
	if b == nil {
		return out, nil
	}
	c := b.Cursor()
	n := 0
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		if err := checkCtx(ctx, n); err != nil {
			return nil, err
		}
		n++
		var e AuditEntry
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, fmt.Errorf("store: corrupt audit entry %x: %w", k, err)
		}
		if !f.Since.IsZero() && e.Time.Before(f.Since) {
			break // entries are written in time order
		}
		if f.Tenant != "" && e.Tenant != f.Tenant {
			continue
		}
		out = append(out, e)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	slices.Reverse(out)
	return out, nil
}
