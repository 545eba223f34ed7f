package result_test

import (
	"testing"

	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
)

func TestAggregateMetrics(t *testing.T) {
	var reqs []measure.Request
	for i := 1; i <= 100; i++ {
		reqs = append(reqs, measure.Request{LatencyMS: float64(i), HTTPStatus: 200, InputTokens: 2, OutputTokens: 1, BytesSent: 10})
	}
	reqs = append(reqs, measure.Request{LatencyMS: 1000, ErrorClass: measure.ErrClassConnection})
	m := result.AggregateRequests(reqs)
	if m.Requests != 101 || m.Errors != 1 || m.StatusCodes["200"] != 100 || m.StatusCodes["none"] != 1 {
		t.Fatalf("counts wrong: %+v", m)
	}
	if m.LatencyMS.P50 != 51 || m.LatencyMS.P95 != 96 || m.LatencyMS.P99 != 100 || m.LatencyMS.Max != 1000 {
		t.Errorf("latency = %+v", m.LatencyMS)
	}
	if m.InputTokens != 200 || m.OutputTokens != 100 || m.BytesSent != 1000 || m.ErrorClasses[string(measure.ErrClassConnection)] != 1 {
		t.Errorf("totals = %+v", m)
	}
}
