package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second, true},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"milliseconds first", map[string]string{"retry-after-ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{"bad milliseconds fall back", map[string]string{"retry-after-ms": "soon", "Retry-After": "3"}, 3 * time.Second, true},
		{"negative", map[string]string{"Retry-After": "-5"}, 0, false},
		{"absurd", map[string]string{"Retry-After": "1e300"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "tomorrow-ish"}, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, now)
			if got != tc.want || ok != tc.ok {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	tr := newRetryTransport(nil, 10, 3*time.Second)
	for attempt := range 40 {
		full := tr.maxWait
		if attempt < 20 {
			full = min(baseBackoff<<attempt, tr.maxWait)
		}
		for range 50 {
			d := tr.backoff(attempt)
			if d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, full/2, full)
			}
		}
	}
}

func TestTransportDefaults(t *testing.T) {
	cases := []struct {
		retries     int
		wait        time.Duration
		wantRetries int
		wantWait    time.Duration
	}{
		{0, 0, 4, 30 * time.Second},
		{-1, time.Second, 0, time.Second},
		{7, -time.Second, 7, 30 * time.Second},
	}
	for _, tc := range cases {
		tr := newRetryTransport(nil, tc.retries, tc.wait)
		if tr.maxRetries != tc.wantRetries || tr.maxWait != tc.wantWait || tr.base != http.DefaultTransport {
			t.Errorf("newRetryTransport(%d, %v) = %d retries, %v wait", tc.retries, tc.wait, tr.maxRetries, tr.maxWait)
		}
	}
}

// TestTransportReplaysBody sends a body without GetBody through failures
// and checks every attempt carried it whole, and that the waits were the
// server's, capped.
func TestTransportReplaysBody(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	statuses := []int{503, 429, 200}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, string(b))
		mu.Unlock()
		if n == 0 {
			w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
		} else if n == 1 {
			w.Header().Set("retry-after-ms", "40")
		}
		w.WriteHeader(statuses[min(n, 2)])
		_, _ = io.WriteString(w, "reply")
	}))
	t.Cleanup(srv.Close)

	var waits []time.Duration
	tr := newRetryTransport(nil, 5, 2*time.Second)
	tr.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	ctx, st := withCallState(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, io.NopCloser(strings.NewReader("the body")))
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "reply" {
		t.Errorf("reply %d %q", resp.StatusCode, b)
	}
	if strings.Join(bodies, "|") != "the body|the body|the body" {
		t.Errorf("bodies = %q", bodies)
	}
	if len(waits) != 2 || waits[0] != 2*time.Second || waits[1] != 40*time.Millisecond {
		t.Errorf("waits = %v, want [2s (an hour, capped) 40ms]", waits)
	}
	if attempts, status, _, _ := st.snapshot(); attempts != 3 || status != 200 {
		t.Errorf("state: %d attempts, status %d", attempts, status)
	}
}

func TestBoundedBody(t *testing.T) {
	for _, tc := range []struct {
		size    int
		wantErr bool
	}{{99, false}, {100, false}, {101, true}, {5000, true}} {
		st := &callState{status: 200}
		b := &boundedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", tc.size))), left: 100, limit: 100, st: st}
		got, err := io.ReadAll(b)
		if (err != nil) != tc.wantErr || len(got) > 100 {
			t.Errorf("size %d: read %d bytes, err %v", tc.size, len(got), err)
		}
		if _, _, _, bodyErr := st.snapshot(); (bodyErr != nil) != tc.wantErr {
			t.Errorf("size %d: recorded body error %v", tc.size, bodyErr)
		}
	}
}
