package llm

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/adk/model"
)

// Source makes models by spec for proctor's roles: each metered (tokens and
// cost per call, see Meter) and, with a cassette, recorded or replayed. With
// a replaying cassette no provider is reached and no API key is needed.
// Models are made once per spec and role. A Source is safe for concurrent
// use.
type Source struct {
	// Config reaches the providers (keys, base URL, retries).
	Config Config
	// Prices prices the calls (nil: DefaultPrices).
	Prices Prices
	// Cassette, when set, records or replays every call.
	Cassette *Cassette
	// Sink, when set, also receives every call (see WithSink).
	Sink func(Call)
	// TracerProvider, when set, gets a span per call (see WithTracing).
	TracerProvider trace.TracerProvider
	// Limits, when set, caps the user simulator's and the judge's calls
	// in flight per provider (the agent's and the chat's are not capped:
	// a wait would count in their latency); Sources sharing it share the
	// caps. Replayed calls take no slot.
	Limits *Limits

	mu     sync.Mutex
	models map[string]model.LLM
}

// Model returns the model a spec names ("openai:gpt-4.1") playing role.
func (s *Source) Model(ctx context.Context, spec, role string) (model.LLM, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := role + "\x00" + spec
	if m, ok := s.models[key]; ok {
		return m, nil
	}
	provider, _, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	var m model.LLM
	if s.Cassette == nil || s.Cassette.Mode() == ModeRecord {
		if m, err = New(ctx, spec, s.Config); err != nil {
			return nil, err
		}
		if role == RoleUser || role == RoleJudge {
			m = limit(m, s.Limits, provider)
		}
	}
	if s.Cassette != nil {
		m = s.Cassette.Wrap(m, spec)
	}
	prices := s.Prices
	if prices == nil {
		prices = DefaultPrices()
	}
	opts := []MeterOption{WithTracing(s.TracerProvider, provider)}
	if s.Sink != nil {
		opts = append(opts, WithSink(s.Sink))
	}
	m = Meter(m, role, prices, opts...)
	if s.models == nil {
		s.models = map[string]model.LLM{}
	}
	s.models[key] = m
	return m, nil
}
