// Package weather is a small A2A agent to evaluate with proctor: it answers
// questions about the weather and converts currencies with two tools, and
// reports each tool call on the wire the way ADK's and tRPC-Agent-Go's A2A
// servers do, so that an eval set can check the calls as well as the
// answers. It needs no model: its replies follow from the question, which
// makes its evaluations repeatable.
//
// Run it with `go run ./examples/a2a`, then evaluate it with the eval sets
// in examples/a2a/evals (see examples/a2a/README.md).
package weather

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// forecasts are the weather the get_weather tool knows, by city.
var forecasts = map[string]forecast{
	"paris":  {Sky: "sunny", Celsius: 21},
	"oslo":   {Sky: "snowing", Celsius: -3},
	"lisbon": {Sky: "cloudy", Celsius: 17},
	"tokyo":  {Sky: "raining", Celsius: 12},
}

// rates are how many US dollars one unit of a currency buys.
var rates = map[string]float64{"USD": 1, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067}

type forecast struct {
	Sky     string
	Celsius int
}

var (
	weatherQuestion = regexp.MustCompile(`(?i)\bin ([a-z]+)\b`)
	convertRequest  = regexp.MustCompile(`(?i)\bconvert ([0-9]+(?:\.[0-9]+)?) ([a-z]{3}) (?:to|into) ([a-z]{3})\b`)
)

// Handler serves the agent at base (its public URL, without a trailing
// slash): the agent card at /.well-known/agent-card.json, A2A 1.0 JSON-RPC
// at / and HTTP+JSON under /rest.
func Handler(base string) http.Handler {
	h := a2asrv.NewHandler(executor{})
	mux := http.NewServeMux()
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(Card(base)))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	mux.Handle("/", a2asrv.NewJSONRPCHandler(h))
	return mux
}

// Card is the agent's card for the server at base.
func Card(base string) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name:        "weather",
		Description: "Tells the weather in a city and converts currencies.",
		Version:     "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(base+"/", a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface(base+"/rest", a2a.TransportProtocolHTTPJSON),
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{
			{ID: "weather", Name: "Weather", Description: "The weather in Paris, Oslo, Lisbon or Tokyo.", Tags: []string{"weather"},
				Examples: []string{"What is the weather in Paris?"}},
			{ID: "currency", Name: "Currency", Description: "Converts between USD, EUR, GBP and JPY.", Tags: []string{"currency"},
				Examples: []string{"Convert 100 EUR to USD"}},
		},
	}
}

// call is one tool call the agent decided on, with its result.
type call struct {
	name   string
	args   map[string]any
	result map[string]any
}

// answer is the agent's decision for one user message: the tool calls it
// makes and the text it answers with.
func answer(text string) (calls []call, reply string) {
	if m := convertRequest.FindStringSubmatch(text); m != nil {
		return convert(m[1], strings.ToUpper(m[2]), strings.ToUpper(m[3]))
	}
	if m := weatherQuestion.FindStringSubmatch(text); m != nil && (isCity(m[1]) || strings.Contains(strings.ToLower(text), "weather")) {
		return weather(m[1])
	}
	return nil, "I can tell you the weather in a city, or convert an amount between USD, EUR, GBP and JPY."
}

func isCity(name string) bool {
	_, ok := forecasts[strings.ToLower(name)]
	return ok
}

func weather(city string) ([]call, string) {
	name := strings.ToUpper(city[:1]) + strings.ToLower(city[1:])
	f, ok := forecasts[strings.ToLower(city)]
	c := call{name: "get_weather", args: map[string]any{"city": name}}
	if !ok {
		c.result = map[string]any{"error": "unknown city"}
		return []call{c}, fmt.Sprintf("Sorry, I have no forecast for %s.", name)
	}
	c.result = map[string]any{"sky": f.Sky, "celsius": f.Celsius}
	return []call{c}, fmt.Sprintf("It is %s in %s, %d °C.", f.Sky, name, f.Celsius)
}

func convert(amount, from, to string) ([]call, string) {
	v, _ := strconv.ParseFloat(amount, 64)
	c := call{name: "convert_currency", args: map[string]any{"amount": v, "from": from, "to": to}}
	rf, okf := rates[from]
	rt, okt := rates[to]
	if !okf || !okt {
		c.result = map[string]any{"error": "unknown currency"}
		return []call{c}, fmt.Sprintf("Sorry, I cannot convert %s to %s.", from, to)
	}
	out := float64(int64(v*rf/rt*100+0.5)) / 100
	c.result = map[string]any{"amount": out, "currency": to}
	return []call{c}, fmt.Sprintf("%s %s is %.2f %s.", amount, from, out, to)
}

// executor plays one turn: a working status per tool call and per tool
// result (a data part typed function_call / function_response in its
// metadata), then the answer as an artifact, then completed.
type executor struct{}

func (executor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var text string
		if ec.Message != nil {
			for _, p := range ec.Message.Parts {
				text += p.Text()
			}
		}
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		calls, reply := answer(text)
		for i, c := range calls {
			id := fmt.Sprintf("call-%d", i+1)
			if !yield(toolStatus(ec, "function_call", map[string]any{"id": id, "name": c.name, "args": c.args}), nil) ||
				!yield(toolStatus(ec, "function_response", map[string]any{"id": id, "name": c.name, "response": c.result}), nil) {
				return
			}
		}
		if !yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart(reply)), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (executor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// toolStatus is a working status update carrying a tool call or result.
func toolStatus(ec *a2asrv.ExecutorContext, kind string, data map[string]any) a2a.Event {
	part := a2a.NewDataPart(data)
	part.Metadata = map[string]any{"type": kind}
	return a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, part))
}
