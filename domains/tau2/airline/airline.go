// Package airline is tau2-bench's airline domain for proctor: an airline's
// customer service, where the agent books, changes and cancels flight
// reservations for users under a written policy.
//
// The data is tau2-bench's and is not part of proctor: [New] reads it from a
// directory laid out as tau2's data/tau2/domains/airline (db.json,
// tasks.json, split_tasks.json, policy.md). The tools reproduce tau2's
// behaviour, failures included, and [DB.Hash] reproduces its database hash,
// so rewards computed by proctor agree with tau2's on the same trajectories.
// The behaviour followed is the one described in tau2's domains
// specification (section 2, airline) for tau2-bench commit a2c0247.
//
// A simulation's database is a copy-on-write [DB.Clone] of one template
// decoded at load time: records are shared until a tool changes them, so
// many concurrent simulations cost little more than one.
//
// Usage:
//
//	d, err := airline.New("/path/to/tau2-bench/data/tau2/domains/airline", "base")
//	if err != nil {
//		log.Fatal(err)
//	}
//	task, _ := d.Task("8")
//	env, err := d.NewEnv(task)
//	res := env.Call(domains.ToolCall{Name: "get_user_details", Arguments: map[string]any{"user_id": "sophia_silva_7557"}})
package airline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/proctor-eval/proctor/domains"
)

// Name is the airline domain's name in a [domains.Registry].
const Name = "airline"

// Description is the one-line summary of the airline domain.
const Description = "tau2-bench airline: customer service of an airline whose agent books, " +
	"modifies and cancels flight reservations, handles baggage, passengers and payments, " +
	"and offers compensation under a written policy."

// DefaultSplit is the task split used when none is named.
const DefaultSplit = "base"

// Data file names inside the domain directory.
const (
	DBFile     = "db.json"
	TasksFile  = "tasks.json"
	SplitsFile = "split_tasks.json"
	PolicyFile = "policy.md"
)

// New builds the airline domain from the tau2 data in dir, with the tasks of
// the named split ("" means "base").
func New(dir, split string) (*domains.Domain, error) {
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("airline: %w", err)
		}
		return b, nil
	}
	policy, err := read(PolicyFile)
	if err != nil {
		return nil, err
	}
	rawTasks, err := read(TasksFile)
	if err != nil {
		return nil, err
	}
	rawSplits, err := read(SplitsFile)
	if err != nil {
		return nil, err
	}
	db, err := read(DBFile)
	if err != nil {
		return nil, err
	}
	tasks, err := domains.ParseTasks(rawTasks)
	if err != nil {
		return nil, fmt.Errorf("airline: %s: %w", TasksFile, err)
	}
	if tasks, err = selectSplit(tasks, rawSplits, split); err != nil {
		return nil, fmt.Errorf("airline: %w", err)
	}
	d, err := domains.NewDomain(domains.Spec[DB]{
		Name:        Name,
		Description: Description,
		Policy:      string(policy),
		DB:          db,
		Tasks:       tasks,
		Tools:       Tools(),
	})
	if err != nil {
		return nil, fmt.Errorf("airline: %w", err)
	}
	return d, nil
}

// selectSplit keeps the tasks of a split, in tasks.json order as tau2 does.
func selectSplit(tasks []domains.Task, rawSplits []byte, split string) ([]domains.Task, error) {
	if split == "" {
		split = DefaultSplit
	}
	var splits map[string][]string
	if err := json.Unmarshal(rawSplits, &splits); err != nil {
		return nil, fmt.Errorf("%s: %w", SplitsFile, err)
	}
	ids, ok := splits[split]
	if !ok {
		return nil, fmt.Errorf("unknown task split %q (known: %s)", split, strings.Join(sortedKeys(splits), ", "))
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var out []domains.Task
	for _, t := range tasks {
		if want[t.ID] {
			out = append(out, t)
			delete(want, t.ID)
		}
	}
	if len(want) > 0 {
		return nil, fmt.Errorf("split %q names tasks that %s does not have: %s", split, TasksFile, strings.Join(sortedKeys(want), ", "))
	}
	return out, nil
}
