package ecp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Pool keeps ECP agents for simulations: one client (process or
// connection) per simulation at a time, initialized once, reset before
// every use, replaced when broken. It is safe for concurrent use.
type Pool struct {
	target Target
	opts   Options

	mu     sync.Mutex
	idle   []*Client
	live   map[*Client]bool
	closed bool
	stats  PoolStats
}

// PoolStats are a pool's figures.
type PoolStats struct {
	// Started counts agents started (or connected) and initialized;
	// StartTime is the time that took, in total.
	Started   int
	StartTime time.Duration
	// Uses counts clients handed out; Reused those that were not new.
	Uses, Reused int
	// Replaced counts broken agents killed.
	Replaced int
}

// NewPool returns an empty pool of agents at target.
func NewPool(target Target, opts Options) *Pool {
	return &Pool{target: target, opts: opts, live: map[*Client]bool{}}
}

// ErrPoolClosed is returned by Get after Close.
var ErrPoolClosed = errors.New("ecp: pool closed")

// Get returns a reset client: an idle one, or a new one started and
// initialized. A failed reset kills the client and is returned as the
// error of the simulation that asked (the next Get starts a fresh one).
func (p *Pool) Get(ctx context.Context) (*Client, error) {
	c, reused, err := p.take(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.Reset(ctx); err != nil {
		p.Put(c)
		return nil, err
	}
	p.mu.Lock()
	p.stats.Uses++
	if reused {
		p.stats.Reused++
	}
	p.mu.Unlock()
	return c, nil
}

// take pops an idle client or starts one.
func (p *Pool) take(ctx context.Context) (*Client, bool, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false, ErrPoolClosed
	}
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, true, nil
	}
	p.mu.Unlock()
	start := time.Now()
	c, err := p.target.Dial(ctx, p.opts)
	if err != nil {
		return nil, false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.Close()
		return nil, false, ErrPoolClosed
	}
	p.stats.Started++
	p.stats.StartTime += time.Since(start)
	p.live[c] = true
	return c, false, nil
}

// Warm starts one agent (unless one is idle) and keeps it idle: a check
// that the agent starts and initializes, before any simulation. It
// returns the agent's initialize result.
func (p *Pool) Warm(ctx context.Context) (InitializeResult, error) {
	c, _, err := p.take(ctx)
	if err != nil {
		return InitializeResult{}, err
	}
	info := c.Info
	p.Put(c)
	return info, nil
}

// Put gives a client back: kept for the next Get while it works, killed
// (and so replaced) when broken or when the pool is closed.
func (p *Pool) Put(c *Client) {
	p.mu.Lock()
	keep := !p.closed && c.Broken() == nil
	if keep {
		p.idle = append(p.idle, c)
	} else {
		delete(p.live, c)
		if !p.closed && c.Broken() != nil {
			p.stats.Replaced++
		}
	}
	p.mu.Unlock()
	if !keep {
		_ = c.Close()
	}
}

// Stats returns the pool's figures so far.
func (p *Pool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Close kills every agent of the pool, idle or in use, and waits for them.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	all := make([]*Client, 0, len(p.live))
	for c := range p.live {
		all = append(all, c)
	}
	p.live, p.idle = map[*Client]bool{}, nil
	p.mu.Unlock()
	for _, c := range all {
		_ = c.Close()
	}
	return nil
}
