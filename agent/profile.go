package agent

// ProfileName names a profile: how an agent that reads text is told the
// Setup and Input, and how its text is read back as a Reply. The profiles
// themselves, which render A2A parts, are package translation's
// (translation.ProfileByName resolves a name); its values are the Profile*
// constants. It is a string type so that names read from flags,
// configuration and JSON convert to it directly.
type ProfileName string

// The names of the profiles, as accepted by translation.ProfileByName.
const (
	// ProfileAgentBeats is the default profile: policy, tools and a
	// respond pseudo-tool (translation.RespondTool) in a text first
	// message; one JSON call per reply.
	ProfileAgentBeats ProfileName = "agentbeats"
	// ProfileTau2A2A follows the tau2-bench A2A integration: text only,
	// the tools in an <available_tools> block, replies in plain text or
	// as {"tool_call": ...} / {"tool_calls": [...]} JSON.
	ProfileTau2A2A ProfileName = "tau2-a2a"
	// ProfileStructured puts the policy and tools in an A2A data part and
	// tool results in another (translation.SetupPolicyKey,
	// translation.SetupToolsKey, translation.ToolResultsKey).
	ProfileStructured ProfileName = "structured"
)
