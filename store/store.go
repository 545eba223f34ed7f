package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrNotFound is returned (wrapped, with the id in the message) when an
// evaluation, simulation or conformance run does not exist. Test for it
// with errors.Is.
var ErrNotFound = errors.New("store: not found")

// ErrAmbiguous is returned (wrapped, with the candidates in the message) by
// GetEvaluation and GetConformance when a short id (a prefix or suffix)
// matches more than one record.
var ErrAmbiguous = errors.New("store: ambiguous short id")

// ErrLocked is returned (wrapped, with the database path in the message) by
// Open when another process holds the database lock for longer than the lock
// timeout. bbolt allows one writer process per file; usually this means
// another proctor is running against the same database.
var ErrLocked = errors.New("store: database is locked")

const (
	// defaultLockTimeout is how long Open waits for the file lock unless
	// WithLockTimeout says otherwise.
	defaultLockTimeout = 2 * time.Second

	// ctxCheckEvery is how many records a long scan reads between checks
	// of its context.
	ctxCheckEvery = 256
)

// DB is an open proctor database. It is safe for concurrent use by multiple
// goroutines: reads run concurrently, writes are serialized by bbolt.
type DB struct {
	bolt      *bbolt.DB
	path      string
	readOnly  bool
	maxRecord int
}

type options struct {
	lockTimeout time.Duration
	readOnly    bool
	noSync      bool
	maxRecord   int
}

// withMaxRecordSize lowers the per-record size limit; for tests.
func withMaxRecordSize(n int) Option { return func(o *options) { o.maxRecord = n } }

// Option configures Open.
type Option func(*options)

// WithLockTimeout sets how long Open waits for the file lock held by another
// process before failing with ErrLocked. The default is 2s. Zero waits
// indefinitely; a negative duration tries once and fails at once.
func WithLockTimeout(d time.Duration) Option {
	return func(o *options) {
		if d < 0 {
			d = time.Nanosecond // bbolt: one attempt, then ErrTimeout
		}
		o.lockTimeout = d
	}
}

// WithReadOnly opens the database read-only with a shared lock, so several
// readers (for example `proctor results`) may share a file. The file must
// already exist; it is never created or modified, and every Put, Delete
// and MarkInterrupted call fails, as do the writes of TaskStore and
// MarkTasksInterrupted.
func WithReadOnly() Option {
	return func(o *options) { o.readOnly = true }
}

// WithNoSync disables fsync after each commit (bbolt NoSync). A crash may
// then lose or corrupt recent writes: use it for benchmarks and tests only.
func WithNoSync() Option {
	return func(o *options) { o.noSync = true }
}

// Open opens the database at path, creating it (and its parent directories,
// mode 0o700; the file gets mode 0o600) if it does not exist. On first use it
// creates the buckets and records SchemaVersion.
//
// Open never truncates or rewrites an existing file: a file that is not a
// bbolt database, a bbolt database that is not proctor's, or one written by a
// newer schema version is refused with an error naming the path, and left as
// it was. Opening an existing, initialized database performs no write. (An
// existing empty file holds nothing to lose: a read-write Open initializes
// it; a read-only Open refuses it.)
//
// If another process holds the lock for longer than the lock timeout (see
// WithLockTimeout), the error wraps ErrLocked.
func Open(path string, opts ...Option) (*DB, error) {
	o := options{lockTimeout: defaultLockTimeout, maxRecord: defaultMaxRecordSize}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if path == "" {
		return nil, errors.New("store: empty database path")
	}

	existed, err := prepareFile(path, o.readOnly)
	if err != nil {
		return nil, err
	}

	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:  o.lockTimeout,
		ReadOnly: o.readOnly,
		NoSync:   o.noSync,
	})
	if err != nil {
		return nil, openError(path, o.lockTimeout, existed, err)
	}
	// A lone writer waits at most this long for others to share its commit.
	bdb.MaxBatchDelay = batchDelay
	db := &DB{bolt: bdb, path: path, readOnly: o.readOnly, maxRecord: o.maxRecord}
	if err := db.initSchema(); err != nil {
		_ = bdb.Close()
		return nil, err
	}
	return db, nil
}

// prepareFile checks what is at path before bbolt opens it, and for a
// read-write open of a missing file creates its parent directories.
// existed reports whether a non-empty file was there.
func prepareFile(path string, readOnly bool) (existed bool, _ error) {
	switch fi, err := os.Stat(path); {
	case err == nil:
		existed = fi.Size() > 0
		if !fi.Mode().IsRegular() {
			return false, fmt.Errorf("store: %s is not a regular file (%s), so it cannot be a proctor database", path, fi.Mode().Type())
		}
		if readOnly && !existed {
			// bbolt would try to initialize it and fail obscurely.
			return false, fmt.Errorf("store: %s is an empty file, not an initialized proctor database; it cannot be opened read-only", path)
		}
	case errors.Is(err, fs.ErrNotExist):
		if readOnly {
			return false, fmt.Errorf("store: open %s read-only: %w", path, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return false, fmt.Errorf("store: create directory for %s: %w", path, err)
		}
	default:
		return false, fmt.Errorf("store: open %s: %w", path, err)
	}
	return existed, nil
}

// openError describes an error from bbolt.Open. existed says whether a
// non-empty file was at path before Open.
func openError(path string, timeout time.Duration, existed bool, err error) error {
	var pathErr *fs.PathError
	var errno syscall.Errno
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("%w: %s is in use by another process (is another proctor running?); gave up after %s", ErrLocked, path, timeout)
	case errors.Is(err, berrors.ErrInvalid),
		errors.Is(err, berrors.ErrVersionMismatch),
		errors.Is(err, berrors.ErrChecksum),
		// bbolt reports some malformed files with ad-hoc errors (e.g.
		// "file size too small"); anything that is not an OS error on a
		// file that had content is a file bbolt cannot read.
		existed && !errors.As(err, &pathErr) && !errors.As(err, &errno):
		return fmt.Errorf("store: %s is not a proctor database (not a valid bbolt file: %w); the file was left untouched", path, err)
	default:
		return fmt.Errorf("store: open %s: %w", path, err)
	}
}

// Close closes the database and releases the file lock. Calling it again is
// a no-op.
func (db *DB) Close() error {
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", db.path, err)
	}
	return nil
}

// Path returns the path the database was opened with.
func (db *DB) Path() string { return db.path }

// view runs fn in a read transaction after checking ctx.
func (db *DB) view(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.txError(db.bolt.View(fn))
}

// update runs fn in a write transaction after checking ctx.
func (db *DB) update(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if db.readOnly {
		return fmt.Errorf("store: %s is open read-only: %w", db.path, berrors.ErrDatabaseReadOnly)
	}
	return db.txError(db.bolt.Update(fn))
}

// batchDelay bounds how long a simulation write waits for concurrent ones
// to share its fsync: small next to any simulation's duration.
const batchDelay = 2 * time.Millisecond

// batch is update for writes that many goroutines make at once: bbolt may
// run several of them in one transaction and one fsync (group commit). Each
// call still returns only after its own write is durable, and fn must be
// idempotent because bbolt re-runs it alone when a shared batch fails.
func (db *DB) batch(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if db.readOnly {
		return fmt.Errorf("store: %s is open read-only: %w", db.path, berrors.ErrDatabaseReadOnly)
	}
	return db.txError(db.bolt.Batch(fn))
}

// txError adds context to errors that come from bbolt itself rather than
// from our transaction functions (which already describe themselves).
func (db *DB) txError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return fmt.Errorf("store: %s is closed: %w", db.path, err)
	case errors.Is(err, berrors.ErrDatabaseReadOnly):
		return fmt.Errorf("store: %s is open read-only: %w", db.path, err)
	case errors.Is(err, berrors.ErrMaxSizeReached):
		return fmt.Errorf("store: %s: %w", db.path, err)
	}
	return err
}

// checkCtx is called periodically by long scans.
func checkCtx(ctx context.Context, n int) error {
	if n%ctxCheckEvery == ctxCheckEvery-1 {
		return ctx.Err()
	}
	return nil
}
