package store

import (
	"os"
	"sync"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// sessionLockWait is how long a transaction of a handle opened
// WithShortLocks waits for the file lock that a reader or another writer
// holds: readers and writers hold it for one transaction at a time, so a
// longer wait means something holds it for good (an older proctor, or a
// handle opened without short locks).
const sessionLockWait = 30 * time.Second

// sessions gives transactions a bbolt handle. Without short locks the file
// is opened once, by Open, and closed by Close: the handle holds bbolt's
// file lock (exclusive for a writer, shared for a reader) for its whole
// life. With short locks the file is opened when a transaction starts and
// no other transaction of this process has it open, and closed when the
// last one ends, so other processes may open it between transactions.
type sessions struct {
	path  string
	opts  bbolt.Options
	short bool

	mu      sync.Mutex
	bolt    *bbolt.DB
	refs    int
	closed  bool
	opened  bool // the file has been opened once (so it exists)
	existed bool // a non-empty file was at path before Open

	// writers is the side file on which every handle opened for writing
	// with short locks holds a shared lock; see lockWriters.
	writers *os.File
	// sole is set when Open found no other handle open for writing.
	sole bool
}

func newSessions(path string, existed bool, o options) *sessions {
	return &sessions{
		path:    path,
		short:   o.shortLocks,
		existed: existed,
		opts:    bbolt.Options{Timeout: o.lockTimeout, ReadOnly: o.readOnly, NoSync: o.noSync},
	}
}

// acquire returns an open bbolt handle, opening the file if no transaction
// of this process has it open. Every successful acquire is paired with a
// release.
func (s *sessions) acquire() (*bbolt.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, berrors.ErrDatabaseNotOpen
	}
	if s.bolt == nil {
		opts := s.opts
		if s.opened {
			opts.Timeout = transactionLockWait(s.opts.Timeout)
		}
		b, err := bbolt.Open(s.path, 0o600, &opts)
		if err != nil {
			return nil, openError(s.path, opts.Timeout, s.existed || s.opened, err)
		}
		s.bolt, s.opened = b, true
	}
	s.refs++
	return s.bolt, nil
}

// transactionLockWait is the lock timeout of a transaction's open, given
// Open's: never shorter than sessionLockWait, and unbounded stays so.
func transactionLockWait(open time.Duration) time.Duration {
	if open == 0 || open > sessionLockWait {
		return open
	}
	return sessionLockWait
}

// release ends what acquire began; with short locks, the last transaction
// to end closes the file and so releases its lock.
func (s *sessions) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs--
	if s.short && s.refs == 0 && s.bolt != nil {
		// Closing a handle with no transaction open cannot lose data;
		// a failure to unmap leaves nothing to repair.
		_ = s.bolt.Close()
		s.bolt = nil
	}
}

// close closes the bbolt handle if it is open; later acquires fail.
func (s *sessions) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.bolt == nil {
		return nil
	}
	b := s.bolt
	s.bolt = nil
	return b.Close()
}

// lockWriters takes the side lock of a handle opened for writing with
// short locks: exclusive if no other such handle is open (then sole is
// set, and other writers' Opens wait until shareWriters), shared
// otherwise. A handle without short locks is sole when it writes: bbolt's
// exclusive lock, held for its life, proves it.
func (s *sessions) lockWriters(o options) error {
	if o.readOnly {
		return nil
	}
	if !s.short {
		s.sole = true
		return nil
	}
	f, sole, err := lockWritersFile(s.path, o.lockTimeout)
	if err != nil {
		return err
	}
	s.writers, s.sole = f, sole
	return nil
}

// shareWriters lets other writers open the database: the side lock,
// exclusive while Open ran the WithWhenSole function, becomes shared.
func (s *sessions) shareWriters() {
	if s.writers != nil && s.sole {
		shareWritersFile(s.writers)
	}
}

// unlockWriters releases the side lock.
func (s *sessions) unlockWriters() {
	if s.writers != nil {
		_ = s.writers.Close()
		s.writers = nil
	}
}

// writersPath is the side file of the database at path.
func writersPath(path string) string { return path + ".lock" }
