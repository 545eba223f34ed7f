package main

import (
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// version says which proctor this is: the module's version (a tag, or
// "(devel)" for a build from a checkout) and the commit it was built from,
// marked "modified" when the work tree had changes.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var commit, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if commit != "" {
		v += fmt.Sprintf(" (commit %.12s%s)", commit, modified)
	}
	return v + " " + info.GoVersion
}

// flagError turns cobra's flag errors into usage errors, suggesting the
// flag meant when one was mistyped.
func flagError(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if ok {
		if near := nearestFlag(cmd, name); near != "" {
			return usageErr("%v (did you mean --%s?)", err, near)
		}
	}
	return usageErr("%v", err)
}

// nearestFlag is the command's flag a mistyped name most likely meant: the
// closest by edit distance, within a third of the name's length (at least
// 2 edits), else the one that contains the name or that it contains
// ("--trials" for --num-trials); "" when none is near.
func nearestFlag(cmd *cobra.Command, typed string) string {
	typed, _, _ = strings.Cut(typed, "=")
	best, bestDist := "", max(2, len(typed)/3)+1
	var within string
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := levenshtein(typed, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
		if within == "" && len(typed) >= 3 && (strings.Contains(f.Name, typed) || strings.Contains(typed, f.Name)) {
			within = f.Name
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if best != "" {
		return best
	}
	return within
}

// levenshtein is the edit distance between a and b: insertions, deletions
// and substitutions of bytes (flag names and config keys are ASCII). Past
// 64 bytes it is not computed: a string that long is no typo of a name.
func levenshtein(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// optionalFloat is a float flag that may be left unset: its help shows no
// default, where a float flag would show the sentinel ("(default -1)").
type optionalFloat struct {
	value float64
	set   bool
}

func (o *optionalFloat) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatFloat(o.value, 'g', -1, 64)
}

// Set parses the flag's value.
func (o *optionalFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("want a number")
	}
	o.value, o.set = v, true
	return nil
}

// Type names the value in help.
func (o *optionalFloat) Type() string { return "float" }
