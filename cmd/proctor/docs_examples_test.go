package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/evalset"
	"gopkg.in/yaml.v3"
)

// docsRunMarker precedes each block of docs/*.md that TestDocsExamples
// runs; docsNotRunPrefix starts the marker of a block it deliberately
// leaves unchecked, which says why: <!-- not run: REASON -->.
const (
	docsRunMarker    = "<!-- run by cmd/proctor.TestDocsExamples -->"
	docsNotRunPrefix = "<!-- not run: "
)

// docsMinRun is how many blocks of docs/*.md at least are run: fewer
// means markers were lost.
const docsMinRun = 4

// TestDocsExamples checks every example of the documentation pages
// docs/*.md: the blocks marked as running offline are run as
// TestREADMECommands runs the README's; every other shell block is parsed
// (each proctor command and flag must exist, positional arguments fit the
// command, curl bodies be JSON, make targets exist), YAML and JSON blocks
// must parse, proctor.yaml examples load with proctor's own loader and
// eval cases with the eval-set reader. A block it cannot check says so
// with a "not run" marker and a reason (its proctor commands are still
// parsed); output and diagrams are "text".
func TestDocsExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	var run []fencedBlock
	count := map[string]int{}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := fencedBlocks("docs/"+filepath.Base(f), string(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			kind := checkDocBlock(t, b)
			count[kind]++
			if kind == "run" {
				run = append(run, b)
			}
		}
	}
	t.Logf("docs/*.md blocks: %d run, %d parsed, %d not run (marked), %d output", count["run"], count["parsed"], count["not run"], count["output"])
	if len(run) < docsMinRun {
		t.Fatalf("%d blocks of docs/*.md are marked %s, want at least %d", len(run), docsRunMarker, docsMinRun)
	}
	if t.Failed() {
		return
	}
	t.Run("run", func(t *testing.T) { runExamples(t, buildProctor(t), run) })
}

// checkDocBlock parses one block as its language says and returns how it
// is checked: "run", "parsed", "not run" or "output".
func checkDocBlock(t *testing.T, b fencedBlock) string {
	t.Helper()
	at := fmt.Sprintf("%s:%d", b.file, b.line)
	switch {
	case strings.HasPrefix(b.marker, docsNotRunPrefix):
		if strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(b.marker, docsNotRunPrefix), "-->")) == "" {
			t.Errorf("%s: %s needs a reason", at, b.marker)
		}
		if err := checkProctorCommands(b); err != nil {
			t.Errorf("%s: %v", at, err)
		}
		return "not run"
	case b.lang == "text":
		return "output"
	case b.lang == "":
		t.Errorf("%s: a block without a language: mark output and diagrams ```text, examples with theirs", at)
		return "output"
	}
	var err error
	switch b.lang {
	case "sh", "bash":
		err = checkShellBlock(b.text)
	case "yaml":
		err = checkYAMLBlock(b.text)
	case "json":
		err = checkJSONBlock(b.text)
	default:
		err = fmt.Errorf("a %s block cannot be checked: mark it %sREASON -->", b.lang, docsNotRunPrefix)
	}
	if err != nil {
		t.Errorf("%s: %v", at, err)
	}
	if b.marker == docsRunMarker {
		return "run"
	}
	return "parsed"
}

// checkProctorCommands parses the proctor commands of a shell block that
// is not run (its other commands cannot be checked).
func checkProctorCommands(b fencedBlock) error {
	if b.lang != "sh" && b.lang != "bash" {
		return nil
	}
	cmds, err := splitShell(b.text)
	if err != nil {
		return err
	}
	for _, c := range cmds {
		words := c.words
		for len(words) > 0 && envAssignment.MatchString(words[0]) {
			words = words[1:]
		}
		if len(words) > 0 && words[0] == "proctor" {
			if err := checkShellCommand(words); err != nil {
				return fmt.Errorf("%s: %w", strings.Join(c.words, " "), err)
			}
		}
	}
	return nil
}

// checkShellBlock parses every command of a shell block.
func checkShellBlock(text string) error {
	cmds, err := splitShell(text)
	if err != nil {
		return err
	}
	for _, c := range cmds {
		if err := checkShellCommand(c.words); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(c.words, " "), err)
		}
	}
	return nil
}

// envAssignment is a shell word that sets a variable for the command.
var envAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// checkShellCommand checks one command: proctor's against the command
// tree, curl's body, make's targets; others cannot be checked.
func checkShellCommand(words []string) error {
	for len(words) > 0 && envAssignment.MatchString(words[0]) {
		words = words[1:]
	}
	words, _ = cutRedirect(words)
	if len(words) == 0 {
		return nil
	}
	switch words[0] {
	case "proctor":
		return checkProctorArgs(words[1:])
	case "curl":
		return checkCurl(words[1:])
	case "make":
		return checkMakeTargets(words[1:])
	case "export":
		return nil
	}
	return fmt.Errorf("the test checks proctor, curl and make commands only: mark the block %sREASON -->", docsNotRunPrefix)
}

// checkProctorArgs finds the command the arguments name in proctor's
// command tree and parses its flags and positional arguments, as
// Execute would, without running it.
func checkProctorArgs(args []string) error {
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultVersionFlag()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag()
	if err := cmd.ParseFlags(rest); err != nil {
		return fmt.Errorf("proctor %s: %w", cmd.Name(), err)
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return fmt.Errorf("proctor %s: %w", cmd.Name(), err)
	}
	return nil
}

// checkCurl checks that a curl command's body (-d) is JSON.
func checkCurl(args []string) error {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-d" && !json.Valid([]byte(args[i+1])) {
			return fmt.Errorf("the body is not JSON: %s", args[i+1])
		}
	}
	return nil
}

// checkMakeTargets checks that the Makefile has each target named.
func checkMakeTargets(targets []string) error {
	makefile, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		return err
	}
	for _, target := range targets {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:`).Match(makefile) {
			return fmt.Errorf("the Makefile has no target %q", target)
		}
	}
	return nil
}

// checkYAMLBlock parses a YAML block: an eval case (a top-level "case")
// with the eval-set reader; a block whose first line names another file
// ("# prometheus.yml") as YAML; any other is a proctor.yaml, loaded by
// proctor's configuration loader.
func checkYAMLBlock(text string) error {
	var top map[string]any
	if err := yaml.Unmarshal([]byte(text), &top); err != nil {
		return err
	}
	if _, ok := top["case"]; ok {
		_, err := evalset.DecodeYAMLCases(context.Background(), "example.yaml", []string{text})
		return err
	}
	first, _, _ := strings.Cut(text, "\n")
	if name, ok := strings.CutPrefix(first, "# "); ok && !strings.HasPrefix(name, "proctor.yaml") {
		return nil
	}
	_, err := parseConfig([]byte(text), ".")
	return err
}

// checkJSONBlock parses a JSON block: one value, or JSON lines.
func checkJSONBlock(text string) error {
	if json.Valid([]byte(text)) {
		return nil
	}
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if !json.Valid([]byte(line)) {
			return fmt.Errorf("neither one JSON value nor JSON lines: line %d is not JSON", i+1)
		}
	}
	return nil
}

// TestCheckShellCommand: the parse of a shell example refuses what does
// not exist and accepts what does.
func TestCheckShellCommand(t *testing.T) {
	for _, tc := range []struct {
		line  string
		valid bool
	}{
		{"proctor run --domain mock --agent builtin", true},
		{"OPENAI_API_KEY=x proctor run --domain airline --agent-model openai:gpt-4.1", true},
		{"proctor leaderboard --domain mock --format html > leaderboard.html", true},
		{"proctor evalset rescore 7c0d19a4 --metrics looser.metrics.json", true},
		{"proctor --version", true},
		{"proctor run --domain mock --agnet builtin", false},
		{"proctor runn --domain mock", false},
		{"proctor show", false},
		{"proctor evalset rescore 7c0d19a4 --metric x.json", false},
		{`curl -s localhost:9009/a2a/jsonrpc -d '{"jsonrpc": "2.0",}'`, false},
		{"make docs", true},
		{"make no-such-target", false},
		{"python3 -m pytest", false},
	} {
		cmds, err := splitShell(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		err = checkShellCommand(cmds[0].words)
		if got := err == nil; got != tc.valid {
			t.Errorf("%s: valid %v, want %v (error: %v)", tc.line, got, tc.valid, err)
		}
	}
}
