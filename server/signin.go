package server

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Bounds of failed sign-ins to the web viewer, per source address: a
// burst of signInFailureBurst, then one more every signInFailureEvery.
// Past them a wrong token is answered 429 with Retry-After, unchecked
// against nothing and unrecorded; the right token is always accepted.
const (
	signInFailureBurst = 10
	signInFailureEvery = 6 * time.Second
	// maxSignInHosts bounds the addresses remembered; past it those that
	// have earned back their whole burst are forgotten, and if that is not
	// enough, all.
	maxSignInHosts = 10_000
)

// signInThrottle counts failed sign-ins per source address.
type signInThrottle struct {
	mu     sync.Mutex
	byHost map[string]*rate.Limiter
	now    func() time.Time
}

func newSignInThrottle(now func() time.Time) *signInThrottle {
	return &signInThrottle{byHost: map[string]*rate.Limiter{}, now: now}
}

// fail counts a failed sign-in from host. It reports whether host was
// within its bounds; when it was not, retry is how long until it is.
func (t *signInThrottle) fail(host string) (retry time.Duration, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	lim := t.byHost[host]
	if lim == nil {
		t.forget(now)
		lim = rate.NewLimiter(rate.Every(signInFailureEvery), signInFailureBurst)
		t.byHost[host] = lim
	}
	if lim.AllowN(now, 1) {
		return 0, true
	}
	short := 1 - lim.TokensAt(now)
	return time.Duration(math.Ceil(short * float64(signInFailureEvery))), false
}

// forget makes room for one more address when the map is full.
func (t *signInThrottle) forget(now time.Time) {
	if len(t.byHost) < maxSignInHosts {
		return
	}
	for host, lim := range t.byHost {
		if lim.TokensAt(now) >= signInFailureBurst {
			delete(t.byHost, host)
		}
	}
	if len(t.byHost) >= maxSignInHosts {
		clear(t.byHost)
	}
}
