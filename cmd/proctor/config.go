package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/go-playground/validator/v10"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// The configuration file: proctor.yaml in the current directory, or the
// file --config or PROCTOR_CONFIG names. It holds what a user would
// otherwise repeat on every command. A value applies to a command only
// where the command has the flag it stands for, and only when neither that
// flag nor the environment variable that outranks it is set:
//
//	flags > environment variables > configuration file > defaults
//
// Secrets are never stored in it: headers and credentials name the
// environment variables that hold them.

const (
	envConfig         = "PROCTOR_CONFIG"
	defaultConfigFile = "proctor.yaml"
	// maxConfigBytes bounds the configuration file.
	maxConfigBytes = 1 << 20
)

// fileConfig is the content of proctor.yaml. Paths are relative to the
// file's directory.
type fileConfig struct {
	Agent          string            `yaml:"agent"`
	Headers        map[string]string `yaml:"headers" validate:"dive,keys,header_name,endkeys,env_name"`
	BearerTokenEnv string            `yaml:"bearer_token_env" validate:"omitempty,env_name"`
	APIKeyEnv      string            `yaml:"api_key_env" validate:"omitempty,env_name"`
	APIKeyHeader   string            `yaml:"api_key_header" validate:"omitempty,header_name"`
	Domain         string            `yaml:"domain"`
	Split          string            `yaml:"split"`
	// RetrievalConfig is banking_knowledge's --retrieval-config.
	RetrievalConfig string `yaml:"retrieval_config"`
	Profile         string `yaml:"profile"`
	User            string `yaml:"user" validate:"omitempty,oneof=scripted llm"`
	UserModel       string `yaml:"user_model"`
	JudgeModel      string `yaml:"judge_model"`
	NumTrials       *int   `yaml:"num_trials" validate:"omitempty,min=1"`
	Concurrency     *int   `yaml:"concurrency" validate:"omitempty,min=1"`
	Transport       string `yaml:"transport" validate:"omitempty,oneof=jsonrpc rest grpc"`
	Protocol        string `yaml:"protocol" validate:"omitempty,oneof=1.0 0.3"`
	Streaming       string `yaml:"streaming" validate:"omitempty,oneof=auto on off"`
	Retries         *int   `yaml:"retries" validate:"omitempty,min=0"`
	RequestTimeout  string `yaml:"request_timeout"`
	DB              string `yaml:"db"`
	ECPConfig       string `yaml:"ecp_config"`
	Tau2Data        string `yaml:"tau2_data"`
	TraceWire       string `yaml:"trace_wire"`
	// LLMMaxConcurrency caps concurrent model calls per provider, as
	// --llm-max-concurrency: 16, or openai=32,gemini=8.
	LLMMaxConcurrency string `yaml:"llm_max_concurrency"`
	// Per-tenant limits of proctor serve (see tenantFlags).
	TenantMaxRunning     *int     `yaml:"tenant_max_running" validate:"omitempty,min=0"`
	TenantMaxQueued      *int     `yaml:"tenant_max_queued" validate:"omitempty,min=0"`
	TenantMaxSimulations *int     `yaml:"tenant_max_simulations" validate:"omitempty,min=0"`
	TenantRate           *float64 `yaml:"tenant_rate" validate:"omitempty,min=0"`
	TenantBurst          *int     `yaml:"tenant_burst" validate:"omitempty,min=0"`
}

// configKind says how a key's value becomes a flag's.
type configKind int

const (
	kindValue   configKind = iota // the value itself
	kindPath                      // a path, relative to the file's directory
	kindEnvName                   // the name of an environment variable holding the value
)

// configKey ties a key of proctor.yaml to the flags it stands for.
type configKey struct {
	name string
	// flags maps a command path ("run", "evalset run") to the flag the
	// key sets there; commands not listed ignore the key.
	flags map[string]string
	// env outranks the file when set.
	env  string
	kind configKind
}

// Command paths, without the leading "proctor ".
const (
	cmdRun         = "run"
	cmdEvalSetRun  = "evalset run"
	cmdResults     = "results"
	cmdConformance = "conformance"
	cmdServe       = "serve"
	cmdView        = "view"
	cmdShow        = "show"
	cmdCompare     = "compare"
	cmdLeaderboard = "leaderboard"
	cmdRescore     = "rescore"
	cmdMerge       = "merge"
	cmdAudit       = "audit"
)

// configuredCommands are the commands the configuration file applies to.
var configuredCommands = []string{cmdRun, cmdEvalSetRun, cmdResults, cmdConformance, cmdServe,
	cmdView, cmdShow, cmdCompare, cmdLeaderboard, cmdRescore, cmdMerge, cmdAudit}

// agentCommands are the commands that talk to an agent under evaluation.
var agentCommands = []string{cmdRun, cmdEvalSetRun}

func same(flag string, commands ...string) map[string]string {
	m := make(map[string]string, len(commands))
	for _, c := range commands {
		m[c] = flag
	}
	return m
}

// configKeys lists every key but headers (see headerValues), in the
// order `proctor config` shows them.
func configKeys() []configKey {
	return []configKey{
		{name: "agent", flags: same("agent", agentCommands...)},
		{name: "bearer_token_env", flags: map[string]string{cmdRun: "bearer-token", cmdEvalSetRun: "bearer-token", cmdConformance: "auth-token"}, env: envBearerToken, kind: kindEnvName},
		{name: "api_key_env", flags: same("api-key", agentCommands...), env: envAPIKey, kind: kindEnvName},
		{name: "api_key_header", flags: same("api-key-header", agentCommands...)},
		{name: "domain", flags: same("domain", cmdRun)},
		{name: "split", flags: same("split", cmdRun)},
		{name: "retrieval_config", flags: same("retrieval-config", cmdRun)},
		{name: "profile", flags: same("profile", cmdRun)},
		{name: "user", flags: same("user", cmdRun)},
		{name: "user_model", flags: same("user-model", cmdRun)},
		{name: "judge_model", flags: same("judge-model", cmdRun)},
		{name: "num_trials", flags: same("num-trials", cmdRun)},
		{name: "concurrency", flags: same("concurrency", agentCommands...)},
		{name: "transport", flags: same("transport", agentCommands...)},
		{name: "protocol", flags: same("protocol", agentCommands...)},
		{name: "streaming", flags: same("streaming", agentCommands...)},
		{name: "retries", flags: same("retries", agentCommands...)},
		{name: "request_timeout", flags: same("request-timeout", agentCommands...)},
		{name: "db", flags: same("db", configuredCommands...), env: "PROCTOR_DB", kind: kindPath},
		{name: "ecp_config", flags: same("ecp-config", cmdRun), kind: kindPath},
		{name: "tau2_data", flags: same("tau2-data", cmdRun, cmdResults, cmdServe, cmdView, cmdShow, cmdRescore, cmdMerge), env: "PROCTOR_TAU2_DATA", kind: kindPath},
		{name: "trace_wire", flags: same("trace-wire", agentCommands...), kind: kindPath},
		{name: "llm_max_concurrency", flags: same("llm-max-concurrency", cmdRun, cmdEvalSetRun, cmdRescore, cmdServe)},
		{name: "tenant_max_running", flags: same("tenant-max-running", cmdServe)},
		{name: "tenant_max_queued", flags: same("tenant-max-queued", cmdServe)},
		{name: "tenant_max_simulations", flags: same("tenant-max-simulations", cmdServe)},
		{name: "tenant_rate", flags: same("tenant-rate", cmdServe)},
		{name: "tenant_burst", flags: same("tenant-burst", cmdServe)},
	}
}

// loadedConfig is a parsed configuration file.
type loadedConfig struct {
	path   string            // "" when there is none
	values map[string]string // key -> value as written (paths resolved)
	cfg    fileConfig
}

var (
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// parseConfig parses and checks a configuration file's content; dir is its
// directory, against which relative paths resolve.
func parseConfig(data []byte, dir string) (fileConfig, error) {
	var cfg fileConfig
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return cfg, err
	}
	if err := checkKeys(&root); err != nil {
		return cfg, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return cfg, err
	}
	if err := configValidator().Struct(&cfg); err != nil {
		return cfg, describeInvalid(err)
	}
	for _, p := range []*string{&cfg.DB, &cfg.ECPConfig, &cfg.Tau2Data, &cfg.TraceWire} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	return cfg, nil
}

// checkKeys refuses a document that is not a mapping, and unknown keys,
// suggesting the nearest known one.
func checkKeys(root *yaml.Node) error {
	if root.Kind == 0 || (root.Kind == yaml.DocumentNode && len(root.Content) == 0) {
		return nil // comments only
	}
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a mapping of keys to values (agent: http://..., num_trials: 4)", root.Line)
	}
	known := knownKeys()
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if slices.Contains(known, k.Value) {
			continue
		}
		msg := fmt.Sprintf("line %d: unknown key %q", k.Line, k.Value)
		if near := nearest(k.Value, known); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return fmt.Errorf("%s (known keys: %s)", msg, strings.Join(known, ", "))
	}
	return nil
}

// knownKeys are the yaml names of fileConfig's fields.
func knownKeys() []string {
	t := reflect.TypeFor[fileConfig]()
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		out = append(out, t.Field(i).Tag.Get("yaml"))
	}
	return out
}

// nearest returns the candidate closest to s in edit distance, if close
// enough to be a typo.
func nearest(s string, candidates []string) string {
	best, bestDist := "", len(s)/2+2
	for _, c := range candidates {
		if d := levenshtein(strings.ToLower(s), c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func configValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string { return f.Tag.Get("yaml") })
	_ = v.RegisterValidation("env_name", func(fl validator.FieldLevel) bool { return envNameRE.MatchString(fl.Field().String()) })
	_ = v.RegisterValidation("header_name", func(fl validator.FieldLevel) bool { return headerNameRE.MatchString(fl.Field().String()) })
	return v
}

// describeInvalid turns validator errors into one message per key.
func describeInvalid(err error) error {
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return err
	}
	msgs := make([]string, 0, len(verrs))
	for _, fe := range verrs {
		key := strings.TrimPrefix(fe.Namespace(), "fileConfig.")
		switch fe.Tag() {
		case "env_name":
			msgs = append(msgs, fmt.Sprintf("%s %q: want the name of an environment variable that holds the value (never the value itself)", key, fe.Value()))
		case "header_name":
			msgs = append(msgs, fmt.Sprintf("%s %q: not a valid HTTP header name", key, fe.Value()))
		case "oneof":
			msgs = append(msgs, fmt.Sprintf("%s %v: want one of %s", key, fe.Value(), strings.ReplaceAll(fe.Param(), " ", ", ")))
		case "min":
			msgs = append(msgs, fmt.Sprintf("%s %v: want at least %s", key, deref(fe.Value()), fe.Param()))
		default:
			msgs = append(msgs, fmt.Sprintf("%s %v: fails %s", key, fe.Value(), fe.Tag()))
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

func deref(v any) any {
	if p, ok := v.(*int); ok && p != nil {
		return *p
	}
	return v
}

// configPath says which configuration file to read: --config, else
// PROCTOR_CONFIG, else proctor.yaml in the current directory if there is
// one. required is set when the user named the file.
func configPath(cmd *cobra.Command) (path string, required bool) {
	if f := cmd.Flags().Lookup("config"); f != nil && f.Value.String() != "" {
		return f.Value.String(), true
	}
	if p := os.Getenv(envConfig); p != "" {
		return p, true
	}
	return defaultConfigFile, false
}

// loadConfig reads the configuration file that applies to cmd.
func loadConfig(cmd *cobra.Command) (*loadedConfig, error) {
	path, required := configPath(cmd)
	data, err := readBounded(path, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return &loadedConfig{}, nil
	}
	if err != nil {
		return nil, usageErr("config file: %v", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, usageErr("config file %s: %v", path, err)
	}
	cfg, err := parseConfig(data, filepath.Dir(abs))
	if err != nil {
		return nil, usageErr("config file %s: %v", path, err)
	}
	return &loadedConfig{path: path, cfg: cfg, values: configValues(cfg)}, nil
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}

// configValues maps every key set in cfg (but headers) to its value as a
// flag would take it.
func configValues(cfg fileConfig) map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(cfg)
	t := v.Type()
	for i := range t.NumField() {
		f := v.Field(i)
		name := t.Field(i).Tag.Get("yaml")
		switch f.Kind() {
		case reflect.String:
			if f.String() != "" {
				out[name] = f.String()
			}
		case reflect.Pointer:
			if !f.IsNil() {
				out[name] = fmt.Sprint(f.Elem().Interface())
			}
		}
	}
	return out
}

// commandPath is cmd's path without the program's name: "evalset run".
func commandPath(cmd *cobra.Command) string {
	_, rest, _ := strings.Cut(cmd.CommandPath(), " ")
	return rest
}

// setting is one configuration value in effect and where it came from.
type setting struct {
	key, flag, value, source string
}

// applyConfig sets, on cmd, the flags that the configuration file sets and
// nothing outranks, and returns every setting the file could make there.
func applyConfig(cmd *cobra.Command, lc *loadedConfig) ([]setting, error) {
	path := commandPath(cmd)
	var out []setting
	for _, k := range configKeys() {
		flag := k.flags[path]
		fl := cmd.Flags().Lookup(flag)
		if flag == "" || fl == nil {
			continue
		}
		s, err := applyKey(fl, k, lc)
		if err != nil {
			return nil, usageErr("config file %s: %v", lc.path, err)
		}
		out = append(out, s)
	}
	if fl := cmd.Flags().Lookup("header"); fl != nil && slices.Contains(agentCommands, path) {
		hs, err := applyHeaders(fl, lc)
		if err != nil {
			return nil, usageErr("config file %s: %v", lc.path, err)
		}
		out = append(out, hs...)
	}
	return out, nil
}

// applyKey applies one key to its flag, unless the flag or the key's
// environment variable outranks it.
func applyKey(fl *pflag.Flag, k configKey, lc *loadedConfig) (setting, error) {
	s := setting{key: k.name, flag: fl.Name, value: fl.Value.String(), source: "default"}
	raw, inFile := lc.values[k.name]
	switch {
	case fl.Changed:
		s.source = "flag --" + fl.Name
	case k.env != "" && os.Getenv(k.env) != "":
		s.value, s.source = os.Getenv(k.env), "env "+k.env
	case inFile:
		s.value, s.source = raw, "config "+lc.path
		if k.kind == kindEnvName {
			s.value = os.Getenv(raw)
			if s.value == "" {
				return s, fmt.Errorf("%s: environment variable %s is not set", k.name, raw)
			}
			s.source += " ($" + raw + ")"
		}
		if err := fl.Value.Set(s.value); err != nil {
			return s, fmt.Errorf("%s %q: %v", k.name, raw, err)
		}
	}
	if k.kind == kindEnvName && s.value != "" {
		s.value = "(set)"
	}
	return s, nil
}

// applyHeaders adds the file's headers, read from the environment, to
// --header, after the flag's own: on the wire a --header of the same name
// wins.
func applyHeaders(fl *pflag.Flag, lc *loadedConfig) ([]setting, error) {
	names := make([]string, 0, len(lc.cfg.Headers))
	for name := range lc.cfg.Headers {
		names = append(names, name)
	}
	sort.Strings(names)
	given := map[string]bool{}
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		for _, kv := range sv.GetSlice() {
			k, _, _ := strings.Cut(kv, "=")
			given[strings.ToLower(strings.TrimSpace(k))] = true
		}
	}
	var out []setting
	for _, name := range names {
		env := lc.cfg.Headers[name]
		s := setting{key: "headers." + name, flag: "header", value: "(set)", source: "config " + lc.path + " ($" + env + ")"}
		if given[strings.ToLower(name)] {
			s.source = "flag --header"
			out = append(out, s)
			continue
		}
		v := os.Getenv(env)
		if v == "" {
			return nil, fmt.Errorf("headers.%s: environment variable %s is not set", name, env)
		}
		if err := fl.Value.Set(name + "=" + v); err != nil {
			return nil, fmt.Errorf("headers.%s: %v", name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// configHook is the root command's PersistentPreRunE: it applies the
// configuration file to the command about to run and, with
// --print-config, shows the effective configuration instead of running.
func configHook(cmd *cobra.Command, _ []string) error {
	if !slices.Contains(configuredCommands, commandPath(cmd)) {
		return nil // a broken file must not stop 'proctor domains'
	}
	lc, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	settings, err := applyConfig(cmd, lc)
	if err != nil {
		return err
	}
	if pf := cmd.Flags().Lookup("print-config"); pf != nil && pf.Value.String() == "true" {
		printSettings(cmd.OutOrStdout(), lc, settings)
		return &exitError{code: exitOK}
	}
	return nil
}

// printSettings writes the effective configuration as a table.
func printSettings(w io.Writer, lc *loadedConfig, settings []setting) {
	file := lc.path
	if file == "" {
		file = "none (no " + defaultConfigFile + " here, no --config, no " + envConfig + ")"
	}
	fmt.Fprintf(w, "config file  %s\n", file)
	fmt.Fprintln(w, "precedence   flags > environment > config file > defaults")
	width := 0
	for _, s := range settings {
		width = max(width, len(s.key))
	}
	for _, s := range settings {
		v := s.value
		if s.key == "db" && v == "" {
			// The default is a place, not nothing: say where.
			if p, err := dbPath(""); err == nil {
				v = p
			}
		}
		if v == "" {
			v = `""`
		}
		fmt.Fprintf(w, "%-*s  %s  (%s)\n", width, s.key, v, s.source)
	}
}

// addConfigFlags registers --config on root and --print-config on the
// commands the file applies to.
func addConfigFlags(root *cobra.Command) {
	root.PersistentFlags().String("config", "", "configuration file (default ./"+defaultConfigFile+" if present, or $"+envConfig+")")
	for _, c := range root.Commands() {
		for _, sub := range append([]*cobra.Command{c}, c.Commands()...) {
			if slices.Contains(configuredCommands, commandPath(sub)) {
				sub.Flags().Bool("print-config", false, "show the effective configuration (flags, environment, config file, defaults) and exit")
			}
		}
	}
	root.PersistentPreRunE = configHook
	root.AddCommand(newConfigCmd())
}

// newConfigCmd is `proctor config [COMMAND]`: the effective configuration
// of a command (default run) without flags.
func newConfigCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "config [run|evalset run|results|conformance|serve]",
		Short: "Show the effective configuration and where each value comes from",
		Long: `Show the configuration a command would run with (default: run), each value with
its source: flag, environment variable, config file or default. The config file is
` + defaultConfigFile + ` in the current directory, or the file --config or ` + envConfig + ` names.
Precedence: flags > environment > config file > defaults. Add --print-config to a
command to see its configuration with its flags.`,
		Example: `  proctor config
  proctor config evalset run
  proctor run --agent http://localhost:9019 --print-config`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{cmdRun}
			}
			target, _, err := cmd.Root().Find(args)
			if err != nil || target.Flags().Lookup("print-config") == nil {
				return usageErr("proctor config %s: the config file applies to run, evalset run, results, conformance and serve", strings.Join(args, " "))
			}
			lc, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			settings, err := applyConfig(target, lc)
			if err != nil {
				return err
			}
			printSettings(cmd.OutOrStdout(), lc, settings)
			return nil
		},
	}
}
