//go:build !unix || solaris || aix

package store

import (
	"os"
	"time"
)

// shortLocksSupported says whether WithShortLocks takes effect here: not
// on this platform, where every handle holds bbolt's lock for its life.
const shortLocksSupported = false

func lockWritersFile(string, time.Duration) (*os.File, bool, error) { return nil, true, nil }

func shareWritersFile(*os.File) {}

func writersActive(string) (bool, error) { return false, nil }
