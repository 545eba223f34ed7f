package translation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/agent"
)

// derived returns build(), computed once per key for a Setup made by
// agent.NewSetup (see [agent.Setup.Derived]). Callers must treat the value
// as read-only: it is shared.
func derived[T any](s agent.Setup, key string, build func() T) T {
	return s.Derived(key, func() any { return build() }).(T)
}

// Profile decides what the remote agent is told and how. Replies are parsed
// by [ParseReply] whatever the profile.
type Profile interface {
	// Name is the profile's registered name, as accepted by [ProfileByName].
	Name() agent.ProfileName
	// Render builds the parts of the next message to the agent. first is
	// true for the first message of a conversation, which carries the Setup.
	Render(setup agent.Setup, first bool, in agent.Input) []*a2a.Part
}

// defaultProfile is the profile used when none is named.
const defaultProfile = agent.ProfileAgentBeats

// knownProfiles returns every profile, in name order. A function rather
// than a package variable, so nothing can change the set at run time.
func knownProfiles() []Profile {
	return []Profile{agentBeats{}, structured{}, tau2A2A{}}
}

// ProfileByName returns the named profile. The empty name selects the
// default profile, "agentbeats". An unknown name is an error that lists the
// known ones.
func ProfileByName(name agent.ProfileName) (Profile, error) {
	if name == "" {
		name = defaultProfile
	}
	for _, p := range knownProfiles() {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("translation: unknown profile %q (known: %s)", name, strings.Join(ProfileNames(), ", "))
}

// ProfileNames returns the names of the known profiles, sorted, as plain
// strings for flag help and validation messages.
func ProfileNames() []string {
	var names []string
	for _, p := range knownProfiles() {
		names = append(names, string(p.Name()))
	}
	slices.Sort(names)
	return names
}
