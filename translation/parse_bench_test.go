package translation

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// BenchmarkParseReply reads the replies a simulation's agent typically
// gives: a tool call in <json> tags, and a bare JSON respond call.
func BenchmarkParseReply(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"tagged", `<json>{"name":"add","arguments":{"n":3}}</json>`},
		{"json", `{"name":"respond","arguments":{"content":"Done, the count is 3."}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			parts := []*a2a.Part{a2a.NewTextPart(c.text)}
			b.ReportAllocs()
			for range b.N {
				if r := ParseReply(parts); len(r.ToolCalls)+len(r.Text) == 0 {
					b.Fatalf("%+v", r)
				}
			}
		})
	}
}
