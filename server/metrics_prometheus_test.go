//go:build unix

package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/server"
)

// TestPrometheusScrapesServer has a real Prometheus (Debian's package)
// scrape a live server every second and answers a query for a counter an
// evaluation moved.
func TestPrometheusScrapesServer(t *testing.T) {
	bin := server.NeedTool(t, "prometheus")
	ev := runObservedEvaluation(t, server.Config{})
	target := strings.TrimPrefix(strings.TrimSuffix(ev.f.srv.MetricsURL(), server.PathMetrics), "http://")
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	err := os.WriteFile(config, []byte(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: proctor
    metrics_path: /metrics
    static_configs:
      - targets: ["`+target+`"]
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	var out logBuffer
	cmd := exec.Command(bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})

	query := "http://" + addr + "/api/v1/query?query=" + url.QueryEscape(`proctor_simulations_finished_total{job="proctor",domain="mock",termination_reason="user_stop"}`)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		if v, ok := queryValue(query); ok {
			if v != "6" {
				t.Fatalf("Prometheus says %s simulations, want 6", v)
			}
			return
		}
		select {
		case <-tick.C:
		case <-exited:
			t.Fatalf("prometheus exited:\n%s", out.Bytes())
		case <-deadline:
			t.Fatalf("no sample in 30s; prometheus said:\n%s", out.Bytes())
		}
	}
}

// queryValue is the value of a Prometheus instant query's one sample,
// false until there is one.
func queryValue(query string) (string, bool) {
	resp, err := http.Get(query)
	if err != nil {
		return "", false
	}
	defer func() { _ = resp.Body.Close() }()
	var answer struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&answer) != nil || answer.Status != "success" || len(answer.Data.Result) != 1 {
		return "", false
	}
	v, ok := answer.Data.Result[0].Value[1].(string)
	return v, ok
}
