package refagent

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
)

func mockAgent(t *testing.T) (*Agent, *domains.Domain) {
	t.Helper()
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	return a, d
}

func TestNewRejectsUnknownDomains(t *testing.T) {
	if _, err := New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
	tb := domains.NewToolbox[struct{}]()
	tb.Register("get_user", "", `{"type":"object"}`, func(*struct{}, domains.Args) (any, error) { return nil, nil })
	for _, name := range []string{"airline", mock.Name} {
		d, err := domains.NewDomain(domains.Spec[struct{}]{Name: name, DB: []byte(`{}`), Tools: tb})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(d); err == nil {
			t.Errorf("New accepted domain %q with tools %v", name, d.ToolNames())
		}
	}
}

func TestCard(t *testing.T) {
	a, _ := mockAgent(t)
	c := a.Card("http://127.0.0.1:9999/")
	if len(c.SupportedInterfaces) != 1 {
		t.Fatalf("interfaces %v", c.SupportedInterfaces)
	}
	i := c.SupportedInterfaces[0]
	if i.URL != "http://127.0.0.1:9999/" || i.ProtocolBinding != a2a.TransportProtocolJSONRPC || i.ProtocolVersion != "1.0" {
		t.Errorf("interface %+v", i)
	}
	if c.Name == "" || c.Description == "" || c.Version != Version || len(c.Skills) == 0 || len(c.DefaultInputModes) == 0 || len(c.DefaultOutputModes) == 0 {
		t.Errorf("incomplete card %+v", c)
	}
}

func TestBaseURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080/",
		"0.0.0.0:80":     "http://127.0.0.1:80/",
		"[::]:81":        "http://[::1]:81/",
		"[::1]:82":       "http://[::1]:82/",
	} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := BaseURL(tcp); got != want {
			t.Errorf("BaseURL(%s) = %s, want %s", addr, got, want)
		}
	}
}

func TestContextsAreBoundedAndSeparate(t *testing.T) {
	a, _ := mockAgent(t)
	a.max = 3
	for i := range 5 {
		a.Reply(fmt.Sprintf("ctx-%d", i), "User message: I'm jane.park@example.com")
	}
	if n := a.contexts(); n != 3 {
		t.Fatalf("%d contexts remembered, want 3", n)
	}
	// ctx-4 is remembered: its pending lookup result is used.
	if got := a.Reply("ctx-4", "Tool call result (find_user_by_email):\n{\"user_id\":\"u-1001\",\"name\":\"Jane Park\"}"); !strings.Contains(got, "Thanks, Jane") {
		t.Errorf("ctx-4: %s", got)
	}
	// ctx-0 was evicted: the same result is a stray one for a new conversation.
	if got := a.Reply("ctx-0", "Tool call result (find_user_by_email):\n{\"user_id\":\"u-1001\",\"name\":\"Jane Park\"}"); strings.Contains(got, "Jane") {
		t.Errorf("ctx-0 was not evicted: %s", got)
	}
}

func TestPolicyMessageRestarts(t *testing.T) {
	a, _ := mockAgent(t)
	a.Reply("c", "User message: I'm jane.park@example.com")
	a.Reply("c", "Tool call result (find_user_by_email):\n{\"user_id\":\"u-1001\",\"name\":\"Jane Park\"}")
	got := a.Reply("c", "<policy>\np\n</policy>\n[]\nUser message: Please delete 'Draft budget'.")
	if !strings.Contains(got, "email address") {
		t.Errorf("a new conversation in the same context kept the old login: %s", got)
	}
}

func TestConcurrentReplies(t *testing.T) {
	a, _ := mockAgent(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			id := fmt.Sprintf("c-%d", i%4)
			a.Reply(id, "User message: I'm jane.park@example.com, show me my tasks")
			a.Reply(id, "Tool call result (find_user_by_email):\n{\"user_id\":\"u-1001\",\"name\":\"Jane Park\"}")
		})
	}
	wg.Wait()
	if n := a.contexts(); n != 4 {
		t.Errorf("%d contexts, want 4", n)
	}
}

func TestServeRejectsUnknownDomain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d, err := domains.NewDomain(domains.Spec[struct{}]{Name: "other", DB: []byte(`{}`), Tools: domains.NewToolbox[struct{}]()})
	if err != nil {
		t.Fatal(err)
	}
	if err := Serve(context.Background(), ln, d); err == nil {
		t.Fatal("Serve accepted an unknown domain")
	}
	if _, err := ln.Accept(); err == nil {
		t.Error("listener left open")
	}
}
