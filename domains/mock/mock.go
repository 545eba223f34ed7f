package mock

import (
	"embed"
	"fmt"

	"github.com/proctor-eval/proctor/domains"
)

// Name is the mock domain's name in a [domains.Registry].
const Name = "mock"

// Description is the one-line summary of the mock domain.
const Description = "Taskly help desk: a small task tracker whose users authenticate by email, " +
	"list, create, update and delete their tasks within their plan's open-task limit, " +
	"and get transferred to a human for billing and account questions."

//go:embed data/db.json data/policy.md data/tasks.json
var data embed.FS

// Task statuses and priorities, as stored in the database and accepted by the
// tools.
const (
	StatusOpen       = "open"
	StatusInProgress = "in_progress"
	StatusDone       = "done"

	PriorityLow    = "low"
	PriorityMedium = "medium"
	PriorityHigh   = "high"
)

// DB is the Taskly database. Maps are keyed by id; JSON encodes them with
// sorted keys, so the state hash does not depend on insertion order.
type DB struct {
	// Now is the fixed current time of the simulated world; tools stamp
	// created and updated tasks with it, never with the clock.
	Now string `json:"now"`
	// NextTaskNumber numbers the next created task: "T-<NextTaskNumber>".
	NextTaskNumber int `json:"next_task_number"`
	// Plans by plan id ("free", "pro", "business").
	Plans map[string]Plan `json:"plans"`
	// Users by user id.
	Users map[string]User `json:"users"`
	// Tasks by task id.
	Tasks map[string]TrackedTask `json:"tasks"`
}

// Plan is a subscription plan and its limit on open (not done) tasks.
type Plan struct {
	Name         string `json:"name"`
	MaxOpenTasks int    `json:"max_open_tasks"`
}

// User is a Taskly account.
type User struct {
	UserID string `json:"user_id"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	Plan   string `json:"plan"`
}

// TrackedTask is one task in a user's list (named so to keep it apart from
// [domains.Task], the evaluation scenario).
type TrackedTask struct {
	TaskID    string `json:"task_id"`
	UserID    string `json:"user_id"`
	Title     string `json:"title"`
	Priority  string `json:"priority"`
	Status    string `json:"status"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// New builds the mock domain from its embedded data: the database, the policy
// and the tasks, checked against the tools.
func New() (*domains.Domain, error) {
	db, err := data.ReadFile("data/db.json")
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	policy, err := data.ReadFile("data/policy.md")
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	raw, err := data.ReadFile("data/tasks.json")
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	tasks, err := domains.ParseTasks(raw)
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	return domains.NewDomain(domains.Spec[DB]{
		Name:        Name,
		Description: Description,
		Policy:      string(policy),
		DB:          db,
		Tasks:       tasks,
		Tools:       Tools(),
	})
}

// openTasks counts a user's tasks that are not done.
func (db *DB) openTasks(userID string) int {
	n := 0
	for _, t := range db.Tasks {
		if t.UserID == userID && t.Status != StatusDone {
			n++
		}
	}
	return n
}
