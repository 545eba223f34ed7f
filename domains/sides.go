package domains

import (
	"context"
	"errors"
	"fmt"
)

// Aliasing states of an environment under Spec.Tau2InitDataAliasing.
const (
	aliasNone = iota
	aliasUserIsAgent
	aliasAgentIsUser
)

// errAliased is what a call on a side that tau2's aliasing quirk replaced
// returns: in tau2 that side's functions run against the other side's
// database and fail.
var errAliased = errors.New("this side's database is an alias of the other side's (tau2 initialization_data quirk)")

// env is the Env of every domain built by NewDomain.
type env struct {
	agent sideEnv
	user  sideEnv // nil: no user side
	alias int
	sync  func(agent, user any) error // Spec.Sync; nil: none
	tau2  bool                        // Spec.Tau2Messages
}

// runSync runs the domain's Spec.Sync, if any, on both sides' databases. A
// panic in it is an error, as a tool's is.
func (e *env) runSync() (err error) {
	if e.sync == nil || e.user == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sync failed: %v", r)
		}
	}()
	return e.sync(e.agent.state(), e.user.state())
}

// sideFor returns the side a requestor reaches (see Domain.side), or nil
// when the requestor is unknown. aliased reports that the side is an alias
// under the tau2 quirk.
func (e *env) sideFor(requestor string) (side sideEnv, aliased bool) {
	if e.user == nil {
		return e.agent, false
	}
	switch requestor {
	case "", RequestorAssistant:
		return e.agent, e.alias == aliasAgentIsUser
	case RequestorUser:
		return e.user, e.alias == aliasUserIsAgent
	}
	return nil, false
}

// callSide runs a tool, or with envFuncs also an env function, on a side.
func (e *env) callSide(ctx context.Context, requestor, name string, args map[string]any, envFuncs bool) ToolResult {
	side, aliased := e.sideFor(requestor)
	switch {
	case e.tau2 && e.user == nil && requestor == RequestorUser:
		return ToolResult{Content: "Error: User tools not available", Error: true}
	case e.tau2 && side != nil && !side.hasTool(name, envFuncs):
		return ToolResult{Content: "Error: Tool '" + name + "' not found.", Error: true}
	case side == nil:
		return ToolResult{Content: fmt.Sprintf("Error: unknown requestor %q", requestor), Error: true}
	case aliased:
		return ToolResult{Content: "Error: " + errAliased.Error(), Error: true}
	}
	res := side.call(ctx, name, args, envFuncs)
	if res.Error {
		return res
	}
	if err := e.runSync(); err != nil {
		return ToolResult{Content: "Error: " + err.Error(), Error: true}
	}
	return res
}

// Call implements Env.
func (e *env) Call(call ToolCall) ToolResult {
	return e.CallContext(context.Background(), call)
}

// CallContext is Call under ctx, which a tool registered with
// RegisterContext receives.
func (e *env) CallContext(ctx context.Context, call ToolCall) ToolResult {
	return e.callSide(ctx, call.Requestor, call.Name, call.Arguments, false)
}

// CallContext runs a tool call on env under ctx (see
// Toolbox.RegisterContext): an Env not built by NewDomain runs it with
// Call.
func CallContext(ctx context.Context, env Env, call ToolCall) ToolResult {
	if x, ok := env.(interface {
		CallContext(context.Context, ToolCall) ToolResult
	}); ok {
		return x.CallContext(ctx, call)
	}
	return env.Call(call)
}

// Hash implements Env.
func (e *env) Hash() (string, error) {
	a, u, err := e.sideHashes()
	if err != nil {
		return "", err
	}
	if e.user == nil {
		return a, nil
	}
	return a + ":" + u, nil
}

func (e *env) sideHashes() (agent, user string, err error) {
	if agent, err = e.agent.hash(); err != nil {
		return "", "", err
	}
	if e.user == nil {
		return agent, "", nil
	}
	if user, err = e.user.hash(); err != nil {
		return "", "", fmt.Errorf("user side: %w", err)
	}
	switch e.alias {
	case aliasUserIsAgent:
		user = agent
	case aliasAgentIsUser:
		agent = user
	}
	return agent, user, nil
}

// SideHashes returns the hashes of an environment's agent and user
// databases; a side without a database hashes to "" (two of which are
// equal, as in tau2's DB check). For an Env not built by NewDomain it is
// env.Hash() and "".
func SideHashes(e Env) (agent, user string, err error) {
	if x, ok := e.(*env); ok {
		return x.sideHashes()
	}
	agent, err = e.Hash()
	return agent, "", err
}

// CallFunc calls a tool or env function by name on one side of an
// environment ("" or "assistant": the agent's; "user": the user's) and
// returns its raw result, as initialization actions and env assertions do;
// the domain's Spec.Sync then runs, as tau2 syncs after every env function.
// It fails for an Env not built by NewDomain.
func CallFunc(e Env, side, name string, args map[string]any) (any, error) {
	x, ok := e.(*env)
	if !ok {
		return nil, fmt.Errorf("environment %T has no env functions", e)
	}
	s, aliased := x.sideFor(side)
	switch {
	case s == nil:
		return nil, fmt.Errorf("unknown side %q", side)
	case aliased:
		return nil, errAliased
	}
	out, err := s.callFunc(name, args)
	if err != nil {
		return nil, err
	}
	if err := x.runSync(); err != nil {
		return nil, err
	}
	return out, nil
}

// CheckEnvAssertion runs an env assertion on an environment and returns
// what its function returned. An error (the function failed or did not
// return a boolean) means the assertion is not met.
func CheckEnvAssertion(e Env, a EnvAssertion) (bool, error) {
	out, err := CallFunc(e, a.EnvType, a.FuncName, a.Arguments)
	if err != nil {
		return false, err
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("%s returned %T, not a boolean", a.FuncName, out)
	}
	return b, nil
}
