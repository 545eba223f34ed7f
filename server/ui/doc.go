// Package ui is proctor's web viewer: server-rendered HTML pages over a
// results database, for `proctor view` and for `proctor serve` (which
// mounts them at /ui/ behind its bearer-token auth).
//
// The pages are Go html/template templates and one stylesheet, embedded in
// the binary: nothing is fetched from a CDN, there is no JavaScript, and
// every plot (pass^k and pass@k curves, the latency histogram, reward bars)
// is inline SVG drawn by Go code. The same templates render the
// self-contained HTML files of `--format html` (WriteEvaluation,
// WriteEvalSetRun, WriteConformance), with the stylesheet inlined.
//
// # Pages
//
//	/                          evaluations, newest first, filtered by domain, agent and status, paged by cursor
//	/eval/{id}                 one evaluation: scores, curves, tasks and why they failed, terminations, latency, tokens and cost;
//	                           ?outcome, ?termination, ?check and ?q search its simulations
//	/eval/{id}/sim?id={sim}    one simulation: the conversation beside its task, and its reward breakdown
//	/evalsets, /evalset/{id}   eval-set runs, and one run's cases, metrics and scores
//	/evalset/{id}/case?id={set}/{case}  one case: each run invocation by invocation, expected beside actual
//	/evalsets/matrix?id=..&id=..        several eval-set runs side by side, a row per case
//	/conformance, /conformance/{id}  conformance reports, requirements grouped, failures with the exchange
//	/compare?a={id}&b={id}     a comparison of two evaluations (see compare.go); ?id=..&id=.. from the list
//	/static/style.css          the stylesheet
//
// Every page reads the store with paged listings or single-record reads:
// the evaluations list reads one page of records whatever the number
// stored, and a simulation page reads that one simulation.
package ui
