package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lockedBuffer is a log sink the server's goroutines write to while the
// test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// rpcCode posts a JSON-RPC request for method (GetTask or tasks/get of an
// unknown task) to path with the token and, unless version is "", the
// A2A-Version header, and returns the JSON-RPC error code.
func rpcCode(t *testing.T, srv *Server, path, version, method string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"q","method":"` + method + `","params":{"id":"no-such-task"}}`
	head := "POST " + path + " HTTP/1.1\r\nHost: proctor\r\nContent-Type: application/json\r\nAuthorization: Bearer " + testToken + "\r\n"
	if version != "" {
		head += "A2A-Version: " + version + "\r\n"
	}
	code, reply := rawExchange(t, srv, head+"Content-Length: "+itoa(len(body))+"\r\n\r\n"+body)
	var out struct {
		ID    string
		Error *struct{ Code int }
	}
	if err := json.Unmarshal([]byte(reply), &out); err != nil || out.Error == nil || out.ID != "q" || code != http.StatusOK {
		t.Fatalf("POST %s %s (A2A-Version %q): HTTP %d %s, want a JSON-RPC error with id \"q\"", path, method, version, code, clip([]byte(reply)))
	}
	return out.Error.Code
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestJSONRPCVersionByMethod: every JSON-RPC path (the root, the 1.0 and
// the 0.3 path) serves a request without A2A-Version by the version its
// method belongs to, and the request log says so; an explicit header the
// path does not declare is refused -32009 (the root declares both); an
// explicit header with the other version's method is a method the version
// does not have (-32601). Served here means TaskNotFoundError, -32001.
func TestJSONRPCVersionByMethod(t *testing.T) {
	logs := &lockedBuffer{}
	srv := startServer(t, Config{AuthTokens: []string{testToken}, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	const served, refused, unknown = -32001, -32009, -32601
	type row struct{ path, version, method string }
	want := map[row]int{
		{"/", "", "GetTask"}: served, {"/", "", "tasks/get"}: served,
		{"/", "1.0", "GetTask"}: served, {"/", "1.0", "tasks/get"}: unknown,
		{"/", "0.3", "tasks/get"}: served, {"/", "0.3", "GetTask"}: unknown,
		{"/", "9.9", "GetTask"}: refused, {"/", "9.9", "tasks/get"}: refused,
		{PathJSONRPC, "", "GetTask"}: served, {PathJSONRPC, "", "tasks/get"}: served,
		{PathJSONRPC, "1.0", "GetTask"}: served, {PathJSONRPC, "1.0", "tasks/get"}: unknown,
		{PathJSONRPC, "0.3", "GetTask"}: refused, {PathJSONRPC, "0.3", "tasks/get"}: refused,
		{PathJSONRPC03, "", "GetTask"}: served, {PathJSONRPC03, "", "tasks/get"}: served,
		{PathJSONRPC03, "0.3", "tasks/get"}: served, {PathJSONRPC03, "0.3", "GetTask"}: unknown,
		{PathJSONRPC03, "1.0", "GetTask"}: refused, {PathJSONRPC03, "1.0", "tasks/get"}: refused,
	}
	got := map[row]int{}
	for r := range want {
		got[r] = rpcCode(t, srv, r.path, r.version, r.method)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON-RPC error codes by path, A2A-Version and method (-want +got):\n%s", diff)
	}

	// The log: a header-less request's record names the version its
	// method chose, and says it was inferred.
	inferred := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var rec struct {
			Method, Version string
			Inferred        bool `json:"version_inferred"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Inferred {
			inferred[rec.Method+" "+rec.Version]++
		}
	}
	if diff := cmp.Diff(map[string]int{"GetTask 1.0": 3, "GetTask 0.3": 3}, inferred); diff != "" {
		t.Errorf("request records with version_inferred, by method and version (-want +got):\n%s", diff)
	}
}

// TestRootAndCardPaths: the card is served, without a token, below the
// base URL and below every HTTP interface's URL, at A2A's well-known path
// and the older agent.json; GET / points to it; other paths are a 404 and
// other methods on / a 405, each saying where to look, in JSON.
func TestRootAndCardPaths(t *testing.T) {
	srv := startServer(t, Config{AuthTokens: []string{testToken}})
	type answer struct {
		Status  int
		HasCard bool // a card naming proctor
		Says    string
	}
	get := func(method, path string) answer {
		code, body := rawExchange(t, srv, method+" "+path+" HTTP/1.1\r\nHost: proctor\r\nContent-Length: 0\r\n\r\n")
		var out struct {
			Name      string `json:"name"`
			AgentCard string `json:"agent_card"`
			Error     string `json:"error"`
		}
		_ = json.Unmarshal([]byte(body), &out)
		a := answer{Status: code, HasCard: out.Name == "proctor" && out.AgentCard == ""}
		switch {
		case out.Error != "":
			a.Says = "error, card at " + out.AgentCard
		case out.AgentCard != "":
			a.Says = "card at " + out.AgentCard
		}
		return a
	}
	card := answer{Status: 200, HasCard: true}
	want := map[string]answer{
		"GET /":                       {Status: 200, HasCard: false, Says: "card at /.well-known/agent-card.json"},
		"GET /no/such/path":           {Status: 404, Says: "error, card at /.well-known/agent-card.json"},
		"PUT /":                       {Status: 405, Says: "error, card at /.well-known/agent-card.json"},
		"GET /.well-known/x":          {Status: 404, Says: "error, card at /.well-known/agent-card.json"},
		"GET /.well-known/agent.json": card,
	}
	for _, base := range []string{"", PathJSONRPC, PathREST, PathJSONRPC03, PathREST03} {
		for _, p := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
			want["GET "+base+p] = card
		}
	}
	got := map[string]answer{}
	for k := range want {
		method, path, _ := strings.Cut(k, " ")
		got[k] = get(method, path)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers by path (-want +got):\n%s", diff)
	}
}
