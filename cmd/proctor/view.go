package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/server/ui"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// defaultViewPort is the port `proctor view` listens on unless told.
const defaultViewPort = 8765

func newViewCmd() *cobra.Command {
	var dbPath, host, tau2Data, traceWire string
	var port int
	var open bool
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Browse stored evaluations, conversations and reports in a web browser",
		Long: `view serves a web viewer of the results database on this machine: evaluations
(filter by domain, agent and status), one evaluation's scores and plots, each
conversation with its reward breakdown, eval-set runs and conformance reports.
Everything is served from the binary: it works offline.

A simulation whose DB check failed lists the records that differ, replayed on the
evaluated domain (tau2 domains need their data: --tau2-data). With --trace-wire
naming where runs recorded their wire traces, a simulation's page shows its
exchanges with the agent beside the conversation.`,
		Example: `  proctor view
  proctor view --db results.db --port 9000 --open
  proctor view --trace-wire traces/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if port < 0 || port > 65535 {
				return usageErr("--port %d: want 0 to 65535 (0 picks a free port)", port)
			}
			cat, err := newCatalog(tau2Data)
			if err != nil {
				return err
			}
			// The database is opened once here, to report at once a file
			// that is not one, then for each page: between pages view holds
			// no lock, so a run can store its results while it is open.
			db, path, err := openDBForReading(dbPath)
			if err != nil && !errors.Is(err, store.ErrLocked) {
				return failErr(err)
			}
			exists := db != nil || err != nil
			if db != nil {
				_ = db.Close()
			}
			h, err := ui.New(nil, ui.Options{StaleRunning: func() bool { active, err := store.WritersActiveAt(path); return !active && err == nil }, Logger: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil)),
				Open: func() (*store.DB, error) { return openForPage(path) }, DBDiff: catalogDiffer(cat), Task: catalogTask(cat), WireTrace: viewWireTrace(traceWire)})
			if err != nil {
				return failErr(err)
			}
			ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
			if err != nil {
				return failErr(fmt.Errorf("listen on %s port %d: %w (is another proctor view running? pick one with --port)", host, port, err))
			}
			url := "http://" + ln.Addr().String() + "/"
			note := ""
			if !exists {
				note = " (no database there yet)"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "proctor: viewing %s%s at %s; Ctrl-C stops\n", path, note, url)
			if open {
				openBrowser(cmd.ErrOrStderr(), url)
			}
			return serveViewer(cmd.Context(), ln, h)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&host, "host", "127.0.0.1", "address to listen on (the viewer has no authentication: keep it on loopback)")
	fl.IntVar(&port, "port", defaultViewPort, "port to listen on (0 picks a free one)")
	fl.BoolVar(&open, "open", false, "open the viewer in the default web browser")
	addTau2Flag(cmd, &tau2Data)
	fl.StringVar(&traceWire, traceWireFlag, "", "where the runs' wire traces are, as given to proctor run --"+traceWireFlag+" (a directory of <id>"+traceWireSuffix+", or FILE with {id}): a simulation's page shows its exchanges with the agent beside its conversation")
	return cmd
}

// viewWireTrace is the viewer's ui.Options.WireTrace for --trace-wire
// spec: the trace file of an evaluation, named as run named it; nil
// without the flag.
func viewWireTrace(spec string) func(evalID string) string {
	if spec == "" {
		return nil
	}
	return func(evalID string) string { return traceWirePath(spec, evalID) }
}

// viewLockTimeout is how long a page waits for a proctor writing the
// database before saying so.
const viewLockTimeout = time.Second

// openForPage opens the database at path read-only for one page, or
// returns nil when there is none yet.
func openForPage(path string) (*store.DB, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return store.Open(path, store.WithReadOnly(), store.WithLockTimeout(viewLockTimeout))
}

// serveViewer serves h on ln until ctx ends, then shuts down.
func serveViewer(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return failErr(err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return failErr(err)
	}
	return nil
}

// openBrowser asks the desktop to open url, saying so when it cannot.
func openBrowser(stderr io.Writer, url string) {
	name, args := "xdg-open", []string{url}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "proctor: --open: cannot start %s (%v); open %s yourself\n", name, err, url)
		return
	}
	go func() { _ = cmd.Wait() }() // reap it; the browser outlives the opener
}

// serveUI is the viewer `proctor serve` mounts at /ui/.
func serveUI(db *store.DB, cat *catalog.Catalog, stderr io.Writer) (http.Handler, error) {
	return ui.New(db, ui.Options{Base: server.PathUI, Logger: slog.New(slog.NewTextHandler(stderr, nil)), DBDiff: catalogDiffer(cat), Task: catalogTask(cat)})
}

// catalogTask finds a simulation's task on the evaluated domain of cat:
// the viewer's ui.Options.Task.
func catalogTask(cat *catalog.Catalog) func(eval *result.Evaluation, taskID string) (*domains.Task, error) {
	return func(eval *result.Evaluation, taskID string) (*domains.Task, error) {
		dom, err := domainOf(cat, eval)
		if err != nil {
			return nil, err
		}
		task, ok := dom.Task(taskID)
		if !ok {
			return nil, fmt.Errorf("domain %s no longer has task %s", eval.Domain, taskID)
		}
		return task, nil
	}
}

// formatHTML is --format html: one self-contained HTML file drawn with the
// viewer's templates, for a pull request or a CI artifact.
const formatHTML = "html"

// writeStoredHTML writes a stored evaluation as one self-contained HTML
// file, its latency histogram drawn from the stored request metrics.
func writeStoredHTML(ctx context.Context, db *store.DB, stdout io.Writer, out string, eval *result.Evaluation) error {
	lat, err := skills.NewResults(db).RequestLatencies(ctx, eval)
	if err != nil {
		return failErr(err)
	}
	if err := writeOut(stdout, out, func(w io.Writer) error { return ui.WriteEvaluation(w, eval, lat) }); err != nil {
		return failErr(err)
	}
	return nil
}

// writeStoredEvalSetHTML writes a stored eval-set run as one
// self-contained HTML file.
func writeStoredEvalSetHTML(ctx context.Context, db *store.DB, stdout io.Writer, out, id string) error {
	run, err := skills.NewResults(db).EvalSetRun(ctx, id)
	if err != nil {
		return failErr(err)
	}
	run.Status = shownStatus(run.Status, writersActive(db))
	if err := writeOut(stdout, out, func(w io.Writer) error { return ui.WriteEvalSetRun(w, run) }); err != nil {
		return failErr(err)
	}
	return nil
}

// writeStoredConformanceHTML writes a stored conformance report as one
// self-contained HTML file.
func writeStoredConformanceHTML(ctx context.Context, db *store.DB, stdout io.Writer, out, id string) error {
	rep, err := skills.LoadConformance(ctx, db, id)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
		return usageErr("%v", err)
	}
	if err != nil {
		return failErr(err)
	}
	if err := writeOut(stdout, out, func(w io.Writer) error { return ui.WriteConformance(w, rep) }); err != nil {
		return failErr(err)
	}
	return nil
}
