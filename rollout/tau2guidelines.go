package rollout

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/proctor-eval/proctor/domains/tau2/install"
	"github.com/proctor-eval/proctor/result"
)

// The files of tau2's user simulator guidelines: for a user without tools,
// and for one with tools.
const (
	tau2GuidelinesFile      = "simulation_guidelines.md"
	tau2GuidelinesToolsFile = "simulation_guidelines_tools.md"
)

// Tau2Guidelines are the guideline texts tau2's user simulator speaks from
// (UserPromptTau2), and where they came from.
type Tau2Guidelines struct {
	plain, tools string
	// Source says where they came from, as an evaluation records it.
	Source result.UserGuidelines
}

// EmbeddedTau2Guidelines are proctor's copy of tau2's guidelines, the bytes
// of tau2-bench's at the commit proctor follows.
func EmbeddedTau2Guidelines() *Tau2Guidelines {
	return &Tau2Guidelines{plain: tau2Guidelines, tools: tau2GuidelinesTools,
		Source: result.UserGuidelines{Source: result.GuidelinesEmbedded}}
}

// LoadTau2Guidelines reads the guidelines of the tau2 data in tau2Dir, a
// directory laid out like tau2's data/tau2/domains: from its user_simulator
// subdirectory (where 'proctor domains install tau2' puts them) or, for a
// tau2 checkout's data/tau2/domains, from data/tau2/user_simulator beside
// it. When the data has neither (or tau2Dir is ""), they are proctor's
// embedded copy.
//
// The data's copy is what proctor evaluates with, as it does with the rest
// of the data: a copy that differs from tau2-bench's at the pinned commit
// is used all the same, and Source says so (Modified, with each file's
// SHA-256). A directory with one of the two files but not the other, or
// that cannot be read, is an error.
func LoadTau2Guidelines(tau2Dir string) (*Tau2Guidelines, error) {
	if tau2Dir == "" {
		return EmbeddedTau2Guidelines(), nil
	}
	candidates := []string{filepath.Join(tau2Dir, install.GuidelinesDir)}
	if filepath.Base(filepath.Clean(tau2Dir)) == "domains" {
		candidates = append(candidates, filepath.Join(tau2Dir, "..", install.GuidelinesDir))
	}
	for _, dir := range candidates {
		g, err := readTau2Guidelines(dir)
		if err != nil || g != nil {
			return g, err
		}
	}
	return EmbeddedTau2Guidelines(), nil
}

// readTau2Guidelines reads the two files from dir: nil when it has
// neither.
func readTau2Guidelines(dir string) (*Tau2Guidelines, error) {
	plain, errPlain := os.ReadFile(filepath.Join(dir, tau2GuidelinesFile))
	tools, errTools := os.ReadFile(filepath.Join(dir, tau2GuidelinesToolsFile))
	missingPlain, missingTools := errors.Is(errPlain, fs.ErrNotExist), errors.Is(errTools, fs.ErrNotExist)
	switch {
	case missingPlain && missingTools:
		return nil, nil
	case missingPlain || missingTools:
		has, lacks := tau2GuidelinesFile, tau2GuidelinesToolsFile
		if missingPlain {
			has, lacks = lacks, has
		}
		return nil, fmt.Errorf("tau2 user simulator guidelines: %s has %s but not %s: "+
			"install tau2's data again (proctor domains install tau2), or remove the directory to use proctor's copy", dir, has, lacks)
	case errPlain != nil:
		return nil, fmt.Errorf("tau2 user simulator guidelines: %w", errPlain)
	case errTools != nil:
		return nil, fmt.Errorf("tau2 user simulator guidelines: %w", errTools)
	}
	g := &Tau2Guidelines{plain: string(plain), tools: string(tools),
		Source: result.UserGuidelines{Source: result.GuidelinesFromData, Dir: dir}}
	if g.plain != tau2Guidelines || g.tools != tau2GuidelinesTools {
		g.Source.Modified = true
		g.Source.SHA256 = map[string]string{tau2GuidelinesFile: sha256Hex(plain), tau2GuidelinesToolsFile: sha256Hex(tools)}
	}
	return g, nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
