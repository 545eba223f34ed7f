package server_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// New binds the listeners; Serve serves until its context ends, then stops
// (running evaluations are interrupted and can be resumed).
func ExampleNew() {
	reg, err := catalog.Builtin()
	if err != nil {
		log.Fatal(err)
	}
	db, err := store.Open(filepath.Join(os.TempDir(), "proctor.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	srv, err := server.New(server.Config{Port: server.DefaultPort, AuthTokens: []string{"s3cret"}},
		&skills.Service{Domains: reg, Store: db})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("serving at", srv.URL())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := srv.Serve(ctx); err != nil {
		log.Fatal(err)
	}
}

// The card lists the interfaces (1.0 first, then 0.3) and the skills.
func ExampleCard() {
	card := server.Card("https://proctor.example.com", "proctor.example.com:9010")
	for _, in := range card.SupportedInterfaces {
		fmt.Println(in.ProtocolVersion, in.ProtocolBinding, in.URL)
	}
	for _, s := range card.Skills {
		fmt.Println(s.ID)
	}
	// Output:
	// 1.0 JSONRPC https://proctor.example.com/a2a/jsonrpc
	// 1.0 HTTP+JSON https://proctor.example.com/a2a/rest
	// 1.0 GRPC proctor.example.com:9010
	// 0.3 JSONRPC https://proctor.example.com/a2a/v0.3/jsonrpc
	// 0.3 HTTP+JSON https://proctor.example.com/a2a/v0.3/rest
	// run_evaluation
	// run_evalset
	// list_domains
	// get_results
	// check_conformance
}
