package result

import (
	"math"
	"slices"
	"strconv"

	"github.com/proctor-eval/proctor/measure"
)

// statusKey is how a request's outcome is counted in status_codes: the HTTP
// status ("200"), the gRPC code ("grpc:OK", "grpc:Unavailable"), or "none"
// when no response arrived (refused, timed out).
func statusKey(m measure.Request) string {
	switch {
	case m.HTTPStatus == 200:
		return "200" // nearly every request: spared strconv's allocation
	case m.HTTPStatus != 0:
		return strconv.Itoa(m.HTTPStatus)
	case m.GRPCCode != "":
		return "grpc:" + m.GRPCCode
	}
	return "none"
}

// AggregateRequests summarizes the metrics of a simulation's requests.
func AggregateRequests(reqs []measure.Request) Metrics {
	m := Metrics{StatusCodes: map[string]int{}}
	lat := make([]float64, 0, len(reqs))
	for _, r := range reqs {
		m.add(r)
		lat = append(lat, r.LatencyMS)
	}
	m.LatencyMS = latencyOf(lat)
	return m
}

func (m *Metrics) add(r measure.Request) {
	m.Requests++
	m.Retries += r.Retries
	m.Resends += r.Resends
	m.StatusCodes[statusKey(r)]++
	if r.ErrorClass != "" {
		m.Errors++
		if m.ErrorClasses == nil {
			m.ErrorClasses = map[string]int{}
		}
		m.ErrorClasses[string(r.ErrorClass)]++
	}
	m.InputTokens += r.InputTokens
	m.OutputTokens += r.OutputTokens
	m.TokensEstimated = m.TokensEstimated || r.TokensEstimated
	m.BytesSent += r.BytesSent
	m.BytesReceived += r.BytesReceived
}

// MergeMetrics combines simulations' metrics into an evaluation's.
// Percentiles need the raw latencies of every request, given apart since
// simulations keep only their own summaries.
func MergeMetrics(sims []Simulation, latencies []float64) Metrics {
	ms := make([]Metrics, len(sims))
	for i := range sims {
		ms[i] = sims[i].Metrics
	}
	return Merge(ms, latencies)
}

// Merge totals several sets of metrics (the simulations' or case runs'),
// with the latency distribution of every request they made.
func Merge(ms []Metrics, latencies []float64) Metrics {
	m := Metrics{StatusCodes: map[string]int{}}
	for _, sm := range ms {
		m.Requests += sm.Requests
		m.Errors += sm.Errors
		m.Retries += sm.Retries
		m.Resends += sm.Resends
		for k, v := range sm.StatusCodes {
			m.StatusCodes[k] += v
		}
		for k, v := range sm.ErrorClasses {
			if m.ErrorClasses == nil {
				m.ErrorClasses = map[string]int{}
			}
			m.ErrorClasses[k] += v
		}
		m.InputTokens += sm.InputTokens
		m.OutputTokens += sm.OutputTokens
		m.TokensEstimated = m.TokensEstimated || sm.TokensEstimated
		m.BytesSent += sm.BytesSent
		m.BytesReceived += sm.BytesReceived
		m.LLMUsage = measure.MergeUsage(m.LLMUsage, sm.LLMUsage)
	}
	m.LatencyMS = latencyOf(latencies)
	return m
}

func latencyOf(ms []float64) Latency {
	if len(ms) == 0 {
		return Latency{}
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	return Latency{
		P50:  percentile(s, 0.50),
		P95:  percentile(s, 0.95),
		P99:  percentile(s, 0.99),
		Max:  s[len(s)-1],
		Mean: round3(sum / float64(len(s))),
	}
}

// percentile uses the nearest-rank method on sorted values.
func percentile(sorted []float64, p float64) float64 {
	rank := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(rank, len(sorted)-1))]
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
