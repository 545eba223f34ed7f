//go:build unix

package interop

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// TestPySDK03CompatInterim plays task mock-01 against an agent on the
// Python SDK 1.1.0 reached through its 0.3 compatibility layer over gRPC
// and HTTP+JSON (agenttest.PySDK03Compat): before each answer the agent
// says agenttest.PySDKInterim in a working status message. Unstreamed,
// the layer's reply task carries the history, where that message lies,
// only when the send asks for it with historyLength: proctor must, so
// that the transcript is the same streamed or not, each answer preceded
// by the interim message.
func TestPySDK03CompatInterim(t *testing.T) {
	for _, transport := range []string{string(a2aclient.TransportREST), string(a2aclient.TransportGRPC)} {
		t.Run(transport, func(t *testing.T) {
			peer := agenttest.Peer{Transport: transport, Protocol: string(a2aclient.Protocol03), Streaming: true, Wrap: agenttest.PySDK03Compat}
			base := agenttest.StartExecutorPeer(t, peer, agenttest.InterimExecutor(scriptReply, agenttest.PySDKInterim))
			transcripts := map[a2aclient.StreamingMode][]transcriptEntry{}
			for _, mode := range []a2aclient.StreamingMode{a2aclient.StreamingOn, a2aclient.StreamingOff} {
				sim, client := simulate(t, base, a2aclient.WithTransport(a2aclient.Transport(transport)),
					a2aclient.WithProtocol(a2aclient.Protocol03), a2aclient.WithStreaming(mode))
				checkEndpoint(t, client, transport, string(a2aclient.Protocol03))
				checkSolved(t, sim)
				if sim.Metrics.Errors != 0 || len(sim.NonConformant) != 0 {
					t.Errorf("streaming %s: %d request errors, deviations %v; want none", mode, sim.Metrics.Errors, sim.NonConformant)
				}
				transcripts[mode] = transcriptOf(sim.Messages)
				want := withInterim(withoutInterim(transcripts[mode]), agenttest.PySDKInterim)
				if diff := cmp.Diff(want, transcripts[mode], cmp.Comparer(jsonEqual)); diff != "" {
					t.Errorf("streaming %s: transcript, an interim message before each answer (-want +got):\n%s", mode, diff)
				}
			}
			if diff := cmp.Diff(transcripts[a2aclient.StreamingOn], transcripts[a2aclient.StreamingOff], cmp.Comparer(jsonEqual)); diff != "" {
				t.Errorf("transcript, streamed (-) and unstreamed (+):\n%s", diff)
			}
		})
	}
}

// withoutInterim is a transcript without its interim messages.
func withoutInterim(entries []transcriptEntry) []transcriptEntry {
	var out []transcriptEntry
	for _, e := range entries {
		if !e.Interim {
			out = append(out, e)
		}
	}
	return out
}
