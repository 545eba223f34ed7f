package mock

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
)

// TransferMessage is what transfer_to_human_agents returns.
const TransferMessage = "Transfer successful: a human agent will take over this conversation."

// UserProfile is what get_user returns: the account, its plan and how much
// room the plan leaves.
type UserProfile struct {
	UserID       string `json:"user_id"`
	Name         string `json:"name"`
	Email        string `json:"email"`
	Plan         string `json:"plan"`
	PlanName     string `json:"plan_name"`
	MaxOpenTasks int    `json:"max_open_tasks"`
	OpenTasks    int    `json:"open_tasks"`
}

// TaskList is what list_tasks returns.
type TaskList struct {
	UserID string        `json:"user_id"`
	Status string        `json:"status_filter,omitempty"`
	Count  int           `json:"count"`
	Tasks  []TrackedTask `json:"tasks"`
}

// Tools returns the Taskly toolbox: the seven tools the agent may call.
func Tools() *domains.Toolbox[DB] {
	tb := domains.NewToolbox[DB]()
	tb.Register("find_user_by_email",
		"Find a Taskly account by its email address. Use this first to authenticate the user; it returns the user's id and name.",
		`{"type": "object", "properties": {
			"email": {"type": "string", "description": "The email address of the user's Taskly account, e.g. 'jane@example.com'."}
		}, "required": ["email"]}`,
		findUserByEmail)
	tb.Register("get_user",
		"Get a user's profile: name, email, plan, the plan's maximum number of open (not done) tasks, and how many open tasks the user has now.",
		`{"type": "object", "properties": {
			"user_id": {"type": "string", "description": "The user's id, e.g. 'u-1001', as returned by find_user_by_email."}
		}, "required": ["user_id"]}`,
		getUser)
	tb.Register("list_tasks",
		"List a user's tasks (id, title, priority, status, timestamps), ordered by task id, optionally only those with a given status.",
		`{"type": "object", "properties": {
			"user_id": {"type": "string", "description": "The user's id, e.g. 'u-1001'."},
			"status": {"type": "string", "enum": ["open", "in_progress", "done"], "description": "Optional: only list tasks with this status. Omit it to list all tasks."}
		}, "required": ["user_id"]}`,
		listTasks)
	tb.Register("create_task",
		"Create a task with status 'open' for a user. Fails if the user already has as many open (not done) tasks as their plan allows.",
		`{"type": "object", "properties": {
			"user_id": {"type": "string", "description": "The id of the user who owns the new task."},
			"title": {"type": "string", "description": "The task's title, exactly as the user wants it."},
			"priority": {"type": "string", "enum": ["low", "medium", "high"], "description": "The task's priority."}
		}, "required": ["user_id", "title", "priority"]}`,
		createTask)
	tb.Register("update_task_status",
		"Change a task's status. Reopening a done task fails if the owner is already at their plan's open-task limit.",
		`{"type": "object", "properties": {
			"task_id": {"type": "string", "description": "The task's id, e.g. 'T-1001'."},
			"status": {"type": "string", "enum": ["open", "in_progress", "done"], "description": "The new status."}
		}, "required": ["task_id", "status"]}`,
		updateTaskStatus)
	tb.Register("delete_task",
		"Permanently delete a task. This cannot be undone: only call it after the user has explicitly confirmed the deletion.",
		`{"type": "object", "properties": {
			"task_id": {"type": "string", "description": "The id of the task to delete, e.g. 'T-1001'."}
		}, "required": ["task_id"]}`,
		deleteTask)
	tb.Register("transfer_to_human_agents",
		"Transfer the user to a human agent, for requests outside the scope of your tools or policy (billing, refunds, plan changes, account deletion...). Tell the user they have been transferred afterwards.",
		`{"type": "object", "properties": {
			"summary": {"type": "string", "description": "A short summary of the user's request for the human agent."}
		}, "required": ["summary"]}`,
		transfer)
	return tb
}

func findUserByEmail(db *DB, args domains.Args) (any, error) {
	email, err := args.String("email")
	if err != nil {
		return nil, err
	}
	want := strings.ToLower(strings.TrimSpace(email))
	for _, id := range sortedKeys(db.Users) {
		if u := db.Users[id]; strings.ToLower(u.Email) == want {
			return map[string]string{"user_id": u.UserID, "name": u.Name}, nil
		}
	}
	return nil, fmt.Errorf("no user found with email %q", email)
}

func getUser(db *DB, args domains.Args) (any, error) {
	u, err := lookupUser(db, args)
	if err != nil {
		return nil, err
	}
	plan, err := planOf(db, u)
	if err != nil {
		return nil, err
	}
	return UserProfile{
		UserID:       u.UserID,
		Name:         u.Name,
		Email:        u.Email,
		Plan:         u.Plan,
		PlanName:     plan.Name,
		MaxOpenTasks: plan.MaxOpenTasks,
		OpenTasks:    db.openTasks(u.UserID),
	}, nil
}

func listTasks(db *DB, args domains.Args) (any, error) {
	u, err := lookupUser(db, args)
	if err != nil {
		return nil, err
	}
	status, err := args.OptString("status")
	if err != nil {
		return nil, err
	}
	if status != "" {
		if status, err = checkStatus(status); err != nil {
			return nil, err
		}
	}
	out := TaskList{UserID: u.UserID, Status: status, Tasks: []TrackedTask{}}
	for _, id := range sortedKeys(db.Tasks) {
		t := db.Tasks[id]
		if t.UserID == u.UserID && (status == "" || t.Status == status) {
			out.Tasks = append(out.Tasks, t)
		}
	}
	out.Count = len(out.Tasks)
	return out, nil
}

func createTask(db *DB, args domains.Args) (any, error) {
	u, err := lookupUser(db, args)
	if err != nil {
		return nil, err
	}
	title, err := args.String("title")
	if err != nil {
		return nil, err
	}
	title = strings.TrimSpace(title)
	if len(title) > 200 {
		return nil, fmt.Errorf("title is too long (%d characters; at most 200)", len(title))
	}
	p, err := args.String("priority")
	if err != nil {
		return nil, err
	}
	priority := strings.ToLower(strings.TrimSpace(p))
	if !slices.Contains([]string{PriorityLow, PriorityMedium, PriorityHigh}, priority) {
		return nil, fmt.Errorf("invalid priority %q: must be one of low, medium, high", p)
	}
	if err := checkRoom(db, u); err != nil {
		return nil, err
	}
	t := TrackedTask{
		TaskID:    fmt.Sprintf("T-%d", db.NextTaskNumber),
		UserID:    u.UserID,
		Title:     title,
		Priority:  priority,
		Status:    StatusOpen,
		CreatedAt: db.Now,
		UpdatedAt: db.Now,
	}
	if _, dup := db.Tasks[t.TaskID]; dup {
		return nil, fmt.Errorf("internal error: task id %s already in use", t.TaskID)
	}
	if db.Tasks == nil {
		db.Tasks = map[string]TrackedTask{}
	}
	db.Tasks[t.TaskID] = t
	db.NextTaskNumber++
	return t, nil
}

func updateTaskStatus(db *DB, args domains.Args) (any, error) {
	t, err := lookupTask(db, args)
	if err != nil {
		return nil, err
	}
	s, err := args.String("status")
	if err != nil {
		return nil, err
	}
	status, err := checkStatus(s)
	if err != nil {
		return nil, err
	}
	if t.Status == status {
		return t, nil // nothing to change; updated_at stays as it was
	}
	if t.Status == StatusDone {
		u, ok := db.Users[t.UserID]
		if !ok {
			return nil, fmt.Errorf("internal error: task %s has unknown owner %s", t.TaskID, t.UserID)
		}
		if err := checkRoom(db, u); err != nil {
			return nil, fmt.Errorf("cannot reopen %s: %w", t.TaskID, err)
		}
	}
	t.Status = status
	t.UpdatedAt = db.Now
	db.Tasks[t.TaskID] = t
	return t, nil
}

func deleteTask(db *DB, args domains.Args) (any, error) {
	t, err := lookupTask(db, args)
	if err != nil {
		return nil, err
	}
	delete(db.Tasks, t.TaskID)
	return map[string]any{"deleted": true, "task_id": t.TaskID, "title": t.Title}, nil
}

func transfer(_ *DB, args domains.Args) (any, error) {
	if _, err := args.String("summary"); err != nil {
		return nil, err
	}
	return TransferMessage, nil
}

func lookupUser(db *DB, args domains.Args) (User, error) {
	id, err := args.String("user_id")
	if err != nil {
		return User{}, err
	}
	u, ok := db.Users[strings.TrimSpace(id)]
	if !ok {
		return User{}, fmt.Errorf("unknown user_id %q", id)
	}
	return u, nil
}

func lookupTask(db *DB, args domains.Args) (TrackedTask, error) {
	id, err := args.String("task_id")
	if err != nil {
		return TrackedTask{}, err
	}
	t, ok := db.Tasks[strings.ToUpper(strings.TrimSpace(id))]
	if !ok {
		return TrackedTask{}, fmt.Errorf("unknown task_id %q", id)
	}
	return t, nil
}

func planOf(db *DB, u User) (Plan, error) {
	p, ok := db.Plans[u.Plan]
	if !ok {
		return Plan{}, fmt.Errorf("internal error: user %s has unknown plan %q", u.UserID, u.Plan)
	}
	return p, nil
}

// checkRoom fails when the user cannot have one more open task.
func checkRoom(db *DB, u User) error {
	plan, err := planOf(db, u)
	if err != nil {
		return err
	}
	if n := db.openTasks(u.UserID); n >= plan.MaxOpenTasks {
		return fmt.Errorf("plan limit reached: the %s plan allows at most %d open tasks (status open or in_progress) and user %s already has %d; mark a task as done or delete one first",
			plan.Name, plan.MaxOpenTasks, u.UserID, n)
	}
	return nil
}

func checkStatus(s string) (string, error) {
	status := strings.ToLower(strings.TrimSpace(s))
	if !slices.Contains([]string{StatusOpen, StatusInProgress, StatusDone}, status) {
		return "", fmt.Errorf("invalid status %q: must be one of open, in_progress, done", s)
	}
	return status, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
