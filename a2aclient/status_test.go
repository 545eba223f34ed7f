package a2aclient

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// TestCreatedIsSuccess: some servers (@a2a-js/sdk's 0.3 REST layer) answer
// message:send with 201 or 202. The reply is read; the metrics keep the
// status the agent sent.
func TestCreatedIsSuccess(t *testing.T) {
	for _, status := range []int{http.StatusCreated, http.StatusAccepted} {
		real := agenttest.Handler(agenttest.Sorry)
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(agenttest.Card(srv.URL)))
		mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			real.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(status)
			_, _ = w.Write(rec.Body.Bytes())
		}))
		c, err := Dial(testCtx(t), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.NewConversation().Send(testCtx(t), []*a2a.Part{a2a.NewTextPart("hi")})
		if err != nil || PartsText(resp.Parts) != agenttest.SorryReply || resp.Metrics.HTTPStatus != status {
			t.Errorf("status %d: err %v, reply %q, recorded %d", status, err, PartsText(resp.Parts), resp.Metrics.HTTPStatus)
		}
		_ = c.Close()
		srv.Close()
	}
}
