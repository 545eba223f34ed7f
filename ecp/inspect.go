package ecp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/measure"
)

var _ agent.Inspector = (*conversation)(nil)

// Inspect calls agent/inspect on the conversation's agent (the one its
// steps were played on) and returns the value at path, with the call's
// metrics.
func (c *conversation) Inspect(ctx context.Context, path string) (json.RawMessage, measure.Request, error) {
	if c.client == nil {
		return nil, measure.Request{}, errors.New("ecp: no agent to inspect: the conversation took no step")
	}
	start := time.Now()
	v, err := c.client.Inspect(ctx, path)
	if err != nil {
		return nil, failedMetrics(MethodInspect, start, err), err
	}
	m := measure.Request{Method: MethodInspect, StartedAt: start.UTC(), LatencyMS: float64(time.Since(start).Microseconds()) / 1000}
	m.BytesSent, m.BytesReceived = c.client.LastCallBytes()
	return v, m, nil
}
