package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	path      string
	readOnly  bool
	maxRecord int
	sessions  *sessions
	writer    *Process     // this process, as PutEvaluation records it
	commits   *groupCommit // shared by copies of the handle, as sessions is
}

type options struct {
	lockTimeout time.Duration
	readOnly    bool
	noSync      bool
	maxRecord   int
	shortLocks  bool
	whenSole    func(*DB) error
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

// WithShortLocks makes the handle hold bbolt's file lock only while a
// transaction runs (the file is opened for the first transaction that
// starts and closed when the last one ends), so that several processes may
// share the database: an evaluation writing and `proctor results` reading,
// or two evaluations writing. Each transaction still sees a consistent
// snapshot and bbolt still admits one writer at a time; a transaction waits
// up to 30s (or the lock timeout, if longer) for a lock another process
// holds. Handles opened for writing with short locks also share a lock on
// a side file, path+".lock", which tells whether any of them is open (see
// WithWhenSole and WritersActive). On platforms without flock the option
// has no effect.
func WithShortLocks() Option {
	return func(o *options) { o.shortLocks = true }
}

// WithWhenSole runs fn inside Open when no other handle has the database
// open for writing (for recovery: marking what a dead process left running
// as interrupted); other writers' Opens wait until it returns, and its
// error fails Open. When another writer is open, fn is not run.
func WithWhenSole(fn func(*DB) error) Option {
	return func(o *options) { o.whenSole = fn }
}

// WritersActive reports whether a handle opened for writing with short
// locks, in this process or another, has the database open now. A handle
// without short locks answers false: a reader then excludes writers.
func (db *DB) WritersActive() (bool, error) {
	if !db.sessions.short {
		return false, nil
	}
	return writersActive(db.path)
}

// WritersActiveAt reports whether a proctor has the database at path open
// for writing, without opening it: `proctor view`, which opens it only for
// each page, asks between pages.
func WritersActiveAt(path string) (bool, error) {
	return writersActive(path)
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
	o.shortLocks = o.shortLocks && shortLocksSupported
	db := &DB{path: path, readOnly: o.readOnly, maxRecord: o.maxRecord, writer: thisProcess(), commits: &groupCommit{}}
	db.sessions = newSessions(path, existed, o)
	if err := db.sessions.lockWriters(o); err != nil {
		return nil, err
	}
	if err := db.openFirst(); err != nil {
		db.sessions.unlockWriters()
		return nil, err
	}
	if err := db.runWhenSole(o.whenSole); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// openFirst opens the bbolt file and checks (or creates) the schema; with
// short locks it closes the file again, releasing its lock.
func (db *DB) openFirst() error {
	b, err := db.sessions.acquire()
	if err != nil {
		return err
	}
	err = db.initSchema(b)
	db.sessions.release()
	if err != nil {
		_ = db.sessions.close()
	}
	return err
}

// runWhenSole runs fn if this handle is, for now, the only one open for
// writing, then lets other writers in.
func (db *DB) runWhenSole(fn func(*DB) error) error {
	defer db.sessions.shareWriters()
	if fn == nil || !db.sessions.sole {
		return nil
	}
	return fn(db)
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
		return lockedError(path, path, timeout)
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

// lockedError says that the lock on file (the database at path, or its
// side file) was not had within timeout, naming the processes that hold
// it where the system tells.
func lockedError(path, file string, timeout time.Duration) error {
	by := "another process (is another proctor running?)"
	if holders := lockHolders(file); len(holders) > 0 {
		by = strings.Join(holders, ", ") + " (another proctor)"
	}
	return fmt.Errorf("%w: %s is in use by %s; gave up after %s", ErrLocked, path, by, timeout)
}

// Close closes the database and releases the file lock. Calling it again is
// a no-op.
func (db *DB) Close() error {
	err := db.sessions.close()
	db.sessions.unlockWriters()
	if err != nil {
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
	return db.withBolt(func(b *bbolt.DB) error { return b.View(fn) })
}

// update runs fn in a write transaction after checking ctx.
func (db *DB) update(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if db.readOnly {
		return fmt.Errorf("store: %s is open read-only: %w", db.path, berrors.ErrDatabaseReadOnly)
	}
	return db.withBolt(func(b *bbolt.DB) error { return b.Update(fn) })
}

// batch is update for writes that many goroutines make at once: they
// share transactions and fsyncs (groupCommit). Each call still returns
// only after its own write is durable, and fn must be idempotent because
// it runs again alone when a shared transaction fails.
func (db *DB) batch(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if db.readOnly {
		return fmt.Errorf("store: %s is open read-only: %w", db.path, berrors.ErrDatabaseReadOnly)
	}
	return db.commits.write(func(fn func(*bbolt.Tx) error) error {
		return db.withBolt(func(b *bbolt.DB) error { return b.Update(fn) })
	}, fn)
}

// withBolt runs call on an open bbolt handle: with short locks, the file
// is opened (and its lock taken) for the call unless another transaction
// of this process has it open already, and closed once none has.
func (db *DB) withBolt(call func(*bbolt.DB) error) error {
	b, err := db.sessions.acquire()
	if err != nil {
		return db.txError(err)
	}
	defer db.sessions.release()
	return db.txError(call(b))
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
