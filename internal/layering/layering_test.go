package layering

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const module = "github.com/proctor-eval/proctor/"

// protocol are the packages that speak a protocol to the agent: a2a-go,
// proctor's A2A client and adapter, its ECP runtime, and translation
// (which renders A2A parts).
var protocol = []string{
	"github.com/a2aproject/a2a-go",
	module + "a2aclient",
	module + "a2aagent",
	module + "ecp",
	module + "translation",
}

// models are the model SDKs: gRPC, genai and ADK.
var models = []string{"google.golang.org/grpc", "google.golang.org/genai", "google.golang.org/adk"}

// TestProtocolNeutralPackages: the agent interface, the rollout, the
// scorers and the runner depend on no protocol package (package agent is
// the one interface; the adapters sit beneath it), and the result model on
// neither a protocol nor a model SDK. The runner stores through package
// store, which also keeps proctor serve's A2A tasks (a2a-go's task types):
// what store brings is not counted against it.
func TestProtocolNeutralPackages(t *testing.T) {
	cases := []struct {
		pkg       string
		forbidden []string
		// through is a package whose own dependencies are not counted.
		through string
	}{
		{pkg: "agent", forbidden: protocol},
		{pkg: "rollout", forbidden: protocol},
		{pkg: "scoring", forbidden: protocol},
		{pkg: "scoring/metric", forbidden: protocol},
		{pkg: "evaluation", forbidden: protocol, through: "store"},
		{pkg: "result", forbidden: slices.Concat(protocol, models)},
	}
	for _, tc := range cases {
		t.Run(tc.pkg, func(t *testing.T) {
			var excused []string
			if tc.through != "" {
				excused = deps(t, tc.through)
			}
			var got []string
			for _, d := range deps(t, tc.pkg) {
				if hasAnyPrefix(d, tc.forbidden) && !slices.Contains(excused, d) {
					got = append(got, d)
				}
			}
			if diff := cmp.Diff([]string(nil), got); diff != "" {
				t.Errorf("%s depends on protocol or model packages (-want +got):\n%s", tc.pkg, diff)
			}
		})
	}
}

// TestLeaves: the plain-data packages import nothing of proctor's but
// other leaves.
func TestLeaves(t *testing.T) {
	leaves := []string{"agent", "domains", "evalset", "measure", "result"}
	for _, leaf := range []string{"agent", "result"} {
		t.Run(leaf, func(t *testing.T) {
			var got []string
			for _, d := range deps(t, leaf) {
				if name, ok := strings.CutPrefix(d, module); ok && name != leaf && !slices.Contains(leaves, name) {
					got = append(got, name)
				}
			}
			if diff := cmp.Diff([]string(nil), got); diff != "" {
				t.Errorf("%s depends on proctor packages that are not leaves (-want +got):\n%s", leaf, diff)
			}
		})
	}
}

// deps lists the packages pkg (a path in the module) depends on, itself
// included, tests excluded: go list -deps. go test puts its own go first
// on the PATH.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+pkg).Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr)
	}
	return strings.Fields(string(out))
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}
