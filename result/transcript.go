package result

// Tokens that end a conversation when said in it: the user simulator's
// stop tokens (StopToken also when the agent says it), as in tau2-bench.
// They are part of the transcript's meaning, so the rollout that says them
// and the scorers that read them share these.
const (
	StopToken       = "###STOP###"
	TransferToken   = "###TRANSFER###"
	OutOfScopeToken = "###OUT-OF-SCOPE###"
)

// AgentGreeting opens every conversation, as in tau2-bench: the user
// simulator's first utterance answers it.
const AgentGreeting = "Hi! How can I help you today?"
