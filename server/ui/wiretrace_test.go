package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
)

// wireLine encodes one record as a trace line.
func wireLine(tb testing.TB, r a2aclient.WireRecord) string {
	tb.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b) + "\n"
}

// fixtureWireTrace is a trace of two exchanges of conversation ctx (a
// reply, then a stream that failed with 503) and one of another
// conversation. Credentials read [redacted] as a2aclient writes them, but
// for a raw Authorization value the viewer must redact again.
func fixtureWireTrace(tb testing.TB, ctx string) string {
	tb.Helper()
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	recs := []a2aclient.WireRecord{
		{Time: at, Exchange: 1, Transport: "http", Kind: a2aclient.WireRequest, Method: "GET", URL: "http://127.0.0.1:9/.well-known/agent-card.json"},
		{Time: at, Exchange: 2, ContextID: ctx, Transport: "http", Kind: a2aclient.WireRequest, Method: "POST", URL: "http://127.0.0.1:9/",
			Headers: map[string][]string{"Authorization": {"Bearer raw-secret-value"}, "X-Team": {a2aclient.Redacted}},
			Body:    `{"jsonrpc":"2.0","method":"SendMessage","params":{"token":"` + a2aclient.Redacted + `","text":"` + xss + `"}}`},
		{Time: at, Exchange: 2, ContextID: ctx, Transport: "http", Kind: a2aclient.WireResponse, Status: 200, ElapsedMS: 12.5},
		{Time: at, Exchange: 3, ContextID: "other", Transport: "http", Kind: a2aclient.WireRequest, Method: "POST", URL: "http://127.0.0.1:9/other"},
		{Time: at, Exchange: 2, ContextID: ctx, Transport: "http", Kind: a2aclient.WireEnd, ElapsedMS: 14, Body: `{"result":"booked"}`, BodyBytes: 19},
		{Time: at, Exchange: 4, ContextID: ctx, Transport: "http", Kind: a2aclient.WireRequest, Method: "POST", URL: "http://127.0.0.1:9/stream"},
		{Time: at, Exchange: 4, ContextID: ctx, Transport: "http", Kind: a2aclient.WireResponse, Status: 503, ElapsedMS: 3},
		{Time: at, Exchange: 4, ContextID: ctx, Transport: "http", Kind: a2aclient.WireEnd, ElapsedMS: 4, Error: "agent unavailable"},
	}
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(wireLine(tb, r))
	}
	return b.String()
}

func TestReadWireTrace(t *testing.T) {
	exs, more, cut, err := readWireTrace(strings.NewReader(fixtureWireTrace(t, "ctx-1")), "ctx-1")
	if err != nil || more != 0 || cut {
		t.Fatalf("readWireTrace: more %d, cut %v, %v", more, cut, err)
	}
	type brief struct {
		N             int64
		Method, URL   string
		Status, Steps int
		Error         string
	}
	var got []brief
	for _, e := range exs {
		got = append(got, brief{e.N, e.Method, e.URL, e.Status, len(e.Steps), e.Error})
	}
	want := []brief{{2, "POST", "http://127.0.0.1:9/", 200, 3, ""}, {4, "POST", "http://127.0.0.1:9/stream", 503, 3, "agent unavailable"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exchanges of ctx-1 (-want +got):\n%s", diff)
	}
	if h := strings.Join(exs[0].Steps[0].Headers, "\n"); strings.Contains(h, "raw-secret-value") || !strings.Contains(h, "Authorization: "+a2aclient.Redacted) {
		t.Errorf("request headers: the Authorization value is not redacted:\n%s", h)
	}
}

func TestReadWireTraceRefusesWhatProctorDidNotWrite(t *testing.T) {
	ok := `{"exchange":1,"context_id":"c","transport":"http","kind":"request"}` + "\n"
	tests := []struct {
		name, trace, want string
	}{
		{"not json", "hello\n", "line 1: not a wire record"},
		{"unknown field", ok + `{"exchange":1,"kind":"request","password":"x"}` + "\n", `line 2: not a wire record: json: unknown field "password"`},
		{"unknown kind", `{"exchange":1,"kind":"exec"}`, `line 1: unknown record kind "exec"`},
		{"no exchange", `{"kind":"request"}`, "line 1: exchange 0"},
		{"two objects on a line", `{"exchange":1,"kind":"end"} {"exchange":2,"kind":"end"}`, "line 1: not a wire record: more after the object"},
		{"a line too long", `{"exchange":1,"kind":"end","body":"` + strings.Repeat("a", maxWireLine) + `"}`, "longer than 1024 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, err := readWireTrace(strings.NewReader(tt.trace), "c")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("readWireTrace: %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestReadWireTraceBounds(t *testing.T) {
	var b strings.Builder
	for i := range maxWireExchanges + 7 {
		b.WriteString(fmt.Sprintf(`{"exchange":%d,"context_id":"c","transport":"http","kind":"request","body":%q}`+"\n", i+1, strings.Repeat("é", maxWireBody)))
	}
	exs, more, _, err := readWireTrace(strings.NewReader(b.String()), "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != maxWireExchanges || more != 7 {
		t.Errorf("%d exchanges and %d more, want %d and 7", len(exs), more, maxWireExchanges)
	}
	if body := exs[0].Steps[0].Body; len(body) > maxWireBody+len("…") || !exs[0].Steps[0].Cut || !strings.HasSuffix(body, "…") {
		t.Errorf("a body of %d bytes is shown as %d bytes (cut %v)", 2*maxWireBody, len(body), exs[0].Steps[0].Cut)
	}
}

func TestLoadWireTraceNotes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, ctx, want string }{
		{filepath.Join(dir, "none.jsonl"), "c", "no wire trace at"},
		{bad, "c", "is not one proctor wrote"},
		{bad, "", "no A2A context id"},
	} {
		if v := loadWireTrace(tt.path, tt.ctx); !strings.Contains(v.Note, tt.want) {
			t.Errorf("loadWireTrace(%s, %q): note %q, want %q", tt.path, tt.ctx, v.Note, tt.want)
		}
	}
}

// FuzzWireTrace feeds arbitrary files to the trace reader: it never
// panics, keeps within its bounds, and keeps only the asked conversation.
func FuzzWireTrace(f *testing.F) {
	f.Add(fixtureWireTrace(f, "c"))
	f.Add(`{"exchange":1,"context_id":"c","kind":"event","body":"\xff"}`)
	f.Add("{}\n\n" + `{"exchange":-1}`)
	f.Fuzz(func(t *testing.T, trace string) {
		exs, more, _, err := readWireTrace(strings.NewReader(trace), "c")
		if len(exs) > maxWireExchanges || more < 0 {
			t.Fatalf("%d exchanges, %d more", len(exs), more)
		}
		if err != nil && err.Error() == "" {
			t.Fatal("an error that says nothing")
		}
		for _, e := range exs {
			for _, s := range e.Steps {
				if len(s.Body) > maxWireBody+len("…") {
					t.Fatalf("a body of %d bytes shown", len(s.Body))
				}
				for _, h := range s.Headers {
					if name, _, _ := strings.Cut(h, ": "); a2aclient.IsCredentialHeader(name) && h != name+": "+a2aclient.Redacted {
						t.Fatalf("credential header shown: %q", h)
					}
				}
			}
		}
	})
}
