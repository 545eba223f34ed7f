package refagent_test

import (
	"fmt"
	"log"

	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/refagent"
)

// Agent.Reply is the agent without the transport: one incoming message text
// of a context in, one JSON reply out.
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
