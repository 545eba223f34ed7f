package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// Limits on what a request may ask for.
const (
	// maxParam bounds every query parameter and path id: longer values
	// are refused before the store is asked.
	maxParam = 512
	// DefaultPageSize is the number of rows a listing page shows.
	DefaultPageSize = 50
	// MaxPageSize is the most rows a listing page shows, whatever ?limit says.
	MaxPageSize = 500
)

// Options configure a Handler.
type Options struct {
	// Base is the URL path the pages are served under, with a trailing
	// slash: "/" for `proctor view`, "/ui/" under `proctor serve`. Empty
	// means "/". The handler strips it from request paths itself.
	Base string
	// StaleRunning, when set, reports whether evaluations stored as
	// running are stale (no proctor has the database open for writing, so
	// none can be running): they are then shown as interrupted.
	StaleRunning func() bool
	// Logger receives errors reading the store; nil discards them.
	Logger *slog.Logger
	// Open, when set, opens the database for each request and closes it
	// after, in place of the db given to New: `proctor view` then holds
	// no lock between pages, and a proctor that writes the database can
	// open it meanwhile. It returns a nil DB when there is no database
	// yet, and an error wrapping store.ErrLocked when a writer holds it.
	Open func() (*store.DB, error)
	// DBDiff, when set, explains the failed DB check of eval's
	// simulations record by record (scoring.DBDiff on the evaluated
	// domain, as proctor show does); the simulation page then lists the
	// records that differ. Without it the page shows the hashes only.
	DBDiff func(eval *result.Evaluation) report.DBDiffFunc
	// WireTrace, when set, names the wire trace file of evaluation
	// evalID (proctor run --trace-wire), "" for none: the simulation page
	// then shows its conversation's exchanges with the agent beside it.
	// The file is read bounded and strictly; it need not exist.
	WireTrace func(evalID string) string
	// Task, when set, finds the task a simulation of eval played (on the
	// evaluated domain, as proctor show does), or says why it cannot: the
	// simulation page then shows the user's instructions beside the
	// conversation. Without it the page shows the expected actions its
	// checks name.
	Task func(eval *result.Evaluation, taskID string) (*domains.Task, error)
	// Results, when set, is the repository the pages read the evaluations
	// and eval-set runs of a database through; nil: skills.NewResults.
	Results func(db *store.DB) Results
}

// Results is what the viewer reads stored evaluations and eval-set runs
// through: loaded and scored as every front end reads them
// (*skills.Results is the one proctor uses).
type Results interface {
	// Evaluation reads an evaluation with its simulations; an eval-set
	// run's id is an error wrapping evaluation.ErrEvalSetRun.
	Evaluation(ctx context.Context, id string) (*result.Evaluation, error)
	// EvaluationBrief reads an evaluation without its simulations (with
	// a row per simulation when withRows).
	EvaluationBrief(ctx context.Context, id string, withRows bool) (*result.Evaluation, error)
	// EvalSetRun reads an eval-set run with its case results; an
	// evaluation's id is an error wrapping evaluation.ErrNotEvalSetRun.
	EvalSetRun(ctx context.Context, id string) (*result.EvalSetRun, error)
	// EvalSetRunHead reads an eval-set run's own record, without its
	// case results.
	EvalSetRunHead(ctx context.Context, id string) (*result.EvalSetRun, error)
	// Completed reads the completed evaluations of a domain and split,
	// without their simulations: what a leaderboard ranks.
	Completed(ctx context.Context, domain, split string) ([]*result.Evaluation, error)
	// EvaluationHeads pages through the evaluations of simulations as
	// stored, without their simulations (the evaluations list).
	EvaluationHeads(ctx context.Context, req skills.ResultsRequest) (*skills.ResultsPage, error)
	// EvalSetRuns pages through the eval-set runs, without their case
	// results.
	EvalSetRuns(ctx context.Context, req skills.ResultsRequest) (*skills.EvalSetRunsPage, error)
	// ConformanceRuns pages through the conformance runs.
	ConformanceRuns(ctx context.Context, req skills.ResultsRequest) (*skills.ConformancePage, error)
	// Conformance reads a conformance report.
	Conformance(ctx context.Context, id string) (*conformance.Report, error)
	// RequestLatencies reads the latencies of the requests of a loaded
	// evaluation's simulations.
	RequestLatencies(ctx context.Context, eval *result.Evaluation) ([]float64, error)
	// Simulation reads one simulation with its evaluation's own record;
	// one that cannot be decoded is a *skills.UnreadableError.
	Simulation(ctx context.Context, evalID, simID string) (*skills.StoredSimulation, error)
	// CaseRun reads one trial of an eval-set run's case: store.ErrNotFound
	// when it is not stored, a *skills.UnreadableError when it cannot be
	// decoded.
	CaseRun(ctx context.Context, runID, setID, caseID string, n int) (*result.CaseResult, error)
}

// Handler serves the viewer's pages from a results database.
type Handler struct {
	db   *store.DB
	opts Options
	tpl  *templates
	mux  *http.ServeMux
}

// New returns a Handler over db. db may be nil (no database yet): the
// listings are then empty and say how to make one.
func New(db *store.DB, opts Options) (*Handler, error) {
	if opts.Base == "" {
		opts.Base = "/"
	}
	if !strings.HasPrefix(opts.Base, "/") || !strings.HasSuffix(opts.Base, "/") {
		return nil, fmt.Errorf("ui: base path %q must start and end with a slash", opts.Base)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Results == nil {
		opts.Results = func(db *store.DB) Results { return skills.NewResults(db) }
	}
	tpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	h := &Handler{db: db, opts: opts, tpl: tpl, mux: http.NewServeMux()}
	h.routes()
	return h, nil
}

func (h *Handler) routes() {
	h.mux.HandleFunc("GET /{$}", h.evaluations)
	h.mux.HandleFunc("GET /eval/{id}", h.evaluation)
	h.mux.HandleFunc("GET /eval/{id}/sim", h.simulation)
	h.mux.HandleFunc("GET /evalsets", h.evalSetRuns)
	h.mux.HandleFunc("GET /evalsets/matrix", h.evalSetMatrix)
	h.mux.HandleFunc("GET /evalset/{id}", h.evalSetRun)
	h.mux.HandleFunc("GET /evalset/{id}/case", h.evalSetCase)
	h.mux.HandleFunc("GET /conformance", h.conformanceRuns)
	h.mux.HandleFunc("GET /conformance/{id}", h.conformanceRun)
	h.mux.HandleFunc("GET /compare", h.compare)
	h.mux.HandleFunc("GET /leaderboard", h.leaderboard)
	h.mux.HandleFunc("GET /static/style.css", h.stylesheet)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, "no such page: %s", r.URL.Path)
	})
}

// ServeHTTP serves the pages under the handler's base path.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Frame-Options", "DENY")
	// Pages hold a tenant's results: no cache (a shared proxy's, or the
	// browser's after sign-out) may keep them. The stylesheet says
	// otherwise for itself.
	hdr.Set("Cache-Control", "no-store")
	base := strings.TrimSuffix(h.opts.Base, "/")
	if !strings.HasPrefix(r.URL.Path, base+"/") {
		h.fail(w, r, http.StatusNotFound, "no such page: %s", r.URL.Path)
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = strings.TrimPrefix(r.URL.Path, base)
	r2.URL.RawPath = ""
	if h.opts.Open != nil && r2.URL.Path != "/static/style.css" {
		db, err := h.opts.Open()
		if errors.Is(err, store.ErrLocked) {
			h.fail(w, r, http.StatusServiceUnavailable, "the results database is held by a proctor that is writing it (run, rescore or serve): reload when it is done, or browse /ui/ on that proctor serve. %v", err)
			return
		}
		if err != nil {
			h.fail(w, r, http.StatusInternalServerError, "the results database cannot be opened: %v", err)
			return
		}
		if db != nil {
			defer db.Close()
		}
		r2 = r2.WithContext(context.WithValue(r2.Context(), dbKey{}, db))
	}
	h.mux.ServeHTTP(w, r2)
}

// dbKey keys the database opened for one request (Options.Open).
type dbKey struct{}

// dbOf is the database to read for r: the one opened for it, else the
// handler's. It is nil when there is no database yet.
func (h *Handler) dbOf(r *http.Request) *store.DB {
	if db, ok := r.Context().Value(dbKey{}).(*store.DB); ok {
		return db
	}
	return h.db
}

// results is the repository of db, the database of a request (dbOf).
func (h *Handler) results(db *store.DB) Results { return h.opts.Results(db) }

// param returns query parameter name, or an error when it is too long.
func param(r *http.Request, name string) (string, error) {
	v := r.URL.Query().Get(name)
	if len(v) > maxParam {
		return "", fmt.Errorf("parameter %s is %d bytes long; at most %d are accepted", name, len(v), maxParam)
	}
	return strings.TrimSpace(v), nil
}

// pathID returns path wildcard name, or an error when it is empty or too
// long.
func pathID(r *http.Request, name string) (string, error) {
	v := r.PathValue(name)
	if v == "" || len(v) > maxParam {
		return "", fmt.Errorf("%s: want an id of 1 to %d characters", name, maxParam)
	}
	return v, nil
}

// recordOf reads the id of a one-record page (a what, named in errors) and
// the database to read it from; when either is missing it answers (400 or
// 404) and ok is false.
func (h *Handler) recordOf(w http.ResponseWriter, r *http.Request, what string) (id string, db *store.DB, ok bool) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "%v", err)
		return "", nil, false
	}
	if db = h.dbOf(r); db == nil {
		h.fail(w, r, http.StatusNotFound, "no %s %q: there is no results database yet", what, id)
		return "", nil, false
	}
	return id, db, true
}

// pageParams reads a listing's paging: ?before (the cursor) and ?limit.
func pageParams(r *http.Request) (before string, limit int, err error) {
	if before, err = param(r, "before"); err != nil {
		return "", 0, err
	}
	limit, err = pageSize(r)
	return before, limit, err
}

// pageSize reads ?limit: DefaultPageSize when absent, at most MaxPageSize.
func pageSize(r *http.Request) (int, error) {
	v, err := param(r, "limit")
	if err != nil || v == "" {
		return DefaultPageSize, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("limit %q: want a whole number from 1 to %d", v, MaxPageSize)
	}
	return min(n, MaxPageSize), nil
}

// page is what every template receives.
type page struct {
	Title string
	// Base is the path prefix of links, ending in a slash.
	Base string
	// Nav names the section the page belongs to, for the navigation bar.
	Nav string
	// Standalone is set when rendering one self-contained file: the
	// stylesheet is inlined and links to other pages are left out.
	Standalone bool
	Body       any
}

// render writes template name with body, or an error page when it fails.
// It renders to a buffer first so that a failing template never leaves a
// half-written page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, name, title, nav string, body any) {
	var buf bytes.Buffer
	err := h.tpl.execute(&buf, name, page{Title: title, Base: h.opts.Base, Nav: nav, Body: body})
	if err != nil {
		h.opts.Logger.ErrorContext(r.Context(), "ui: render", "page", name, "err", err)
		http.Error(w, "the page could not be drawn; see the server's log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.Copy(w, &buf)
}

// errorPage is the body of an error page.
type errorPage struct {
	Status  int
	Message string
}

// fail answers with an error page saying what went wrong.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	var buf bytes.Buffer
	err := h.tpl.execute(&buf, "error", page{Title: http.StatusText(status), Base: h.opts.Base, Body: errorPage{status, msg}})
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.Copy(w, &buf)
}

// storeFail answers for an error reading the store: 404 for a missing or
// ambiguous id, else 500 (logged).
func (h *Handler) storeFail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrAmbiguous):
		h.fail(w, r, http.StatusNotFound, "%v", err)
	case errors.Is(err, context.Canceled):
		// The browser went away.
	default:
		h.opts.Logger.ErrorContext(r.Context(), "ui: read store", "path", r.URL.Path, "err", err)
		h.fail(w, r, http.StatusInternalServerError, "the results database could not be read: %v", err)
	}
}

func (h *Handler) stylesheet(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=300")
	_, _ = io.WriteString(w, stylesheet)
}
