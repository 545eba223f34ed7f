package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// TestVersionNegotiation: every interface serves its own protocol version
// and answers a request for another with VersionNotSupportedError (A2A
// 1.0 §3.6.2; -32009, HTTP 400 with ErrorInfo VERSION_NOT_SUPPORTED, gRPC
// FAILED_PRECONDITION per §5.4). A request without the header is served
// by the interface's version (JSON-RPC: by its method's,
// TestHeaderlessJSONRPC); a patch number is ignored; the version may come
// as a query parameter (§3.6.1).
func TestVersionNegotiation(t *testing.T) {
	srv := startServer(t, Config{})
	base := srv.URL()
	const served, refused = "task not found", "version not supported"
	httpCall := func(t *testing.T, path, version, query string) string {
		t.Helper()
		method, body := http.MethodGet, ""
		url := base + path + "/tasks/no-such-task" + query
		if !strings.Contains(path, "rest") {
			method, url = http.MethodPost, base+path+query
			m := "GetTask"
			if strings.Contains(path, "v0.3") {
				m = "tasks/get"
			}
			body = `{"jsonrpc":"2.0","id":1,"method":"` + m + `","params":{"id":"no-such-task"}}`
		}
		if strings.Contains(path, "v0.3/rest") {
			url = base + path + "/v1/tasks/no-such-task" + query
		}
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if version != "" {
			req.Header.Set("A2A-Version", version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		text := string(raw)
		switch {
		case strings.Contains(text, "-32009") || (resp.StatusCode == 400 && strings.Contains(text, "VERSION_NOT_SUPPORTED")):
			return refused
		case strings.Contains(text, "-32001") || resp.StatusCode == 404:
			return served
		}
		return text
	}
	for _, tc := range []struct{ path, version, query, want string }{
		{PathJSONRPC, "1.0", "", served},
		{PathJSONRPC, "1.0.3", "", served},
		{PathJSONRPC, "", "?A2A-Version=1.0", served},
		{PathJSONRPC, "9.9", "", refused},
		{PathJSONRPC, "0.3", "", refused},
		{PathJSONRPC, "", "", served},
		{PathJSONRPC, "one", "", refused},
		{PathREST, "1.0", "", served},
		{PathREST, "9.9", "", refused},
		{PathREST, "0.3", "", refused},
		{PathREST, "", "", served},
		{PathJSONRPC03, "0.3", "", served},
		{PathJSONRPC03, "", "", served},
		{PathJSONRPC03, "1.0", "", refused},
		{PathREST03, "0.3", "", served},
		{PathREST03, "", "", served},
		{PathREST03, "9.9", "", refused},
	} {
		if got := httpCall(t, tc.path, tc.version, tc.query); got != tc.want {
			t.Errorf("%s with A2A-Version %q%s: %s, want %s", tc.path, tc.version, tc.query, got, tc.want)
		}
	}

	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := a2apb.NewA2AServiceClient(conn)
	for _, tc := range []struct {
		version string
		want    codes.Code
	}{{"1.0", codes.NotFound}, {"1.0.0", codes.NotFound}, {"9.9", codes.FailedPrecondition}, {"0.3", codes.FailedPrecondition}, {"", codes.NotFound}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if tc.version != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", tc.version)
		}
		_, err := client.GetTask(ctx, &a2apb.GetTaskRequest{Id: "no-such-task"})
		stream, serr := client.SubscribeToTask(ctx, &a2apb.SubscribeToTaskRequest{Id: "no-such-task"})
		if serr == nil {
			_, serr = stream.Recv()
		}
		cancel()
		if status.Code(err) != tc.want || status.Code(serr) != tc.want {
			t.Errorf("gRPC with a2a-version %q: GetTask %v, SubscribeToTask %v, want %s", tc.version, err, serr, tc.want)
		}
	}
}
