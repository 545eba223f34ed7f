// Package banking is tau2-bench's banking_knowledge domain (v1.0): a bank's
// customer service whose agent finds procedures in a knowledge base,
// unlocks the "discoverable" tools they name, gives tools to the user, and
// changes the database as the policy says. Agent and user tools act on one
// database, whose hash is tau2's; the clock is fixed at 2025-11-14 03:40
// and new record ids are tau2's SHA-256 ids of Python-formatted seeds.
//
// The knowledge retrieval tools (KB_search, grep) are package
// domains/tau2/knowledge's; this package holds the transactional side.
package banking

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/proctor-eval/proctor/domains"
)

// Name is the domain's name, as tau2 names it.
const Name = "banking_knowledge"

// Description is the one-line summary of the domain.
const Description = "tau2-bench banking_knowledge: a bank's customer service, where the agent finds procedures " +
	"in a knowledge base, unlocks the tools they describe, hands tools to the user and changes accounts, " +
	"cards and disputes exactly as the policy says."

// DBFile is the database file in the domain directory; tasks are
// TasksDir/task_*.json (not the combined tasks.json, which differs).
const (
	DBFile   = "db.json"
	TasksDir = "tasks"
)

// New builds the domain from tau2's data in dir with the given agent
// policy and no retrieval tools (NewWithRetrieval composes both from a
// retrieval configuration, as tau2 does).
func New(dir, policy string) (*domains.Domain, error) {
	return build(dir, policy, Tools(), nil)
}

// build builds the domain from tau2's data in dir with the agent's policy
// and toolbox; taskPolicy, when set, composes the policy per task.
func build(dir, policy string, tools *domains.Toolbox[DB], taskPolicy func(*domains.Task) (string, error)) (*domains.Domain, error) {
	db, err := os.ReadFile(filepath.Join(dir, DBFile))
	if err != nil {
		return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
	}
	tasks, err := LoadTasks(dir)
	if err != nil {
		return nil, err
	}
	ordered, err := orderedAgentData(dir)
	if err != nil {
		return nil, err
	}
	d, err := domains.NewDomain(domains.Spec[DB]{
		Tau2Messages: true,
		Name:         Name,
		Description:  Description,
		Policy:       policy,
		TaskPolicy:   taskPolicy,
		DB:           db,
		Tasks:        tasks,
		Tools:        tools,
		User:         domains.NewSide([]byte("{}"), UserTools()),
		Sync:         syncSides,
		Setup:        setupOrdered(ordered),
	})
	if err != nil {
		return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
	}
	return d, nil
}

// taskFiles lists tasks/task_*.json in file-name order, as tau2's
// get_tasks reads them.
func taskFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, TasksDir, "task_*.json"))
	if err != nil {
		return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("tau2 banking_knowledge: no task files in %s; install the domain's data", filepath.Join(dir, TasksDir))
	}
	sort.Strings(files)
	return files, nil
}

// LoadTasks reads tasks/task_*.json in file-name order, as tau2's
// get_tasks does.
func LoadTasks(dir string) ([]domains.Task, error) {
	files, err := taskFiles(dir)
	if err != nil {
		return nil, err
	}
	tasks := make([]domains.Task, 0, len(files))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
		}
		parsed, err := domains.ParseTasks(append(append([]byte("["), raw...), ']'))
		if err != nil {
			return nil, fmt.Errorf("tau2 banking_knowledge: %s: %w", filepath.Base(f), err)
		}
		tasks = append(tasks, parsed...)
	}
	return tasks, nil
}

// setupTask gives the environment its task's read-log allowlist: the
// discoverable tools the gold trajectory calls (tau2's
// _derive_read_log_allowlist), whose read-only calls are then logged.
func setupTask(db *DB, task *domains.Task) error {
	db.readAllow = map[string]bool{}
	if db.unlocked == nil {
		db.unlocked = map[string]bool{}
	}
	if task == nil || task.EvaluationCriteria == nil {
		return nil
	}
	for _, a := range task.EvaluationCriteria.Actions {
		if a.Name != "call_discoverable_agent_tool" {
			continue
		}
		if name, ok := a.Arguments["agent_tool_name"].(string); ok && name != "" {
			db.readAllow[name] = true
		}
	}
	return nil
}
