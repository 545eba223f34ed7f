package domains

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Spec describes a domain to NewDomain.
type Spec[DB any] struct {
	Name        string
	Description string
	Policy      string
	// DB is the initial database as JSON; every environment decodes its own copy.
	DB    []byte
	Tasks []Task
	Tools *Toolbox[DB]
	// User is the domain's user side, if any: a user database and the
	// tools the user simulator calls (requestor "user"). Build it with
	// NewSide. Nil: the domain has the agent's side only.
	User *Side
	// Tau2InitDataAliasing reproduces a quirk of tau2's initialization_data
	// (domains-spec.md 1.4): once a task's agent_data is merged, the user
	// side is an alias of the agent database (its hash is the agent's and
	// its functions fail); once user_data is merged, the agent side is an
	// alias of the user database. Gold and predicted environments are set
	// up alike, so rewards do not change; it exists only so that gold
	// hashes match tau2's. A task with both agent_data and user_data is
	// then rejected, as tau2's outcome for it is not known.
	Tau2InitDataAliasing bool
	// Tau2Messages words the environment's own failures as tau2's
	// Environment.get_response does: a tool the requestor's side does not
	// have is "Error: Tool 'x' not found.", and in a domain without a user
	// side a call with requestor "user" fails with "Error: User tools not
	// available" instead of running an agent tool.
	Tau2Messages bool
	// Sync, when set, keeps the two sides of a domain with a user side
	// consistent, as tau2's Environment.sync_tools does (telecom mirrors
	// the agent's records of a line into the user's surroundings): it runs
	// with both sides' databases after every tool call that succeeds
	// (Env.Call), after every initialization action and env function
	// (CallFunc), and once more when NewEnv has set up the initial state.
	// user is the user side's database: a pointer to the type given to
	// NewSide. An error fails the call that triggered it (the call's own
	// changes stay, as in tau2); in NewEnv it fails the environment. It
	// needs User.
	Sync func(agent *DB, user any) error
	// Setup, when set, prepares a new environment's agent database for its
	// task (nil: no task) before the task's initial state is applied, as
	// tau2 builds some environments from their task (banking_knowledge
	// logs the read-only calls its gold trajectory makes). An error fails
	// NewEnv.
	Setup func(agent *DB, task *Task) error
	// TaskPolicy, when set, is the agent's policy for a task, in place of
	// Policy (tau2's banking_knowledge inlines a task's required documents
	// in its golden_retrieval prompt); Policy then describes the domain in
	// listings and exports.
	TaskPolicy func(task *Task) (string, error)
}

// Side is one side of a domain's world, its database and functions, built
// with NewSide for Spec.User.
type Side struct {
	tools    []ToolSpec
	hasTool  func(string) bool
	hasFunc  func(string) bool
	validate func() error
	newEnv   func() (sideEnv, error)
}

// NewSide builds a side from its initial database (JSON, decoded strictly
// into DB) and its toolbox. Errors are reported by NewDomain.
func NewSide[DB any](db []byte, tools *Toolbox[DB]) *Side {
	var probe DB
	decodeErr := strictDecode(db, &probe)
	dbJSON := slices.Clone(db)
	newDB := func() (*DB, error) {
		db := new(DB)
		if err := json.Unmarshal(dbJSON, db); err != nil {
			return nil, fmt.Errorf("decode database: %w", err)
		}
		return db, nil
	}
	if _, ok := any(&probe).(Cloner[DB]); ok && decodeErr == nil {
		// Decode once; every environment gets a clone, which for a large
		// database can share what it does not change.
		template := &probe
		newDB = func() (*DB, error) { return any(template).(Cloner[DB]).Clone(), nil }
	}
	return &Side{
		tools:   slices.Clone(tools.specs),
		hasTool: tools.hasTool,
		hasFunc: tools.hasFunc,
		validate: func() error {
			if err := tools.validate(); err != nil {
				return err
			}
			if decodeErr != nil {
				return fmt.Errorf("database: %w", decodeErr)
			}
			return nil
		},
		newEnv: func() (sideEnv, error) {
			db, err := newDB()
			if err != nil {
				return nil, err
			}
			return &toolEnv[DB]{tools: tools, db: db}, nil
		},
	}
}

// NewDomain checks a domain's data against its tools and builds it: the
// databases must decode, every task must be valid, every expected action
// must name a registered tool of its side, and every initialization action
// and env assertion a tool or env function of its side.
func NewDomain[DB any](s Spec[DB]) (*Domain, error) {
	if s.Name == "" {
		return nil, fmt.Errorf("domain without a name")
	}
	if s.Tools == nil {
		return nil, fmt.Errorf("domain %s: no toolbox", s.Name)
	}
	agent := NewSide(s.DB, s.Tools)
	if err := agent.validate(); err != nil {
		return nil, fmt.Errorf("domain %s: %w", s.Name, err)
	}
	if s.User != nil {
		if err := s.User.validate(); err != nil {
			return nil, fmt.Errorf("domain %s: user side: %w", s.Name, err)
		}
	}
	if s.Sync != nil && s.User == nil {
		return nil, fmt.Errorf("domain %s: Sync without a user side", s.Name)
	}
	d := &Domain{
		Name:        s.Name,
		Description: s.Description,
		Policy:      s.Policy,
		Tasks:       s.Tasks,
		Tools:       slices.Clone(agent.tools),
		agent:       agent,
		user:        s.User,
		aliasing:    s.Tau2InitDataAliasing,
		tau2:        s.Tau2Messages,
		taskPolicy:  s.TaskPolicy,
	}
	if s.User != nil {
		d.UserTools = slices.Clone(s.User.tools)
	}
	if sync := s.Sync; sync != nil {
		d.sync = func(agent, user any) error {
			a, ok := agent.(*DB)
			if !ok {
				return fmt.Errorf("sync: agent database is %T, not %T", agent, a)
			}
			return sync(a, user)
		}
	}
	if setup := s.Setup; setup != nil {
		d.setup = func(agent any, task *Task) error {
			a, ok := agent.(*DB)
			if !ok {
				return fmt.Errorf("agent database is %T, not %T", agent, a)
			}
			return setup(a, task)
		}
	}
	ids := make(map[string]bool, len(s.Tasks))
	for _, t := range s.Tasks {
		if ids[t.ID] {
			return nil, fmt.Errorf("domain %s: duplicate task id %q", s.Name, t.ID)
		}
		ids[t.ID] = true
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("domain %s: %w", s.Name, err)
		}
		if err := d.checkTask(&t); err != nil {
			return nil, fmt.Errorf("domain %s: task %s: %w", s.Name, t.ID, err)
		}
	}
	return d, nil
}

// checkTask checks that a task's actions, initialization and assertions
// name functions of the domain, on sides it has.
func (d *Domain) checkTask(t *Task) error {
	if is := t.InitialState; is != nil {
		for _, a := range is.InitializationActions {
			side, err := d.side(a.Side())
			if err != nil {
				return fmt.Errorf("initialization action %s: %w", a.Func(), err)
			}
			if !side.hasFunc(a.Func()) {
				return fmt.Errorf("initialization action names unknown tool or env function %q", a.Func())
			}
		}
		if data := is.InitializationData; data != nil {
			if len(data.UserData) > 0 && d.user == nil {
				return fmt.Errorf("initialization_data has user_data but the domain has no user side")
			}
			if d.aliasing && len(data.AgentData) > 0 && len(data.UserData) > 0 {
				return fmt.Errorf("initialization_data has both agent_data and user_data, which tau2's aliasing quirk leaves undefined")
			}
		}
		calls, err := historyCalls(is.MessageHistory)
		if err != nil {
			return fmt.Errorf("message_history: %w", err)
		}
		for _, c := range calls {
			side, err := d.side(c.Requestor)
			if err != nil {
				return fmt.Errorf("message_history: tool call %s: %w", c.Name, err)
			}
			if !side.hasTool(c.Name) {
				return fmt.Errorf("message_history calls unknown tool %q", c.Name)
			}
		}
	}
	if ec := t.EvaluationCriteria; ec != nil {
		for _, a := range ec.Actions {
			side, err := d.side(a.Requestor)
			if err != nil {
				return fmt.Errorf("action %s: %w", a.Name, err)
			}
			if !side.hasTool(a.Name) {
				return fmt.Errorf("action names unknown tool %q", a.Name)
			}
		}
		for _, a := range ec.EnvAssertions {
			side, err := d.side(a.EnvType)
			if err != nil {
				return fmt.Errorf("env assertion %s: %w", a.FuncName, err)
			}
			if !side.hasFunc(a.FuncName) {
				return fmt.Errorf("env assertion names unknown env function %q", a.FuncName)
			}
		}
	}
	return nil
}

// side returns the side a requestor reaches: the user side for "user" in a
// domain that has one, the agent side otherwise (any requestor in a domain
// without a user side, "" and "assistant" in one with).
func (d *Domain) side(requestor string) (*Side, error) {
	if d.user == nil {
		return d.agent, nil
	}
	switch requestor {
	case "", RequestorAssistant:
		return d.agent, nil
	case RequestorUser:
		return d.user, nil
	}
	return nil, fmt.Errorf("unknown requestor %q", requestor)
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Cloner is implemented by database types that copy themselves more cheaply
// than decoding their JSON again, typically by sharing records and copying
// one only when a tool changes it. NewDomain then decodes the database once
// and gives each environment a Clone. A clone must never change what it
// shares with the template or with other clones.
type Cloner[DB any] interface {
	Clone() *DB
}
