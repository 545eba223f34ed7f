// Command a2a serves the example weather agent (package weather) over A2A,
// for a first evaluation with proctor:
//
//	go run ./examples/a2a                      # serves http://127.0.0.1:9999
//	proctor evalset run --agent http://127.0.0.1:9999 examples/a2a/evals \
//	  --llm-cassette examples/a2a/judge.cassette.json --llm-mode replay
//
// See examples/a2a/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/proctor-eval/proctor/examples/a2a/weather"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9999", "address to listen on")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "weather agent:", err)
		os.Exit(1)
	}
}

// serve listens on addr and serves the agent until ctx ends.
func serve(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen (another process on %s? try --addr 127.0.0.1:0): %w", addr, err)
	}
	base := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: weather.Handler(base), ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("weather agent: A2A at %s (card at %s/.well-known/agent-card.json); Ctrl-C stops it\n", base, base)
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
