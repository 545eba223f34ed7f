package a2aclient_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

func Example() {
	// A real A2A agent on loopback that declines everything. (agenttest
	// wants a testing.TB to clean up after; an Example has none.)
	tb := &exampleTB{}
	defer tb.cleanup()
	srv := agenttest.Start(tb, agenttest.Sorry)

	ctx := context.Background()
	client, err := a2aclient.Dial(ctx, srv.URL, a2aclient.WithRequestTimeout(time.Minute))
	if err != nil {
		fmt.Println("dial:", err)
		return
	}
	defer client.Close()
	fmt.Println("card:", client.Card().Name)

	conv := client.NewConversation()
	resp, err := conv.Send(ctx, []*a2a.Part{a2a.NewTextPart("Can you book me a flight?")})
	if err != nil {
		fmt.Println("send:", err, resp.Metrics.ErrorClass)
		return
	}
	fmt.Println("agent:", a2aclient.PartsText(resp.Parts))
	fmt.Println("shape:", resp.Shape)
	m := resp.Metrics
	fmt.Printf("HTTP %d, tokens in/out %d/%d (estimated: %v)\n", m.HTTPStatus, m.InputTokens, m.OutputTokens, m.TokensEstimated)
	// Output:
	// card: test agent
	// agent: Sorry, I cannot help with that.
	// shape: message
	// HTTP 200, tokens in/out 7/8 (estimated: true)
}

// exampleTB is the part of testing.TB that agenttest uses: Helper and
// Cleanup.
type exampleTB struct {
	testing.TB
	cleanups []func()
}

func (*exampleTB) Helper() {}

func (tb *exampleTB) Cleanup(f func()) { tb.cleanups = append(tb.cleanups, f) }

func (tb *exampleTB) cleanup() {
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}
