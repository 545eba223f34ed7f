package a2aclient

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// TestHistoryLengthAsked: proctor asks for the whole task history where a
// left-out historyLength reads as 0 (0.3's proto int32 over gRPC and
// HTTP+JSON), and sends none where it means no limit, so those wires stay
// as they were.
func TestHistoryLengthAsked(t *testing.T) {
	whole := wholeHistory
	for _, tc := range []struct {
		binding a2a.TransportProtocol
		version a2a.ProtocolVersion
		want    *int
	}{
		{a2a.TransportProtocolGRPC, "0.3", &whole},
		{a2a.TransportProtocolHTTPJSON, "0.3.0", &whole},
		{a2a.TransportProtocolJSONRPC, "0.3", nil},
		{a2a.TransportProtocolGRPC, "1.0", nil},
		{a2a.TransportProtocolHTTPJSON, "1.0", nil},
		{a2a.TransportProtocolJSONRPC, "1.0", nil},
	} {
		c := &Client{endpoint: &a2a.AgentInterface{ProtocolBinding: tc.binding, ProtocolVersion: tc.version}}
		req := c.sendRequest(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi")))
		if diff := cmp.Diff(tc.want, req.Config.HistoryLength); diff != "" {
			t.Errorf("%s %s: historyLength (-want +got):\n%s", tc.binding, tc.version, diff)
		}
	}
}
