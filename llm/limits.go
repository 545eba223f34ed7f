package llm

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/adk/model"
)

// DefaultMaxConcurrency is how many calls to one provider may be in flight
// at once when no limit names it.
const DefaultMaxConcurrency = 16

// Limits caps the model calls in flight at once, per provider, across every
// role and every Source that shares it: a run of many simulations then
// queues its user simulator's and judge's calls instead of flooding the
// provider. A call holds its slot through its retries and their waits. A
// nil *Limits, or a cap of 0, limits nothing. Limits is safe for
// concurrent use.
type Limits struct {
	def int
	per map[string]int

	mu    sync.Mutex
	slots map[string]*providerSlots
}

// providerSlots are one provider's slots and the calls waiting for one.
type providerSlots struct {
	ch      chan struct{}
	waiting atomic.Int64
}

// NewLimits caps each provider at def concurrent calls, those in per at
// their own number; 0 means unlimited.
func NewLimits(def int, per map[string]int) *Limits {
	return &Limits{def: max(def, 0), per: maps.Clone(per)}
}

// ParseLimits reads a limit as a flag gives it: a number for every
// provider ("16"), provider=number pairs ("openai=32,gemini=8", the others
// at DefaultMaxConcurrency), or both ("8,openai=32"). 0 means unlimited.
func ParseLimits(s string) (*Limits, error) {
	def, per := DefaultMaxConcurrency, map[string]int{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, named := strings.Cut(part, "=")
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if !named {
			n, err = strconv.Atoi(part)
		}
		if err != nil || n < 0 {
			return nil, fmt.Errorf("llm: concurrency limit %q: want a number of calls (0: unlimited) or provider=number, e.g. 16 or openai=32,gemini=8", part)
		}
		if !named {
			def = n
			continue
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if !slices.Contains(Providers(), name) {
			return nil, fmt.Errorf("llm: concurrency limit %q: unknown provider %q (known: %s)", part, name, strings.Join(Providers(), ", "))
		}
		per[name] = n
	}
	return NewLimits(def, per), nil
}

// Max returns the cap on provider's concurrent calls; 0 means unlimited.
func (l *Limits) Max(provider string) int {
	if l == nil {
		return 0
	}
	if n, ok := l.per[provider]; ok {
		return n
	}
	return l.def
}

// String describes the limits as ParseLimits reads them.
func (l *Limits) String() string {
	if l == nil {
		return "0"
	}
	parts := []string{strconv.Itoa(l.def)}
	for _, p := range slices.Sorted(maps.Keys(l.per)) {
		parts = append(parts, p+"="+strconv.Itoa(l.per[p]))
	}
	return strings.Join(parts, ",")
}

// Waiting returns how many calls to provider are waiting for a slot now.
func (l *Limits) Waiting(provider string) int {
	if l.Max(provider) <= 0 {
		return 0
	}
	return int(l.slotsOf(provider).waiting.Load())
}

func (l *Limits) slotsOf(provider string) *providerSlots {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.slots == nil {
		l.slots = map[string]*providerSlots{}
	}
	ps, ok := l.slots[provider]
	if !ok {
		ps = &providerSlots{ch: make(chan struct{}, l.Max(provider))}
		l.slots[provider] = ps
	}
	return ps
}

// acquire takes one of provider's slots, waiting for one when none is
// free; release gives it back, and waited is how long it waited (0 when a
// slot was free at once, so that an uncontended run records no wait and
// its results do not vary with scheduling).
func (l *Limits) acquire(ctx context.Context, provider string) (release func(), waited time.Duration, err error) {
	n := l.Max(provider)
	if n <= 0 {
		return func() {}, 0, nil
	}
	ps := l.slotsOf(provider)
	select {
	case ps.ch <- struct{}{}:
		return func() { <-ps.ch }, 0, nil
	default:
	}
	start := time.Now()
	ps.waiting.Add(1)
	defer ps.waiting.Add(-1)
	select {
	case ps.ch <- struct{}{}:
		return func() { <-ps.ch }, time.Since(start), nil
	case <-ctx.Done():
		return nil, time.Since(start), fmt.Errorf("llm: %s: waiting for a free slot (at most %d calls at once): %w", provider, n, ctx.Err())
	}
}

// limited is a model.LLM whose calls take one of its provider's slots.
type limited struct {
	model.LLM
	limits   *Limits
	provider string
}

// limit makes m's calls take a slot of provider's under limits; without a
// cap it returns m.
func limit(m model.LLM, limits *Limits, provider string) model.LLM {
	if limits.Max(provider) <= 0 {
		return m
	}
	return &limited{LLM: m, limits: limits, provider: provider}
}

// GenerateContent implements model.LLM: it waits for a slot, recording the
// wait in the call's stats (see Meter), and holds it until the call ends.
func (m *limited) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		release, waited, err := m.limits.acquire(ctx, m.provider)
		statsFrom(ctx).waited(waited)
		if err != nil {
			yield(nil, err)
			return
		}
		defer release()
		for resp, err := range m.LLM.GenerateContent(ctx, req, stream) {
			if !yield(resp, err) {
				return
			}
		}
	}
}

// callStats is what a metered call learns from the layers under it: the
// time it waited for a provider slot and the 429 replies it was retried
// after. It travels in the call's context.
type callStats struct {
	mu        sync.Mutex
	slotWait  time.Duration
	throttled int
	// inputTokens sums the usage the replies of an embeddings call
	// reported; unreported counts its replies without one.
	inputTokens int64
	unreported  int
}

type callStatsKey struct{}

func withCallStats(ctx context.Context) (context.Context, *callStats) {
	s := &callStats{}
	return context.WithValue(ctx, callStatsKey{}, s), s
}

// statsFrom returns the context's callStats, or a throwaway one.
func statsFrom(ctx context.Context) *callStats {
	if s, ok := ctx.Value(callStatsKey{}).(*callStats); ok {
		return s
	}
	return &callStats{}
}

func (s *callStats) waited(d time.Duration) {
	s.mu.Lock()
	s.slotWait += d
	s.mu.Unlock()
}

func (s *callStats) throttle() {
	s.mu.Lock()
	s.throttled++
	s.mu.Unlock()
}

// embedded counts an embeddings reply's usage (reported false: it had
// none).
func (s *callStats) embedded(inputTokens int64, reported bool) {
	s.mu.Lock()
	s.inputTokens += inputTokens
	if !reported {
		s.unreported++
	}
	s.mu.Unlock()
}

// addWaits adds o's slot wait and throttling (not its usage) to s.
func (s *callStats) addWaits(o *callStats) {
	slotWait, throttled := o.snapshot()
	s.mu.Lock()
	s.slotWait += slotWait
	s.throttled += throttled
	s.mu.Unlock()
}

// usage returns the embeddings usage counted, and whether every reply
// reported one.
func (s *callStats) usage() (inputTokens int64, reported bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inputTokens, s.unreported == 0
}

func (s *callStats) snapshot() (slotWait time.Duration, throttled int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slotWait, s.throttled
}
