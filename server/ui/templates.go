package ui

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/report"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css
var stylesheet string

// layoutFiles are parsed into every page: the layout and the blocks pages
// share.
var layoutFiles = []string{"templates/layout.html", "templates/partials.html"}

// templates holds one template set per page, each the layout plus the
// page's own file.
type templates struct {
	pages map[string]*template.Template
}

// parseTemplates parses the embedded templates: the layout and partials
// once, then every other file in a clone of them.
func parseTemplates() (*templates, error) {
	base, err := template.New("layout").Funcs(funcs()).ParseFS(templateFS, layoutFiles...)
	if err != nil {
		return nil, fmt.Errorf("ui: parse layout: %w", err)
	}
	files, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("ui: list templates: %w", err)
	}
	t := &templates{pages: map[string]*template.Template{}}
	for _, f := range files {
		if f == layoutFiles[0] || f == layoutFiles[1] {
			continue
		}
		clone, err := base.Clone()
		if err != nil {
			return nil, fmt.Errorf("ui: clone layout: %w", err)
		}
		if _, err := clone.ParseFS(templateFS, f); err != nil {
			return nil, fmt.Errorf("ui: parse %s: %w", f, err)
		}
		t.pages[strings.TrimSuffix(path.Base(f), ".html")] = clone
	}
	return t, nil
}

// execute renders page name's layout with p.
func (t *templates) execute(w io.Writer, name string, p page) error {
	tpl, ok := t.pages[name]
	if !ok {
		return fmt.Errorf("ui: no template %q", name)
	}
	return tpl.ExecuteTemplate(w, "layout", p)
}

// funcs are the helpers templates call.
func funcs() template.FuncMap {
	return template.FuncMap{
		"f3":          func(v float64) string { return fmt.Sprintf("%.3f", v) },
		"reliability": report.ReliabilityLines,
		"f1":          func(v float64) string { return fmt.Sprintf("%.1f", v) },
		"pct":         func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) },
		"usd":         func(v float64) string { return fmt.Sprintf("$%.4f", v) },
		"ms":          formatMS,
		"when":        func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"short":       shortID,
		"q":           url.QueryEscape,
		"barw":        func(v float64) string { return fmt.Sprintf("%.1f", 100*clamp01(v)) },
		"css":         func() template.CSS { return template.CSS(stylesheet) },
		"add":         func(a, b int) int { return a + b },
		"passks":      passKs,
		"joinstr":     strings.Join,
		"plural":      report.Plural,
		"index1":      index1,
		"trials":      trials,
		"ciw":         func(lo, hi float64) string { return fmt.Sprintf("%.1f", 100*math.Max(0, clamp01(hi)-clamp01(lo))) },
	}
}

// formatMS renders milliseconds readably: 0.5ms, 120ms, 2.3s.
func formatMS(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.1fs", v/1000)
	case v >= 10:
		return fmt.Sprintf("%.0fms", v)
	default:
		return fmt.Sprintf("%.1fms", v)
	}
}

// shortID is report.ShortID: the full id stays in the link and the title.
func shortID(id string) string { return report.ShortID(id) }

func clamp01(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return math.Max(0, math.Min(1, v))
}

// index1 is the n-th (1-based) of list, or nil when there is none: the
// thoughts of an invocation by its number.
func index1(list [][]string, n int) []string {
	if n < 1 || n > len(list) {
		return nil
	}
	return list[n-1]
}

// trials lists the trial numbers of n trials: 0 to n-1.
func trials(n int) []int {
	out := make([]int, max(n, 0))
	for i := range out {
		out[i] = i
	}
	return out
}
