package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeMarker precedes each block of the README that
// TestREADMECommands runs.
const readmeMarker = "<!-- run by cmd/proctor.TestREADMECommands -->"

// fencedBlock is a fenced block of a Markdown file: where it starts, its
// info string, its text, and the HTML comment on the line before it (its
// marker), if any.
type fencedBlock struct {
	file       string
	line       int
	lang, text string
	marker     string
}

// fencedBlocks is every fenced block of a Markdown text (fences may be
// indented, as in a list item; the indent is taken off the block's lines).
func fencedBlocks(file, markdown string) ([]fencedBlock, error) {
	var blocks []fencedBlock
	lines := strings.Split(markdown, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], " ")
		if !strings.HasPrefix(trimmed, "```") {
			continue
		}
		indent := len(lines[i]) - len(trimmed)
		b := fencedBlock{file: file, line: i + 1, lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
		if i > 0 {
			if prev := strings.TrimSpace(lines[i-1]); strings.HasPrefix(prev, "<!--") {
				b.marker = prev
			}
		}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(strings.TrimLeft(lines[end], " "), "```") {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s:%d: the fenced block is never closed", file, i+1)
		}
		body := make([]string, 0, end-i-1)
		for _, l := range lines[i+1 : end] {
			body = append(body, strings.TrimPrefix(l, strings.Repeat(" ", indent)))
		}
		b.text = strings.Join(body, "\n")
		blocks = append(blocks, b)
		i = end
	}
	return blocks, nil
}

// markedBlocks is the blocks of a Markdown file that marker precedes.
func markedBlocks(t *testing.T, file, markdown, marker string) []fencedBlock {
	t.Helper()
	all, err := fencedBlocks(file, markdown)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []fencedBlock
	for _, b := range all {
		if b.marker == marker {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// shellCommand is one command of a shell block: its words, and whether
// it ends with & (runs in the background).
type shellCommand struct {
	words      []string
	background bool
}

// splitShell splits the shell text of a README block into commands as sh
// would: single and double quotes (spanning lines), backslash escapes and
// line continuations, # comments, one command per line, & at the end.
func splitShell(text string) ([]shellCommand, error) {
	var cmds []shellCommand
	var words []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCommand := func() {
		endWord()
		if len(words) == 0 {
			return
		}
		c := shellCommand{words: words}
		if last := words[len(words)-1]; last == "&" {
			c.words, c.background = words[:len(words)-1], true
		}
		cmds = append(cmds, c)
		words = nil
	}
	for i := 0; i < len(text); i++ {
		switch ch := text[i]; {
		case ch == '\\' && i+1 < len(text):
			i++
			if text[i] != '\n' {
				word.WriteByte(text[i])
				inWord = true
			}
		case ch == '\'' || ch == '"':
			end := strings.IndexByte(text[i+1:], ch)
			if end < 0 {
				return nil, fmt.Errorf("unterminated %c quote", ch)
			}
			word.WriteString(text[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case ch == '#' && !inWord:
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case ch == '\n':
			endCommand()
		case ch == ' ' || ch == '\t':
			endWord()
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	endCommand()
	return cmds, nil
}

// listeningAt is the address a background proctor says it serves at.
var listeningAt = regexp.MustCompile(`(?:serving at http://|agent for \S+ at http://|agent for \S+ over ECP at ecp\+ws://)([0-9.:\[\]a-f]+)`)

// readmeRun runs the README's commands in one directory: files written
// from YAML blocks, proctor commands in-process, servers in the
// background, curl requests against them.
type readmeRun struct {
	t *testing.T
	// addrs maps an address the README names to the one a background
	// server took (port 0, never the README's fixed port).
	addrs map[string]string
}

// TestREADMECommands runs every command of the README's quick starts that
// is marked as running offline, as a newcomer would type them, and fails
// when one does not succeed: the README cannot drift from what proctor
// does.
func TestREADMECommands(t *testing.T) {
	bin := buildProctor(t) // the ECP examples launch `proctor agent --ecp` from PATH
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := markedBlocks(t, "README.md", string(readme), readmeMarker)
	if len(blocks) < 4 {
		t.Fatalf("found %d marked blocks in README.md, want at least 4 (simulation, eval set, serve, conformance)", len(blocks))
	}
	checkUnrunBlocks(t, "README.md", string(readme))
	runExamples(t, bin, blocks)
}

// checkUnrunBlocks checks the blocks of a page that are not run as
// TestDocsExamples checks the docs' (commands and flags exist, make
// targets too, YAML and JSON parse, "not run" says why).
func checkUnrunBlocks(t *testing.T, file, text string) {
	t.Helper()
	blocks, err := fencedBlocks(file, text)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if b.marker != readmeMarker {
			checkDocBlock(t, b)
		}
	}
}

// runExamples runs marked blocks of documentation in order, in one
// directory with one database, with the built proctor first on PATH (for
// `proctor agent --ecp`): YAML blocks are written to the file their first
// line names, shell blocks run command by command.
func runExamples(t *testing.T, bin string, blocks []fencedBlock) {
	t.Chdir(t.TempDir())
	t.Setenv("PROCTOR_DB", filepath.Join(t.TempDir(), "examples.db"))
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := &readmeRun{t: t, addrs: map[string]string{}}
	for _, b := range blocks {
		switch b.lang {
		case "yaml":
			r.writeFile(b.text)
		case "sh":
			cmds, err := splitShell(b.text)
			if err != nil {
				t.Fatalf("%s:%d: %v", b.file, b.line, err)
			}
			for _, c := range cmds {
				r.command(c)
			}
		default:
			t.Fatalf("%s:%d: marked block of language %q: want sh or yaml", b.file, b.line, b.lang)
		}
	}
}

// writeFile writes a YAML block whose first line, a comment, names its path.
func (r *readmeRun) writeFile(text string) {
	first, _, _ := strings.Cut(text, "\n")
	path, ok := strings.CutPrefix(first, "# ")
	if !ok {
		r.t.Fatalf("marked YAML block does not start with '# PATH': %q", first)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// command runs one command of a block.
func (r *readmeRun) command(c shellCommand) {
	words := make([]string, len(c.words))
	for i, w := range c.words {
		for from, to := range r.addrs {
			w = strings.ReplaceAll(w, from, to)
		}
		words[i] = w
	}
	words, out := cutRedirect(words)
	switch {
	case words[0] == "proctor" && c.background:
		r.background(words[1:])
	case words[0] == "proctor":
		res := mustCLI(r.t, exitOK, words[1:]...)
		if out != "" {
			if err := os.WriteFile(out, []byte(res.stdout), 0o644); err != nil {
				r.t.Fatal(err)
			}
		}
	case words[0] == "curl":
		r.curl(words[1:])
	default:
		r.t.Fatalf("README command %q: the test runs only proctor and curl", strings.Join(c.words, " "))
	}
}

// cutRedirect takes a final "> FILE" off a command's words.
func cutRedirect(words []string) (cmd []string, out string) {
	if n := len(words); n >= 3 && words[n-2] == ">" {
		return words[:n-2], words[n-1]
	}
	return words, ""
}

// background starts a server command in-process on port 0, waits until
// it listens, and maps the address the README gives it to the real one.
func (r *readmeRun) background(args []string) {
	t := r.t
	port := "9009" // proctor serve's default
	if args[0] == "refagent" {
		port = "9019"
	}
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--port":
			port, args[i+1] = args[i+1], "0"
		case "--ecp-listen": // host:port
			_, port, _ = strings.Cut(args[i+1], ":")
			args[i+1] = "127.0.0.1:0"
		}
	}
	if args[0] == "serve" {
		args = append(args, "--port", "0", "--grpc-port", "0")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, io.Discard, &stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Errorf("proctor %s did not stop within a minute of its context's end", strings.Join(args, " "))
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		if m := listeningAt.FindStringSubmatch(stderr.String()); m != nil {
			r.addrs["127.0.0.1:"+port] = m[1]
			r.addrs["localhost:"+port] = m[1]
			return
		}
		select {
		case code := <-done:
			t.Fatalf("proctor %s exited %d before listening:\n%s", strings.Join(args, " "), code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("proctor %s did not listen within a minute:\n%s", strings.Join(args, " "), stderr.String())
		}
	}
}

// curl sends the request a README curl command makes (-s, -H, -d) and
// checks that it is answered 200 with a JSON-RPC result that is not a
// failed or rejected task.
func (r *readmeRun) curl(args []string) {
	t := r.t
	var url, body string
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-s":
		case "-H":
			i++
			k, v, _ := strings.Cut(args[i], ":")
			header.Set(k, strings.TrimSpace(v))
		case "-d":
			i++
			body = args[i]
		default:
			url = args[i]
		}
	}
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("curl %s: %v", url, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	reply := decodeObject(t, string(answer))
	if resp.StatusCode != http.StatusOK || reply["error"] != nil || reply["result"] == nil {
		t.Fatalf("curl %s -d %s: HTTP %d\n%s", url, clip(body), resp.StatusCode, clip(string(answer)))
	}
	for _, bad := range []string{"TASK_STATE_FAILED", "TASK_STATE_REJECTED"} {
		if strings.Contains(string(answer), bad) {
			t.Fatalf("curl %s -d %s: %s\n%s", url, clip(body), bad, clip(string(answer)))
		}
	}
}
