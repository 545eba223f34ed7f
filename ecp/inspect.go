package ecp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/rollout"
)

var _ rollout.Inspector = (*conversation)(nil)

// Inspect calls agent/inspect on the conversation's agent (the one its
// steps were played on) and returns the value at path, with the call's
// metrics.
func (c *conversation) Inspect(ctx context.Context, path string) (json.RawMessage, a2aclient.RequestMetrics, error) {
	if c.client == nil {
		return nil, a2aclient.RequestMetrics{}, errors.New("ecp: no agent to inspect: the conversation took no step")
	}
	start := time.Now()
	v, err := c.client.Inspect(ctx, path)
	if err != nil {
		return nil, failedMetrics(MethodInspect, start, err), err
	}
	m := a2aclient.RequestMetrics{Method: MethodInspect, StartedAt: start.UTC(), LatencyMS: float64(time.Since(start).Microseconds()) / 1000}
	m.BytesSent, m.BytesReceived = c.client.LastCallBytes()
	return v, m, nil
}
