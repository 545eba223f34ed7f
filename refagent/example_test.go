package refagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/translation"
)

// Agent.Reply is the agent without the transport: one incoming message text
// of a context in, the reply's text out; in the agentbeats profile, one JSON
// object.
func ExampleAgent_Reply() {
	d, err := mock.New()
	if err != nil {
		log.Fatal(err)
	}
	a, err := refagent.New(d)
	if err != nil {
		log.Fatal(err)
	}
	first := "<policy>\n" + d.Policy + "\n</policy>\n\nUser message: Hi, I'm jane.park@example.com. Please delete my task 'Draft budget'."
	fmt.Println(a.Reply("ctx-1", first))
	fmt.Println(a.Reply("ctx-1", "Tool call result (find_user_by_email):\n{\"name\":\"Jane Park\",\"user_id\":\"u-1001\"}"))
	// Output:
	// {"name":"find_user_by_email","arguments":{"email":"jane.park@example.com"}}
	// {"name":"list_tasks","arguments":{"user_id":"u-1001"}}
}

// In the tau2-a2a profile the agent answers the user in plain text and calls
// tools with a {"tool_call": ...} object; the profile is detected from the
// conversation's first message.
func ExampleAgent_Reply_tau2A2A() {
	d, err := mock.New()
	if err != nil {
		log.Fatal(err)
	}
	a, err := refagent.New(d)
	if err != nil {
		log.Fatal(err)
	}
	profile, err := translation.ProfileByName(agent.ProfileTau2A2A)
	if err != nil {
		log.Fatal(err)
	}
	setup := agent.Setup{Policy: d.Policy, Tools: d.Tools}
	first := profile.Render(setup, true, agent.Input{UserText: "Please delete my task 'Draft budget'."})
	fmt.Println(a.Reply("ctx-1", first[0].Text()))
	fmt.Println(a.Reply("ctx-1", "It's jane.park@example.com."))
	// Output:
	// Before I can help, please tell me the email address of your Taskly account so I can verify your identity.
	// {"tool_call":{"name":"find_user_by_email","arguments":{"email":"jane.park@example.com"}}}
}

// Serve runs the agent on a listener until its context ends; the agent card
// advertises the listener's address.
func ExampleServe() {
	d, err := mock.New()
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	card := refagent.BaseURL(ln.Addr()) + ".well-known/agent-card.json"
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- refagent.Serve(ctx, ln, d) }()

	resp, err := http.Get(card)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("agent card:", resp.Status)

	stop()
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	// Output:
	// agent card: 200 OK
}

// Agent.Handler mounts the agent in your own server, advertising the URL
// you give it.
func ExampleAgent_Handler() {
	d, err := mock.New()
	if err != nil {
		log.Fatal(err)
	}
	a, err := refagent.New(d)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", a.Handler("https://agent.example.com/"))

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/agent-card.json", nil))
	var card struct {
		SupportedInterfaces []struct {
			URL string `json:"url"`
		} `json:"supportedInterfaces"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &card); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Code, card.SupportedInterfaces[0].URL)
	// Output:
	// 200 https://agent.example.com/
}
