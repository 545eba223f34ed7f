package store

import (
	"bytes"
	"fmt"
	"strconv"

	"go.etcd.io/bbolt"
)

// SchemaVersion is the version of the on-disk layout written by this package.
// Open refuses files written with a newer version.
const SchemaVersion = 1

// Bucket and key names of the on-disk layout (schema version 1):
//
//	meta         "schema_version" -> decimal ASCII, e.g. "1"
//	evaluations  evaluation id -> JSON of Evaluation
//	simulations  evaluation id -> nested bucket: simulation id -> JSON (Simulation without Requests)
//	requests     evaluation id -> nested bucket: simulation id -> JSON (Simulation.Requests)
//	a2a_tasks    A2A task id -> JSON {version, user, updated_at, task} (see a2atasks.go)
//	conformance  conformance run id -> JSON of ConformanceRun (see conformance.go)
//	audit        8-byte big-endian sequence number -> JSON of AuditEntry (see audit.go)
//	audit_unauthenticated  the same, for unauthenticated callers' entries
//
// a2a_tasks, conformance, audit and audit_unauthenticated were added without bumping SchemaVersion: the change is purely
// additive. A read-write Open creates a missing bucket (checkSchema reports
// it as needing initialization), readers treat a missing bucket as empty
// (a read-only handle on an older file), and an older proctor opening a
// newer file ignores a bucket it does not know (it only checks for foreign
// buckets when "meta" is missing). Nothing an older proctor writes depends
// on the new bucket, so both versions can keep using the same file.
var (
	bucketMeta        = []byte("meta")
	bucketEvaluations = []byte("evaluations")
	bucketSimulations = []byte("simulations")
	bucketRequests    = []byte("requests")
	bucketA2ATasks    = []byte("a2a_tasks")
	bucketConformance = []byte("conformance")
	bucketAudit       = []byte("audit")
	// bucketAuditUnauthenticated keeps unauthenticated callers' audit
	// entries apart (see AppendAudit).
	bucketAuditUnauthenticated = []byte("audit_unauthenticated")
	keySchemaVersion           = []byte("schema_version")

	allBuckets = [][]byte{bucketMeta, bucketEvaluations, bucketSimulations, bucketRequests, bucketA2ATasks, bucketConformance, bucketAudit,
		bucketAuditUnauthenticated}
)

// initSchema checks the schema version and, for a writable new database,
// creates the buckets and writes the version. It writes only when something
// is missing, so opening an initialized database does not touch the file.
func (db *DB) initSchema(b *bbolt.DB) error {
	needInit := false
	err := b.View(func(tx *bbolt.Tx) error {
		var err error
		needInit, err = db.checkSchema(tx)
		return err
	})
	if err != nil || !needInit || db.readOnly {
		// A read-only handle on a new, empty file reads as an empty
		// database: every reader tolerates missing buckets.
		return err
	}
	err = b.Update(func(tx *bbolt.Tx) error {
		// Check again under the write lock; nothing else can write
		// between the two transactions since we hold the file lock, but
		// checking is cheap and keeps the logic in one place.
		if _, err := db.checkSchema(tx); err != nil {
			return err
		}
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if meta.Get(keySchemaVersion) == nil {
			if err := meta.Put(keySchemaVersion, []byte(strconv.Itoa(SchemaVersion))); err != nil {
				return err
			}
		}
		for _, name := range allBuckets[1:] {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: initialize %s: %w", db.path, err)
	}
	return nil
}

// checkSchema reports whether the database needs initializing, or an error
// if it is not a database this version can use.
func (db *DB) checkSchema(tx *bbolt.Tx) (needInit bool, err error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		// Either a brand-new file or someone else's bbolt database.
		var foreign []byte
		_ = tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
			if !isOurBucket(name) && foreign == nil {
				foreign = bytes.Clone(name)
			}
			return nil
		})
		if foreign != nil {
			return false, fmt.Errorf("store: %s is a bbolt database but not a proctor database (it has bucket %q and no schema version); refusing to modify it", db.path, foreign)
		}
		return true, nil
	}
	raw := meta.Get(keySchemaVersion)
	if raw == nil {
		return false, fmt.Errorf("store: %s: bucket %q has no %q key; the database is damaged or not proctor's", db.path, bucketMeta, keySchemaVersion)
	}
	v, err := strconv.Atoi(string(raw))
	if err != nil || v < 1 {
		return false, fmt.Errorf("store: %s: invalid %s/%s value %q", db.path, bucketMeta, keySchemaVersion, truncate(raw, 32))
	}
	if v > SchemaVersion {
		return false, fmt.Errorf("store: %s has schema version %d, newer than the version %d this proctor understands; upgrade proctor or use another database (PROCTOR_DB)", db.path, v, SchemaVersion)
	}
	for _, name := range allBuckets[1:] {
		if tx.Bucket(name) == nil {
			return true, nil
		}
	}
	return false, nil
}

func isOurBucket(name []byte) bool {
	for _, b := range allBuckets {
		if bytes.Equal(name, b) {
			return true
		}
	}
	return false
}
