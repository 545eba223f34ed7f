package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	dir := t.TempDir()
	four := 4
	for _, tt := range []struct {
		name    string
		yaml    string
		want    fileConfig
		wantErr []string
	}{
		{name: "empty", yaml: "", want: fileConfig{}},
		{name: "comments only", yaml: "# nothing\n", want: fileConfig{}},
		{name: "full", yaml: "agent: http://a\nnum_trials: 4\ndb: r/p.db\ntrace_wire: /abs/trace\nheaders:\n  X-Team: TEAM\n",
			want: fileConfig{Agent: "http://a", NumTrials: &four, DB: filepath.Join(dir, "r/p.db"), TraceWire: "/abs/trace", Headers: map[string]string{"X-Team": "TEAM"}}},
		{name: "typo", yaml: "agent: x\nnum_trails: 3\n", wantErr: []string{`line 2: unknown key "num_trails"`, `did you mean "num_trials"?`}},
		{name: "far from anything", yaml: "zzzzzzzzzzzz: 1\n", wantErr: []string{`unknown key "zzzzzzzzzzzz"`, "known keys: agent"}},
		{name: "not a mapping", yaml: "- agent\n", wantErr: []string{"want a mapping"}},
		{name: "wrong type", yaml: "num_trials: four\n", wantErr: []string{"line 1", "four"}},
		{name: "literal secret as header", yaml: "headers:\n  Authorization: Bearer abc\n", wantErr: []string{"headers[Authorization]", "never the value itself"}},
		{name: "bad header name", yaml: "headers:\n  \"X Team\": TEAM\n", wantErr: []string{"not a valid HTTP header name"}},
		{name: "values", yaml: "num_trials: 0\nuser: bot\ntransport: http\n", wantErr: []string{"num_trials 0: want at least 1", "user bot: want one of scripted, llm", "transport http: want one of jsonrpc, rest, grpc"}},
		{name: "token env", yaml: "bearer_token_env: sk-123\n", wantErr: []string{"bearer_token_env", "never the value itself"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig([]byte(tt.yaml), dir)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error, want %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

// writeConfig writes a config file and returns its path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "proctor.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigPrecedence: flags > environment > config file > defaults, as
// --print-config shows them.
func TestConfigPrecedence(t *testing.T) {
	cfg := writeConfig(t, "num_trials: 3\nconcurrency: 2\ndb: from-file.db\ntau2_data: /from/file\n")
	t.Setenv("PROCTOR_TAU2_DATA", "/from/env")
	out := mustCLI(t, exitOK, "run", "--config", cfg, "--num-trials", "5", "--print-config").stdout
	for _, want := range []string{
		"num_trials           5  (flag --num-trials)",
		"concurrency          2  (config " + cfg + ")",
		"db                   " + filepath.Join(filepath.Dir(cfg), "from-file.db") + "  (config",
		"tau2_data            /from/env  (env PROCTOR_TAU2_DATA)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--print-config lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "split                base  (default)") {
		t.Errorf("--print-config does not show defaults:\n%s", out)
	}
	// PROCTOR_CONFIG names the file too; proctor config shows it.
	t.Setenv(envConfig, cfg)
	if out := mustCLI(t, exitOK, "config").stdout; !strings.Contains(out, "config file  "+cfg) || !strings.Contains(out, "num_trials           3") {
		t.Errorf("proctor config with %s:\n%s", envConfig, out)
	}
}

// TestConfigRunsAnEvaluation: the file's agent, trials, database and a
// header read from the environment reach a real evaluation, and the
// header's value is stored nowhere.
func TestConfigRunsAnEvaluation(t *testing.T) {
	const secret = "s3cret-token-value"
	srv := guardedAgent(t, secret)
	db := filepath.Join(t.TempDir(), "cfg.db")
	t.Setenv("TEAM_HEADER", "blue")
	t.Setenv("AGENT_TOKEN_FOR_TEST", secret)
	cfg := writeConfig(t, "agent: "+srv.URL+"\nnum_trials: 2\ndb: "+db+"\nbearer_token_env: AGENT_TOKEN_FOR_TEST\nheaders:\n  X-Team: TEAM_HEADER\n")
	res := mustCLI(t, exitOK, "run", "--config", cfg, "--task-ids", "mock-01", "--format", "json", "--progress", "none")
	eval := decodeObject(t, res.stdout)
	if n := num(t, eval, "metrics.errors"); n != 0 {
		t.Fatalf("the agent refused the configured credentials: %v errors", n)
	}
	if n := num(t, eval, "summary.num_trials"); n != 2 {
		t.Errorf("num_trials %v, want the file's 2", n)
	}
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatalf("the file's database was not written: %v", err)
	}
	if strings.Contains(string(raw), secret) || strings.Contains(res.stdout+res.stderr, secret) {
		t.Error("the configured token leaked")
	}
	// The commands that read results find the file's database too.
	id, _ := eval["id"].(string)
	for _, args := range [][]string{{"show", id, "--format", "json"}, {"leaderboard", "--domain", "mock", "--format", "json"}} {
		if out := mustCLI(t, exitOK, append(args, "--config", cfg)...).stdout; id == "" || !strings.Contains(out, id) {
			t.Errorf("proctor %s with the file's db does not show evaluation %q:\n%s", args[0], id, out)
		}
	}
	// A header variable that is not set is named.
	t.Setenv("TEAM_HEADER", "")
	r := mustCLI(t, exitUsage, "run", "--config", cfg, "--print-config")
	if !strings.Contains(r.stderr, "headers.X-Team: environment variable TEAM_HEADER is not set") {
		t.Errorf("unset header variable: %s", r.stderr)
	}
}

// TestConfigErrors: a broken file stops the commands it applies to with a
// usage error naming the file and key, and leaves other commands alone.
func TestConfigErrors(t *testing.T) {
	cfg := writeConfig(t, "agnet: http://x\n")
	r := mustCLI(t, exitUsage, "results", "--config", cfg)
	if !strings.Contains(r.stderr, cfg) || !strings.Contains(r.stderr, `did you mean "agent"`) {
		t.Errorf("unknown key: %s", r.stderr)
	}
	mustCLI(t, exitOK, "domains", "--config", cfg)
	r = mustCLI(t, exitUsage, "results", "--config", filepath.Join(t.TempDir(), "missing.yaml"))
	if !strings.Contains(r.stderr, "missing.yaml") {
		t.Errorf("missing --config file: %s", r.stderr)
	}
	r = mustCLI(t, exitUsage, "config", "domains")
	if !strings.Contains(r.stderr, "applies to run") {
		t.Errorf("config of a command it does not apply to: %s", r.stderr)
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		"agent: http://a\nnum_trials: 4\nheaders:\n  X-Team: TEAM\n",
		"agnet: x\n", "- a\n", "num_trials: [1]\n", "headers: 3\n", "&a [*a]\n", "db: ''\n", "{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parseConfig(data, "/base")
		if err != nil {
			return
		}
		// What parses is valid: every count positive, every env name a name.
		if cfg.NumTrials != nil && *cfg.NumTrials < 1 {
			t.Errorf("num_trials %d accepted", *cfg.NumTrials)
		}
		for k, v := range cfg.Headers {
			if !headerNameRE.MatchString(k) || !envNameRE.MatchString(v) {
				t.Errorf("header %q: %q accepted", k, v)
			}
		}
		if cfg.DB != "" && !filepath.IsAbs(cfg.DB) {
			t.Errorf("db %q not resolved against the file's directory", cfg.DB)
		}
	})
}

// TestConfigShowsTheDefaultDatabase: proctor config names the database a
// command would use when nothing sets db, not "".
func TestConfigShowsTheDefaultDatabase(t *testing.T) {
	data := t.TempDir()
	t.Setenv("PROCTOR_DB", "")
	t.Setenv("XDG_DATA_HOME", data)
	t.Chdir(t.TempDir()) // no proctor.yaml here
	out := mustCLI(t, exitOK, "config").stdout
	want := "db                   " + filepath.Join(data, "proctor", "proctor.db") + "  (default)"
	if !strings.Contains(out, want) {
		t.Errorf("proctor config does not say %q:\n%s", want, out)
	}
}
