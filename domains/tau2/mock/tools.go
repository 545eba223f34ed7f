package mock

import (
	"fmt"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
	"slices"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
)

// TransferMessage is what transfer_to_human_agents returns.
const TransferMessage = "Transfer successful"

// Tools returns the agent's tools and env functions (domains-spec.md 4.2).
func Tools() *domains.Toolbox[DB] {
	tb := domains.NewToolbox[DB]()
	tb.EncodeWith(pyjson.ToolMessage) // tau2's json.dumps layout
	tb.Register("create_task",
		"Create a new pending task for a user and add it to the user's task list. Returns the new task.",
		`{"type": "object", "properties": {
			"user_id": {"type": "string", "description": "The id of the user who owns the task, such as 'user_1'."},
			"title": {"type": "string", "description": "A short title for the task."},
			"description": {"type": "string", "description": "An optional longer description."}
		}, "required": ["user_id", "title"]}`,
		createTask)
	tb.Register("get_users",
		"List every user with the ids of their tasks.",
		`{"type": "object", "properties": {}}`,
		getUsers)
	tb.Register("update_task_status",
		"Set the status of an existing task. Returns the updated task.",
		`{"type": "object", "properties": {
			"task_id": {"type": "string", "description": "The task's id, such as 'task_1'."},
			"status": {"type": "string", "enum": ["pending", "completed"], "description": "The new status."}
		}, "required": ["task_id", "status"]}`,
		updateTaskStatus)
	tb.Register("transfer_to_human_agents",
		"Hand the conversation to a human agent, with a short summary. Keep it for requests your tools cannot handle.",
		`{"type": "object", "properties": {
			"summary": {"type": "string", "description": "A short summary of the user's problem for the human agent."}
		}, "required": ["summary"]}`,
		transferToHumanAgents)
	tb.RegisterEnvFunc("assert_number_of_tasks", assertNumberOfTasks)
	tb.RegisterEnvFunc("assert_task_status", assertTaskStatus)
	return tb
}

// UserTools returns the user simulator's tools and env functions
// (domains-spec.md 4.3).
func UserTools() *domains.Toolbox[UserDB] {
	tb := domains.NewToolbox[UserDB]()
	tb.EncodeWith(pyjson.ToolMessage) // tau2's json.dumps layout
	fns := map[string]domains.ToolFunc[UserDB]{
		"check_notifications":  checkNotifications,
		"dismiss_notification": dismissNotification,
	}
	// tau2's names, descriptions and schemas, in its order: the user
	// simulator is told of them as tau2's is.
	for _, s := range userToolSpecs {
		tb.Register(s.Name, s.Description, s.Parameters, fns[s.Name])
	}
	tb.RegisterEnvFunc("add_notification", addNotification)
	tb.RegisterEnvFunc("assert_notification_status", assertNotificationStatus)
	return tb
}

// str returns a string argument; any other JSON type fails, as pydantic
// never makes strings from other types.
func str(args domains.Args, name string) (string, error) {
	s, ok := args[name].(string)
	if !ok {
		return "", fmt.Errorf("argument '%s': input should be a valid string", name)
	}
	return s, nil
}

// optStr returns an optional string argument: nil when absent or null.
func optStr(args domains.Args, name string) (*string, error) {
	if v, ok := args[name]; !ok || v == nil {
		return nil, nil
	}
	s, err := str(args, name)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// taskFields reads create_task's title and description as tau2's Task
// model validates them: a title that is not a str, or a description that
// is neither a str nor null, fails with pydantic's ValidationError, which
// names every failing field.
func taskFields(args domains.Args) (title string, desc *string, err error) {
	var errs []pycompat.FieldError
	title, ok := args["title"].(string)
	if !ok {
		errs = append(errs, pycompat.StringTypeError("title", args["title"]))
	}
	if v := args["description"]; v != nil {
		s, ok := v.(string)
		if !ok {
			errs = append(errs, pycompat.StringTypeError("description", v))
		}
		desc = &s
	}
	if len(errs) > 0 {
		return "", nil, pycompat.ValidationError("Task", errs)
	}
	return title, desc, nil
}

func createTask(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "create_task", args, []string{"user_id", "title"}, "description"); err != nil {
		return nil, err
	}
	userID, err := str(args, "user_id")
	if err != nil {
		return nil, err
	}
	user, ok := db.Users.get(userID)
	if !ok {
		return nil, fmt.Errorf("User %s not found", userID)
	}
	title, desc, err := taskFields(args)
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("task_%d", db.Tasks.len()+1)
	t := &Task{TaskID: id, Title: title, Description: desc, Status: StatusPending}
	db.Tasks.put(id, t) // overwrites a task of that id, as tau2 does
	u := *user
	u.Tasks = append(slices.Clip(u.Tasks), id)
	db.Users.put(userID, &u)
	return t, nil
}

func getUsers(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "get_users", args, nil); err != nil {
		return nil, err
	}
	return db.Users.values(), nil
}

func updateTaskStatus(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "update_task_status", args, []string{"task_id", "status"}); err != nil {
		return nil, err
	}
	// tau2 looks the id up in a dict first: a list or object fails there.
	switch args["task_id"].(type) {
	case []any:
		return nil, fmt.Errorf("unhashable type: 'list'")
	case map[string]any:
		return nil, fmt.Errorf("unhashable type: 'dict'")
	}
	id, err := str(args, "task_id")
	if err != nil {
		return nil, err
	}
	task, ok := db.Tasks.get(id)
	if !ok {
		return nil, fmt.Errorf("Task %s not found", id)
	}
	// tau2 stores any value unvalidated; proctor takes any string.
	status, err := str(args, "status")
	if err != nil {
		return nil, err
	}
	t := *task
	t.Status = status
	db.Tasks.put(id, &t)
	return &t, nil
}

func transferToHumanAgents(_ *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "transfer_to_human_agents", args, []string{"summary"}); err != nil {
		return nil, err
	}
	return TransferMessage, nil
}

func assertNumberOfTasks(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "assert_number_of_tasks", args, []string{"user_id", "expected_number"}); err != nil {
		return nil, err
	}
	id, err := str(args, "user_id")
	if err != nil {
		return nil, err
	}
	user, ok := db.Users.get(id)
	if !ok {
		return nil, fmt.Errorf("User %s not found", id)
	}
	n, err := args.Int("expected_number")
	if err != nil {
		return nil, err
	}
	return len(user.Tasks) == n, nil
}

func assertTaskStatus(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "assert_task_status", args, []string{"task_id", "expected_status"}); err != nil {
		return nil, err
	}
	id, err := str(args, "task_id")
	if err != nil {
		return nil, err
	}
	task, ok := db.Tasks.get(id)
	if !ok {
		return nil, fmt.Errorf("Task %s not found", id)
	}
	return args["expected_status"] == task.Status, nil
}

func checkNotifications(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "check_notifications", args, nil); err != nil {
		return nil, err
	}
	return db.Notifications.values(), nil
}

func dismissNotification(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "dismiss_notification", args, []string{"notification_id"}); err != nil {
		return nil, err
	}
	id, err := str(args, "notification_id")
	if err != nil {
		return nil, err
	}
	n, ok := db.Notifications.get(id)
	if !ok {
		return nil, fmt.Errorf("Notification %s not found", id)
	}
	c := *n
	c.Status = NotificationRead
	db.Notifications.put(id, &c)
	return fmt.Sprintf("Notification %s dismissed", id), nil
}

func addNotification(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "add_notification", args, []string{"notification_id", "message"}, "task_id"); err != nil {
		return nil, err
	}
	id, err := str(args, "notification_id")
	if err != nil {
		return nil, err
	}
	msg, err := str(args, "message")
	if err != nil {
		return nil, err
	}
	task, err := optStr(args, "task_id")
	if err != nil {
		return nil, err
	}
	n := &Notification{NotificationID: id, Message: msg, Status: NotificationUnread, TaskID: task}
	db.Notifications.put(id, n)
	return n, nil
}

func assertNotificationStatus(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "assert_notification_status", args, []string{"notification_id", "expected_status"}); err != nil {
		return nil, err
	}
	id, err := str(args, "notification_id")
	if err != nil {
		return nil, err
	}
	n, ok := db.Notifications.get(id)
	if !ok {
		return nil, fmt.Errorf("Notification %s not found", id)
	}
	return args["expected_status"] == n.Status, nil
}
