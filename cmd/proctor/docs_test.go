package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// TestCLIReferenceIsCurrent fails when docs/cli.md says other than the
// commands do: a flag, default, example or description changed without
// `make docs`.
func TestCLIReferenceIsCurrent(t *testing.T) {
	r := mustCLI(t, exitOK, "docs")
	path := filepath.Join("..", "..", filepath.FromSlash(cliReferencePath))
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the CLI reference: %v (generate it with `make docs`)", err)
	}
	if diff := cmp.Diff(strings.Split(string(committed), "\n"), strings.Split(r.stdout, "\n")); diff != "" {
		t.Errorf("%s is stale: run `make docs` and commit it (-committed +generated):\n%s", cliReferencePath, diff)
	}
}

// TestCLIReferenceCoversEveryCommand checks the reference's shape: a
// section for every command `--help` lists, subcommands included, a flag
// table wherever a command has flags, and no hidden command.
func TestCLIReferenceCoversEveryCommand(t *testing.T) {
	r := mustCLI(t, exitOK, "docs")
	var headings []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if name, ok := strings.CutPrefix(line, "## "); ok {
			headings = append(headings, name)
		}
	}
	want := []string{"proctor", "proctor audit", "proctor compare", "proctor config", "proctor conformance",
		"proctor domains", "proctor domains install", "proctor evalset", "proctor evalset rescore",
		"proctor evalset run", "proctor healthcheck", "proctor import", "proctor leaderboard", "proctor merge",
		"proctor refagent", "proctor rescore", "proctor results", "proctor run", "proctor serve",
		"proctor show", "proctor user-audit", "proctor view"}
	if diff := cmp.Diff(want, headings); diff != "" {
		t.Errorf("command sections (-want +got):\n%s", diff)
	}
	for _, s := range []string{"| `--num-trials int` | `1` |", "| `--max-simulation-concurrency int` | 64 per CPU, within the open-file limit |", "Usage: `proctor refagent [flags]` (also `agent`)"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("the reference lacks %q", s)
		}
	}
}

// markdownLink is an inline Markdown link or image: its target, without a
// title.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestDocLinksResolve checks every relative link of README.md and
// docs/*.md: the file or folder it names exists, and the heading its
// #anchor names is in that Markdown file (as GitHub spells anchors).
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	if len(pages) < 2 {
		t.Fatalf("no pages in docs/: %v", pages)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		anchors[path] = headingAnchors(string(text))
		return anchors[path]
	}
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, line := range proseLines(string(text)) {
			for _, m := range markdownLink.FindAllStringSubmatch(line.text, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: link %q: %v", rel, line.number, target, err)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(path, ".md") {
					continue
				}
				if !anchorsOf(path)[anchor] {
					t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", rel, line.number, target, filepath.Base(path), anchor)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link found: the test reads nothing")
	}
}

// proseLine is a line of Markdown outside code, numbered from 1.
type proseLine struct {
	number int
	text   string
}

// proseLines is text's lines outside fenced code blocks, with inline code
// spans blanked out, so that a link in an example is not taken for one.
func proseLines(text string) []proseLine {
	var lines []proseLine
	fence := ""
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		lines = append(lines, proseLine{number: i + 1, text: inlineCode.ReplaceAllString(l, "``")})
	}
	return lines
}

// inlineCode is a code span of one or more backticks.
var inlineCode = regexp.MustCompile("(`+)[^`]*?`+")

// headingAnchors is the set of anchors GitHub gives text's headings:
// lowercased, punctuation but hyphens and underscores removed, spaces made
// hyphens, and -1, -2... added to repeats.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		trimmed := strings.TrimLeft(l.text, "#")
		if trimmed == l.text || !strings.HasPrefix(trimmed, " ") {
			continue
		}
		anchor := githubAnchor(headingText(text, l.number))
		if n := seen[anchor]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", anchor, n)] = true
		} else {
			anchors[anchor] = true
		}
		seen[anchor]++
	}
	return anchors
}

// headingText is the text of the heading on line number of text, code
// spans kept (their words count in the anchor).
func headingText(text string, number int) string {
	line := strings.Split(text, "\n")[number-1]
	return strings.TrimSpace(strings.TrimLeft(line, "#"))
}

// githubAnchor spells a heading's anchor as GitHub does.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// TestGitHubAnchor pins the anchor spelling the link check relies on to
// anchors GitHub gave headings of this repository's README.
func TestGitHubAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"Agents that speak ECP: `--agent ecp+stdio:...`, `ecp+ws://...`": "agents-that-speak-ecp---agent-ecpstdio-ecpws",
		"The config file: `proctor.yaml`":                                "the-config-file-proctoryaml",
		"Scoring: proctor vs tau2-bench":                                 "scoring-proctor-vs-tau2-bench",
		"Tenants: who sees what":                                         "tenants-who-sees-what",
	} {
		if got := githubAnchor(heading); got != want {
			t.Errorf("githubAnchor(%q) = %q, want %q", heading, got, want)
		}
	}
}
