package a2aclient_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/translation"
)

// instantReply is what the benchmark's agent answers at once, every turn:
// a short agentbeats-style respond call.
const instantReply = `{"name":"respond","arguments":{"content":"Done: your task list has 3 open tasks."}}`

// BenchmarkTurnOverhead measures proctor's per-turn client overhead: one
// conversation turn as the simulation loop makes it (render the user input
// with the agentbeats profile, Conversation.Send with its normalization,
// metrics and token accounting, translation.ParseReply of the reply),
// against a bare a2a-go client sending an equivalent message (same text,
// same context id) with SendMessage, on the same transport to the same
// instant agent. They alternate inside one loop with separate timers, so
// that drift (CPU frequency, GC, the server warming up) affects both;
// "ratio" is proctor's time over the bare client's, and the target is
// ratio <= 1.2. "ratio-send" times Conversation.Send alone on parts rendered
// once, in the same loop: a2aclient's share of the overhead, without
// translation's. ns/op counts all three calls.
//
// turn=first is a conversation's opening message (the mock domain's policy
// and tool schemas, about 10 KB); turn=next is a later user message.
func BenchmarkTurnOverhead(b *testing.B) {
	d, err := mock.New()
	if err != nil {
		b.Fatal(err)
	}
	profile, err := translation.ProfileByName("agentbeats")
	if err != nil {
		b.Fatal(err)
	}
	setup := agent.NewSetup(d.Policy, d.Tools) // as bench.Simulator builds it: once per evaluation
	input := agent.Input{UserText: "Hi, could you tell me how many open tasks I have?"}
	reply := func(context.Context, string, string) string { return instantReply }

	for _, transport := range []a2aclient.Transport{a2aclient.TransportJSONRPC, a2aclient.TransportGRPC, a2aclient.TransportREST} {
		base := agenttest.StartPeer(b, agenttest.Peer{Transport: string(transport), Protocol: string(a2aclient.Protocol10)}, reply)
		for _, first := range []bool{true, false} {
			turn := "next"
			if first {
				turn = "first"
			}
			b.Run(fmt.Sprintf("transport=%s/turn=%s", transport, turn), func(b *testing.B) {
				benchTurn(b, base, profile, setup, first, input)
			})
		}
	}
}

func benchTurn(b *testing.B, base string, profile translation.Profile, setup agent.Setup, first bool, input agent.Input) {
	ctx := context.Background()
	client, err := a2aclient.Dial(ctx, base)
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	bare := bareClient(b, client.Endpoint())
	defer bare.Destroy()

	conv := client.NewConversation()
	sendOnly := client.NewConversation()
	// The bare client sends the same text in the same context.
	rendered := profile.Render(setup, first, input)
	text := a2aclient.PartsText(rendered)
	ctxID := conv.ContextID()

	proctorTurn := func() {
		resp, err := conv.Send(ctx, profile.Render(setup, first, input))
		if err != nil {
			b.Fatal(err)
		}
		if r := translation.ParseReply(resp.Parts); r.Text == "" || resp.Metrics.ErrorClass != "" {
			b.Fatalf("unexpected reply %+v (metrics %+v)", r, resp.Metrics)
		}
	}
	// proctorSend is Conversation.Send alone, on parts rendered once: the
	// a2aclient part of the overhead, without translation's.
	proctorSend := func() {
		if _, err := sendOnly.Send(ctx, rendered); err != nil {
			b.Fatal(err)
		}
	}
	bareTurn := func() {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
		msg.ContextID = ctxID
		if _, err := bare.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg}); err != nil {
			b.Fatal(err)
		}
	}
	calls := []func(){proctorTurn, proctorSend, bareTurn}
	// Warm all up: connections, the server's first-use paths.
	for range 20 {
		for _, call := range calls {
			call()
		}
	}

	var elapsed [3]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// Rotate which goes first, so that none always pays for another's
		// garbage or warms the caches for it.
		for j := range 3 {
			k := (i + j) % 3
			start := time.Now()
			calls[k]()
			elapsed[k] += time.Since(start)
		}
	}
	b.StopTimer()
	proctorTime, sendTime, bareTime := elapsed[0], elapsed[1], elapsed[2]
	b.ReportMetric(float64(proctorTime.Nanoseconds())/float64(b.N), "ns/proctor")
	b.ReportMetric(float64(bareTime.Nanoseconds())/float64(b.N), "ns/bare")
	b.ReportMetric(float64(proctorTime)/float64(bareTime), "ratio")
	b.ReportMetric(float64(sendTime)/float64(bareTime), "ratio-send")
}

// bareClient is a2a-go's own client for the interface proctor's client
// chose, with nothing of proctor's in between: its own connection pool, the
// SDK's default JSON-RPC and REST transports, plain insecure gRPC.
func bareClient(b *testing.B, iface a2a.AgentInterface) *sdkclient.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	hc := &http.Client{Transport: t}
	c, err := sdkclient.NewFromEndpoints(context.Background(), []*a2a.AgentInterface{&iface},
		sdkclient.WithJSONRPCTransport(hc),
		sdkclient.WithRESTTransport(hc),
		grpcv1.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())),
	)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(hc.CloseIdleConnections)
	return c
}

// TestEstimateTokensFastPath: the token estimate counts runes with an ASCII
// fast path (a finding of BenchmarkTurnOverhead); it must agree with
// utf8.RuneCountInString on every prefix of mixed, multi-byte and invalid
// text, wherever the first non-ASCII byte falls.
func TestEstimateTokensFastPath(t *testing.T) {
	texts := []string{
		strings.Repeat("plain ASCII policy text, ", 5),
		"héllo wörld, ünïcode everywhere: 日本語のテキスト and emoji 🎉🎉 done",
		strings.Repeat("a", 13) + "é" + strings.Repeat("b", 20) + "\xff\xfe" + strings.Repeat("c", 9) + "\x80",
		"\xe6\x97" + strings.Repeat("x", 17), // a cut multi-byte rune
	}
	for _, text := range texts {
		for k := 0; k <= len(text); k++ {
			s := text[:k]
			want := int64((utf8.RuneCountInString(s) + 3) / 4)
			if got := a2aclient.EstimateTokens(s); got != want {
				t.Fatalf("EstimateTokens(%q) = %d, want %d", s, got, want)
			}
		}
	}
}
