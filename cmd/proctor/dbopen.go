package main

import (
	"errors"
	"fmt"

	"github.com/proctor-eval/proctor/store"
)

// Every proctor command opens the database with short locks: bbolt's file
// lock is held for one transaction at a time, not for the whole command, so
// `proctor results` reads while `proctor run` or `proctor serve` writes, and
// two evaluations may write to one database. Recovery (marking what a dead
// proctor left running as interrupted) runs only when no other proctor has
// the database open for writing: only then is "running" known to be stale.

// openStore opens the database at path with short locks, and turns a
// locked database into an error that says what holds it and what to do.
func openStore(path string, opts ...store.Option) (*store.DB, error) {
	db, err := store.Open(path, append(opts, store.WithShortLocks())...)
	return db, lockedHint(err)
}

// lockedHint adds what to do to a locked-database error.
func lockedHint(err error) error {
	if err == nil || !errors.Is(err, store.ErrLocked) {
		return err
	}
	return fmt.Errorf("%w\nproctor: wait for it to finish, or use another database: --db PATH or PROCTOR_DB=PATH", err)
}

// writersActive reports whether a proctor has db open for writing; when
// the system cannot tell, it says yes, so that nothing is shown as
// interrupted that may be running.
func writersActive(db *store.DB) bool {
	active, err := db.WritersActive()
	return active || err != nil
}
