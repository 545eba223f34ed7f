package llm_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/proctor-eval/proctor/llm"
)

// TestMeterTracesCalls: with WithTracing every call is a client span under
// the caller's, named after the model, with the role, provider and tokens.
func TestMeterTracesCalls(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prices := llm.Prices{"fake-model": {InputPerMTok: 2, OutputPerMTok: 8}}
	user := llm.Meter(&counting{}, llm.RoleUser, prices, llm.WithTracing(tp, llm.ProviderOpenAI))
	judge := llm.Meter(&counting{fail: true}, llm.RoleJudge, prices, llm.WithTracing(tp, llm.ProviderGemini))
	ctx, root := tp.Tracer("test").Start(t.Context(), "simulation")
	if _, err := ask(t, ctx, user, "hi", true); err != nil {
		t.Fatal(err)
	}
	if _, err := ask(t, ctx, judge, "judge", false); err == nil {
		t.Fatal("want the judge's error")
	}
	root.End()

	type spanView struct {
		Name, Parent string
		Status       codes.Code
		Attrs        map[string]string
	}
	var got []spanView
	for _, s := range exp.GetSpans() {
		if s.Name == "simulation" {
			continue
		}
		v := spanView{Name: s.Name, Status: s.Status.Code, Attrs: map[string]string{}}
		if s.Parent.SpanID() == root.SpanContext().SpanID() {
			v.Parent = "simulation"
		}
		for _, a := range s.Attributes {
			v.Attrs[string(a.Key)] = a.Value.String()
		}
		got = append(got, v)
	}
	want := []spanView{
		{Name: "chat fake-model", Parent: "simulation", Status: codes.Unset, Attrs: map[string]string{
			"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "fake-model",
			"proctor.llm.role": "user", "gen_ai.usage.input_tokens": "1000", "gen_ai.usage.output_tokens": "500",
			"proctor.llm.cost_usd": "0.006",
		}},
		{Name: "chat fake-model", Parent: "simulation", Status: codes.Error, Attrs: map[string]string{
			"gen_ai.operation.name": "chat", "gen_ai.provider.name": "gemini", "gen_ai.request.model": "fake-model",
			"proctor.llm.role": "judge", "gen_ai.usage.input_tokens": "0", "gen_ai.usage.output_tokens": "0",
			"proctor.llm.cost_usd": "0",
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}
