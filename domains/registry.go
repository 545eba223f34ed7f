package domains

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Domain is a loaded, validated domain. Build one with NewDomain.
type Domain struct {
	Name        string
	Description string
	Policy      string
	Tasks       []Task
	// Tools are the agent's tools.
	Tools []ToolSpec
	// UserTools are the user simulator's tools (requestor "user"); nil
	// when the domain has no user side.
	UserTools []ToolSpec

	agent, user *Side
	aliasing    bool
	tau2        bool // Spec.Tau2Messages
	// sync is Spec.Sync with the agent database's type erased; nil when
	// the domain has none.
	sync func(agent, user any) error
	// setup is Spec.Setup with the agent database's type erased; nil when
	// the domain has none.
	setup func(agent any, task *Task) error
	// taskPolicy is Spec.TaskPolicy.
	taskPolicy func(task *Task) (string, error)
}

// HasTaskPolicy reports whether the agent's policy depends on the task
// (Spec.TaskPolicy): PolicyFor then differs from Policy.
func (d *Domain) HasTaskPolicy() bool { return d.taskPolicy != nil }

// PolicyFor returns the agent's policy for a task: Policy, unless the
// domain composes one per task (Spec.TaskPolicy).
func (d *Domain) PolicyFor(task *Task) (string, error) {
	if d.taskPolicy == nil {
		return d.Policy, nil
	}
	p, err := d.taskPolicy(task)
	if err != nil {
		return "", fmt.Errorf("domain %s: policy: %w", d.Name, err)
	}
	return p, nil
}

// HasUserSide reports whether the domain has a user side (Spec.User).
func (d *Domain) HasUserSide() bool { return d.user != nil }

// Task returns the task with the given id.
func (d *Domain) Task(id string) (*Task, bool) {
	for i := range d.Tasks {
		if d.Tasks[i].ID == id {
			return &d.Tasks[i], true
		}
	}
	return nil, false
}

// NewEnv returns a fresh environment with the task's initial state
// applied, in tau2's order: initialization data merged into the databases,
// initialization actions called on their sides, then the tool calls of the
// message history replayed (see ReplayHistory). A failing merge or
// initialization action is an error: the task's data is broken and no
// simulation of it can be scored. Replayed history calls that fail are
// ignored. A domain's Spec.Sync runs after each of these steps and once at
// the end (also without a task), as tau2 syncs a new environment.
func (d *Domain) NewEnv(task *Task) (Env, error) {
	env, err := d.freshEnv()
	if err != nil {
		return nil, fmt.Errorf("domain %s: %w", d.Name, err)
	}
	if d.setup != nil {
		if err := d.setup(env.agent.state(), task); err != nil {
			return nil, fmt.Errorf("domain %s: setup: %w", d.Name, err)
		}
	}
	if task == nil || task.InitialState == nil {
		// tau2's environment syncs when it is built.
		if err := env.runSync(); err != nil {
			return nil, fmt.Errorf("domain %s: %w", d.Name, err)
		}
		return env, nil
	}
	is := task.InitialState
	if data := is.InitializationData; data != nil {
		if len(data.AgentData) > 0 {
			if err := env.agent.merge(data.AgentData); err != nil {
				return nil, fmt.Errorf("domain %s: task %s: initialization_data.agent_data: %w", d.Name, task.ID, err)
			}
			if d.aliasing && env.user != nil {
				env.alias = aliasUserIsAgent
			}
		}
		if len(data.UserData) > 0 {
			if env.user == nil {
				return nil, fmt.Errorf("domain %s: task %s: initialization_data.user_data without a user side", d.Name, task.ID)
			}
			if err := env.user.merge(data.UserData); err != nil {
				return nil, fmt.Errorf("domain %s: task %s: initialization_data.user_data: %w", d.Name, task.ID, err)
			}
			if d.aliasing {
				env.alias = aliasAgentIsUser
			}
		}
	}
	for _, a := range is.InitializationActions {
		if res := env.callSide(context.Background(), a.Side(), a.Func(), a.Arguments, true); res.Error {
			return nil, fmt.Errorf("domain %s: task %s: initialization action %s: %s", d.Name, task.ID, a.Func(), res.Content)
		}
	}
	calls, err := historyCalls(is.MessageHistory)
	if err != nil {
		return nil, fmt.Errorf("domain %s: task %s: message_history: %w", d.Name, task.ID, err)
	}
	for _, c := range calls {
		env.Call(c)
	}
	// tau2 syncs once more at the end of set_state, whatever came before.
	if err := env.runSync(); err != nil {
		return nil, fmt.Errorf("domain %s: task %s: initial state: %w", d.Name, task.ID, err)
	}
	return env, nil
}

// freshEnv returns an environment with the domain's initial databases.
func (d *Domain) freshEnv() (*env, error) {
	a, err := d.agent.newEnv()
	if err != nil {
		return nil, err
	}
	e := &env{agent: a, sync: d.sync, tau2: d.tau2}
	if d.user != nil {
		if e.user, err = d.user.newEnv(); err != nil {
			return nil, fmt.Errorf("user side: %w", err)
		}
	}
	return e, nil
}

// GoldHash replays the task's expected actions on a fresh environment, each
// on its requestor's side, and returns the resulting database hash: the
// state a perfect agent (and user) leaves. Expected actions that fail (a
// policy says no) are replayed all the same, as tau2-bench does; they must
// leave the state unchanged. A domain's Spec.Sync runs after each, as on a
// live call (tau2's evaluator skips it between gold actions; telecom, whose
// sides sync, is not scored on database hashes, and its replay fixture
// syncs as here).
func (d *Domain) GoldHash(task *Task) (string, error) {
	env, err := d.GoldEnv(task)
	if err != nil {
		return "", err
	}
	return env.Hash()
}

// Registry maps domain names to domains.
type Registry struct {
	domains map[string]*Domain
}

// NewRegistry returns a registry holding the given domains.
func NewRegistry(ds ...*Domain) (*Registry, error) {
	r := &Registry{domains: make(map[string]*Domain, len(ds))}
	for _, d := range ds {
		if _, dup := r.domains[d.Name]; dup {
			return nil, fmt.Errorf("domain %q registered twice", d.Name)
		}
		r.domains[d.Name] = d
	}
	return r, nil
}

// Get returns a domain by name, or an error that lists the known names.
func (r *Registry) Get(name string) (*Domain, error) {
	if d, ok := r.domains[name]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("unknown domain %q (known: %s)", name, strings.Join(r.Names(), ", "))
}

// Names returns the registered domain names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.domains))
	for n := range r.domains {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All returns the registered domains in name order.
func (r *Registry) All() []*Domain {
	out := make([]*Domain, 0, len(r.domains))
	for _, n := range r.Names() {
		out = append(out, r.domains[n])
	}
	return out
}

// ToolNames returns the names of a domain's tools in registration order.
func (d *Domain) ToolNames() []string {
	names := make([]string, len(d.Tools))
	for i, t := range d.Tools {
		names[i] = t.Name
	}
	return slices.Clip(names)
}
