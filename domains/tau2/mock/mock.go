// Package mock is tau2-bench's mock domain for proctor: a small task
// tracker with a user side. The agent creates tasks and updates their
// status; the user simulator has a notification inbox of its own (user
// tools, requestor "user"). Its ten tasks exercise every initial-state
// mechanism of tau2's task format (initialization_data,
// initialization_actions on both sides, message_history) and env
// assertions.
//
// The data is tau2-bench's and is not part of proctor: [New] reads it from
// a directory laid out as tau2's data/tau2/domains/mock (db.json,
// user_db.json, tasks.json, split_tasks.json, policy.md). The tools follow
// tau2's domains specification (section 4) for tau2-bench commit a2c0247,
// and [DB.Hash] and [UserDB.Hash] reproduce its database hashes, the tau2
// aliasing quirk of initialization_data included (see
// domains.Spec.Tau2InitDataAliasing), so gold hashes agree with tau2's.
//
// Known differences: update_task_status stores any string as a status
// (tau2 stores any value unvalidated; proctor rejects non-strings), and
// users or notifications added by initialization_data come after the
// existing ones in sorted id order, where Python keeps the data's order.
// Otherwise tool messages are tau2's bytes (TestBadCalls replays
// bad_calls.json): json.dumps layout, TypeErrors naming MockTools or
// MockUserTools, a list or object task_id failing as Python's dict lookup
// does ("unhashable type: 'list'"), and create_task with a title that is
// not a str (or a description neither a str nor null) failing with
// pydantic's ValidationError text for tau2's Task model, whose
// errors.pydantic.dev links name the pydantic version tau2 pins
// (pycompat.PydanticURLVersion).
package mock

import (
	"fmt"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/taskfile"
)

// Name is the domain's name in a [domains.Registry].
const Name = "tau2-mock"

// Description is the one-line summary of the domain.
const Description = "tau2-bench mock: a small task tracker whose agent creates tasks and updates " +
	"their status, with a user side (a notification inbox the user simulator checks)."

// Data file names inside the domain directory.
const (
	DBFile     = "db.json"
	UserDBFile = "user_db.json"
	TasksFile  = "tasks.json"
	SplitsFile = "split_tasks.json"
	PolicyFile = "policy.md"
)

// New builds the mock domain from the tau2 data in dir, with the tasks of
// the named split; "" means every task of tasks.json, as tau2's mock loader
// does.
func New(dir, split string) (*domains.Domain, error) {
	dataDir := taskfile.Dir{Path: dir, Domain: "tau2 mock"}
	files := map[string][]byte{}
	for _, name := range []string{DBFile, UserDBFile, PolicyFile} {
		b, err := dataDir.Read(name)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	tasks, err := dataDir.Tasks(split, nil)
	if err != nil {
		return nil, err
	}
	d, err := domains.NewDomain(domains.Spec[DB]{
		Tau2Messages:         true,
		Name:                 Name,
		Description:          Description,
		Policy:               string(files[PolicyFile]),
		DB:                   files[DBFile],
		Tasks:                tasks,
		Tools:                Tools(),
		User:                 domains.NewSide(files[UserDBFile], UserTools()),
		Tau2InitDataAliasing: true,
	})
	if err != nil {
		return nil, fmt.Errorf("tau2 mock: %w", err)
	}
	return d, nil
}

// The classes of tau2's mock toolkits, which Python's TypeErrors for a
// call's arguments name (MockTools.fn()).
const (
	toolsClass     = "MockTools"
	userToolsClass = "MockUserTools"
)
