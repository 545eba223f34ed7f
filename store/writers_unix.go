//go:build unix && !solaris && !aix

package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// shortLocksSupported says whether WithShortLocks takes effect here.
const shortLocksSupported = true

// lockRetry is how often a lock held by another process is tried again.
const lockRetry = 20 * time.Millisecond

// lockWritersFile opens the writers' side file of the database at path and
// locks it: exclusively if it can at once (sole), else shared, waiting up
// to timeout for a writer that holds it exclusively while it recovers.
func lockWritersFile(path string, timeout time.Duration) (_ *os.File, sole bool, _ error) {
	name := writersPath(path)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("store: open lock file %s: %w", name, err)
	}
	fd := int(f.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		return f, true, nil
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(fd, syscall.LOCK_SH|syscall.LOCK_NB)
		if err == nil {
			return f, false, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || (timeout != 0 && time.Now().After(deadline)) {
			_ = f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, false, lockedError(path, name, timeout)
			}
			return nil, false, fmt.Errorf("store: lock %s: %w", name, err)
		}
		time.Sleep(lockRetry)
	}
}

// shareWritersFile turns the exclusive side lock into a shared one.
func shareWritersFile(f *os.File) {
	// Converting never blocks here: nobody else holds the lock. Should it
	// fail, the exclusive lock stays and other writers wait for Close.
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_SH)
}

// writersActive reports whether a handle opened for writing with short
// locks has the database at path open now.
func writersActive(path string) (bool, error) {
	f, err := os.Open(writersPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); {
	case err == nil:
		return false, nil // closing the file releases it
	case errors.Is(err, syscall.EWOULDBLOCK):
		return true, nil
	default:
		return false, fmt.Errorf("store: lock %s: %w", writersPath(path), err)
	}
}
