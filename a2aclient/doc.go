/*
Package a2aclient is how proctor talks to the agents it evaluates.

It wraps a2a-go's client (imported here as sdkclient) with what an evaluator
needs on top of the protocol: agent-card resolution from a base URL or a card
URL, one A2A context per simulated conversation, normalization of the many
response shapes real agents produce into one list of parts, and metrics for
every request (latency, HTTP status, bytes, tokens).

Usage:

	client, err := a2aclient.Dial(ctx, "http://127.0.0.1:9019", a2aclient.WithRequestTimeout(time.Minute))
	if err != nil {
		return err
	}
	defer client.Close()

	conv := client.NewConversation()
	resp, err := conv.Send(ctx, []*a2a.Part{a2a.NewTextPart("hello")})
	// resp.Metrics is filled even when err != nil.
	for _, p := range resp.Parts {
		fmt.Println(p.Text())
	}

Transports: this version speaks protocol 1.0 JSON-RPC. The card's other
interfaces are recognised and reported, so a card that offers no usable
interface gets an error naming what it does offer.
*/
package a2aclient
