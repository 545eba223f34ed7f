package main

import (
	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/llm"
)

// startup is what a command that evaluates or scores sets up from its
// flags, in one place: its models (with the cassette, if any), tracing as
// the OTEL_* variables ask, and the catalog of domains. close saves the
// cassette and flushes the spans.
type startup struct {
	models  *llm.Source
	catalog *catalog.Catalog
	// tracer is the tracer provider, nil when tracing is off; stop flushes
	// its spans.
	tracer trace.TracerProvider
	stop   func()
	cmd    *cobra.Command
}

// needs says what a command sets up beyond its models.
type needs struct {
	// tracing starts tracing as OTEL_* asks.
	tracing bool
	// domains reads the catalog of domains, with tau2's data from
	// tau2Data (--tau2-data; "" for the usual places).
	domains  bool
	tau2Data string
}

// start sets up a command: lf's models, and what n asks for. A failed
// step undoes the ones before it.
func start(cmd *cobra.Command, lf *llmFlags, n needs) (*startup, error) {
	models, err := lf.source()
	if err != nil {
		return nil, err
	}
	s := &startup{models: models, stop: func() {}, cmd: cmd}
	if n.tracing {
		tp, stop, err := startTracing(cmd)
		if err != nil {
			s.close()
			return nil, err
		}
		s.tracer, s.stop, models.TracerProvider = tp, stop, tp
	}
	if !n.domains {
		return s, nil
	}
	if s.catalog, err = newCatalog(n.tau2Data); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// close saves the cassette and flushes the spans not yet sent.
func (s *startup) close() {
	s.stop()
	saveCassette(s.cmd, s.models)
}
