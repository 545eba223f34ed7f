package tau2test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
)

// BadCalls is a domain's bad_calls.json: tau2's exact tool messages for
// failing or unusual tool calls, each made on a fresh environment (calls
// sharing a Sequence share one, in file order).
type BadCalls struct {
	Domain          string    `json:"domain"`
	FreshDBHash     string    `json:"fresh_db_hash"`
	FreshUserDBHash string    `json:"fresh_user_db_hash"`
	Calls           []BadCall `json:"calls"`
}

// BadCall is one call of bad_calls.json and what tau2 answered.
type BadCall struct {
	CallID    string `json:"call_id"`
	Requestor string `json:"requestor"`
	Name      string `json:"name"`
	// Arguments hold numbers as json.Number, so that 2 and 2.0 stay
	// apart, as they do for tau2's json.loads.
	Arguments  map[string]any `json:"arguments"`
	Error      bool           `json:"error"`
	Content    string         `json:"content"`
	DBHash     string         `json:"db_hash"`
	UserDBHash string         `json:"user_db_hash"`
	Note       string         `json:"note"`
	Sequence   string         `json:"sequence"`
}

// LoadBadCalls reads the bad_calls.json in a domain's data directory.
func LoadBadCalls(tb testing.TB, dir string) BadCalls {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "bad_calls.json"))
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var f BadCalls
	if err := dec.Decode(&f); err != nil {
		tb.Fatalf("bad_calls.json: %v", err)
	}
	return f
}

// badOutcome is what a call is compared by.
type badOutcome struct {
	Error      bool
	Content    string
	DBHash     string
	UserDBHash string
}

// pydanticLinkVersion blanks the version in the errors.pydantic.dev links of
// a pydantic ValidationError text: the one part of a tool message that
// depends on the pydantic version (shared/tau2/MANIFEST.md), which made
// the fixtures (2.13) and which tau2 pins (2.12) need not agree on.
func pydanticLinkVersion(s string) string {
	const link = "https://errors.pydantic.dev/"
	var b strings.Builder
	for {
		i := strings.Index(s, link)
		if i < 0 {
			return b.String() + s
		}
		rest := s[i+len(link):]
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return b.String() + s
		}
		b.WriteString(s[:i] + link + "<version>")
		s = rest[j:]
	}
}

// ReplayBadCalls runs every call of f, each on a fresh environment of d
// for task (nil: the domain's initial state; calls of one sequence on the
// same environment, in order), and compares its
// error flag, its content byte for byte and the database hashes after it
// with tau2's (the pydantic version in error links aside). Every mismatch
// is a test error with a diff, except those of
// calls named in known, a list of mismatches still to fix, which are
// logged; a known call that matches is an error, so that the list shrinks.
// It returns how many calls matched.
func ReplayBadCalls(t *testing.T, d *domains.Domain, task *domains.Task, f BadCalls, known map[string]string) int {
	t.Helper()
	newEnv := func() domains.Env {
		env, err := d.NewEnv(task)
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	matched := 0
	var env domains.Env
	seq := ""
	for _, c := range f.Calls {
		if c.Sequence == "" || c.Sequence != seq || env == nil {
			env = newEnv()
		}
		seq = c.Sequence
		res := env.Call(domains.ToolCall{Name: c.Name, Arguments: c.Arguments, Requestor: c.Requestor})
		agent, user, err := domains.SideHashes(env)
		if err != nil {
			t.Errorf("%s: hash: %v", c.CallID, err)
		}
		got := badOutcome{res.Error, pydanticLinkVersion(res.Content), agent, user}
		want := badOutcome{c.Error, pydanticLinkVersion(c.Content), c.DBHash, c.UserDBHash}
		diff := gocmp.Diff(want, got)
		why, isKnown := known[c.CallID]
		switch {
		case diff == "" && isKnown:
			matched++
			t.Errorf("%s %s now matches tau2: drop it from the known mismatches", c.CallID, c.Name)
		case diff == "":
			matched++
		case isKnown:
			t.Logf("known mismatch %s %s (%s; %s) (-tau2 +proctor):\n%s", c.CallID, c.Name, c.Note, why, diff)
		default:
			t.Errorf("%s %s(%v) [%s] (-tau2 +proctor):\n%s", c.CallID, c.Name, c.Arguments, c.Note, diff)
		}
	}
	t.Logf("%d/%d calls match tau2", matched, len(f.Calls))
	return matched
}
