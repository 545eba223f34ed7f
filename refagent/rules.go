package refagent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/proctor-eval/proctor/agent"
)

// The mock domain's tools, as the rules call them.
const (
	toolFindUser = "find_user_by_email"
	toolGetUser  = "get_user"
	toolList     = "list_tasks"
	toolCreate   = "create_task"
	toolUpdate   = "update_task_status"
	toolDelete   = "delete_task"
	toolTransfer = "transfer_to_human_agents"
)

// mockTools are the tools the rules need from the domain.
func mockTools() []string {
	return []string{toolFindUser, toolGetUser, toolList, toolCreate, toolUpdate, toolDelete, toolTransfer}
}

// awaiting is what the agent asked the user and waits for.
type awaiting int

const (
	awaitNothing  awaiting = iota // no question is open
	awaitConfirm                  // yes or no to the delete at the head of the queue
	awaitPriority                 // a priority for the create at the head of the queue
)

// trackedTask is a task as the mock domain's tools return it.
type trackedTask struct {
	TaskID   string `json:"task_id"`
	Title    string `json:"title"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// conversation is the state machine of one conversation (one A2A context).
// step is its only entry point: given the parsed incoming message it returns
// the next reply. It does no I/O, so tests drive it directly.
type conversation struct {
	// profile is the message profile the conversation is framed in (see
	// profiles.go); the rules do not depend on it.
	profile     agent.ProfileName
	email       string // the email to authenticate with, lowercased
	triedEmail  string // the last email looked up
	userID      string // set once authenticated
	userName    string
	tasks       []trackedTask // the user's tasks, once listed
	haveTasks   bool
	queue       []op // the user's requests, in the order given
	await       awaiting
	pending     string   // the tool called last, whose result is due
	notes       []string // what to tell the user in the next respond
	transferred bool
}

// step consumes one incoming message and decides the next reply. A message
// that carries tool results is about them, unless the user's words follow.
func (c *conversation) step(in input) reply {
	for _, r := range in.Results {
		c.onResult(r)
	}
	if len(in.Results) == 0 || in.User != "" {
		c.onUser(in.User)
	}
	return c.advance()
}

// onUser updates the state with what the user said.
func (c *conversation) onUser(text string) {
	u := parseUtterance(text)
	if c.transferred {
		if u.closing {
			c.note("You're welcome!")
		}
		c.note("A human agent will take over this conversation shortly.")
		return
	}
	if len(c.queue) == 0 {
		c.await = awaitNothing // nothing left to confirm or complete
	}
	switch c.await {
	case awaitConfirm:
		c.await = awaitNothing
		head := c.queue[0]
		switch {
		case u.deny:
			c.pop()
			c.note(fmt.Sprintf("Okay, I won't delete %s; it stays on your list.", head.target()))
			return
		case u.affirm:
			c.queue[0].confirmed = true
			return
		}
		c.pop() // the user moved on without confirming: do not delete
		c.note(fmt.Sprintf("I did not delete %s, since you did not confirm.", head.target()))
	case awaitPriority:
		c.await = awaitNothing
		if u.priority != "" && len(u.ops) == 0 {
			c.queue[0].priority = u.priority
			return
		}
		c.pop()
	}
	if len(u.emails) > 0 && u.emails[0] != c.email {
		c.email = u.emails[0]
		if c.userID != "" { // a different account: authenticate again
			c.userID, c.userName, c.tasks, c.haveTasks = "", "", nil, false
		}
	}
	c.queue = append(c.queue, u.ops...)
	switch {
	case len(u.ops) > 0 || len(u.emails) > 0:
	case u.closing:
		c.note("You're welcome! Have a great day.")
	case c.userID == "":
		c.note("I can help you view, create, update and delete your Taskly tasks. To start, what is the email address of your Taskly account?")
	default:
		c.note("I can help you view, create, update and delete your Taskly tasks. What would you like me to do?")
	}
}

// advance picks the next tool call, or speaks when nothing is left to call.
func (c *conversation) advance() reply {
	for {
		if r, ok := c.identify(); ok {
			return r
		}
		o := &c.queue[0]
		if r, ok := c.accountOp(o); ok {
			return r
		}
		if !c.haveTasks {
			return c.call(toolList, map[string]any{"user_id": c.userID})
		}
		if r, ok := c.taskOp(o); ok {
			return r
		}
	}
}

// identify looks the user up by the email they gave, or asks for it; ok
// says that is the reply. With nothing queued it says what it has noted.
func (c *conversation) identify() (reply, bool) {
	if c.userID == "" && c.email != "" && c.email != c.triedEmail {
		c.triedEmail = c.email
		return c.call(toolFindUser, map[string]any{"email": c.email}), true
	}
	if len(c.queue) == 0 {
		return c.flush(), true
	}
	if c.userID == "" {
		if len(c.notes) == 0 {
			c.note("Before I can help, please tell me the email address of your Taskly account so I can verify your identity.")
		}
		return c.flush(), true
	}
	return reply{}, false
}

// accountOp carries out the operations that need the account but not its
// task list: a transfer, the plan, a new task.
func (c *conversation) accountOp(o *op) (reply, bool) {
	switch o.kind {
	case opTransfer:
		summary := fmt.Sprintf("User %s (%s) needs help outside the help desk's scope. Their request: %s", c.userID, c.email, o.request)
		return c.call(toolTransfer, map[string]any{"summary": summary}), true
	case opPlan:
		return c.call(toolGetUser, map[string]any{"user_id": c.userID}), true
	case opCreate:
		if o.priority == "" {
			c.await = awaitPriority
			c.note(fmt.Sprintf("What priority should %s have: low, medium or high?", o.target()))
			return c.flush(), true
		}
		return c.call(toolCreate, map[string]any{"user_id": c.userID, "title": o.title, "priority": o.priority}), true
	}
	return reply{}, false
}

// taskOp carries out an operation on the user's tasks. When it needs no
// call (a report, a task that is not theirs, nothing to change) it notes
// the answer, drops the operation and returns ok false: the next one is up.
func (c *conversation) taskOp(o *op) (reply, bool) {
	if o.kind == opReport {
		c.note(c.report(o.status))
		c.pop()
		return reply{}, false
	}
	t, ok := c.resolve(*o)
	if !ok {
		if o.title == "" {
			c.note(fmt.Sprintf("Task %s is not one of your tasks, so I can't change it. I can only act on tasks that belong to your own account.", o.taskID))
		} else {
			c.note(fmt.Sprintf("I couldn't find a task called %s on your account.", o.target()))
		}
		c.pop()
		return reply{}, false
	}
	o.taskID, o.title = t.TaskID, t.Title
	switch o.kind {
	case opUpdate:
		if t.Status == o.status {
			c.note(fmt.Sprintf("%s is already %s.", capitalize(o.target()), statusText(o.status)))
			c.pop()
			return reply{}, false
		}
		return c.call(toolUpdate, map[string]any{"task_id": o.taskID, "status": o.status}), true
	case opDelete:
		if !o.confirmed {
			c.await = awaitConfirm
			c.note(fmt.Sprintf("Just to confirm: do you want me to permanently delete your task %s (%s)? This cannot be undone. Please reply yes to confirm.", o.target(), o.taskID))
			return c.flush(), true
		}
		return c.call(toolDelete, map[string]any{"task_id": o.taskID}), true
	}
	c.pop() // unreachable: every kind is handled above
	return reply{}, false
}

// onResult applies the result of the tool called last.
func (c *conversation) onResult(r toolResult) {
	name := c.pending
	if name == "" {
		return // nothing was asked: ignore stray results
	}
	c.pending = ""
	if name == toolFindUser {
		c.onFoundUser(r)
		return
	}
	if len(c.queue) == 0 {
		return
	}
	o := c.queue[0]
	if r.Error {
		c.note(failure(o, r.Content))
		c.pop()
		return
	}
	switch name {
	case toolList:
		c.onTaskList(r)
		return // the op at the head still has to be done, or was dropped
	case toolTransfer:
		c.note("I've transferred you to a human agent, who will help you with this request. Please hold on; they will be with you shortly.")
		c.transferred = true
		c.queue = nil
		return
	}
	c.onDone(name, o, r)
	c.pop()
}

// onFoundUser takes the account the email lookup found.
func (c *conversation) onFoundUser(r toolResult) {
	if r.Error {
		c.note(fmt.Sprintf("I couldn't find a Taskly account with the email %s. Could you check the address and send it again?", c.triedEmail))
		return
	}
	var u struct {
		UserID string `json:"user_id"`
		Name   string `json:"name"`
	}
	if err := json.Unmarshal([]byte(r.Content), &u); err != nil || u.UserID == "" {
		c.note("Something went wrong while looking up your account. Could you send your email address again?")
		c.triedEmail = ""
		c.email = ""
		return
	}
	c.userID, c.userName, c.tasks, c.haveTasks = u.UserID, u.Name, nil, false
	if len(c.queue) == 0 {
		c.note(fmt.Sprintf("Thanks, %s, I've verified your account. What can I do for you?", firstName(u.Name)))
	}
}

// onTaskList keeps the user's tasks; an unreadable list drops the
// operation that needed it.
func (c *conversation) onTaskList(r toolResult) {
	var l struct {
		Tasks []trackedTask `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(r.Content), &l); err != nil {
		c.note("I couldn't read your task list, sorry.")
		c.pop()
		return
	}
	c.tasks, c.haveTasks = l.Tasks, true
}

// onDone tells the user what the call that carried out o did.
func (c *conversation) onDone(name string, o op, r toolResult) {
	switch name {
	case toolGetUser:
		var p struct {
			PlanName     string `json:"plan_name"`
			MaxOpenTasks int    `json:"max_open_tasks"`
			OpenTasks    int    `json:"open_tasks"`
		}
		if err := json.Unmarshal([]byte(r.Content), &p); err != nil {
			c.note("I couldn't read your account details, sorry.")
		} else {
			c.note(fmt.Sprintf("You're on the %s plan, which allows up to %d open (not done) tasks. You currently have %d open %s.",
				p.PlanName, p.MaxOpenTasks, p.OpenTasks, plural(p.OpenTasks, "task", "tasks")))
		}
	case toolCreate:
		var t trackedTask
		if err := json.Unmarshal([]byte(r.Content), &t); err == nil && t.TaskID != "" && c.haveTasks {
			c.tasks = append(c.tasks, t)
		}
		c.note(fmt.Sprintf("Done: I created the task %s (%s) with %s priority.", o.target(), t.TaskID, o.priority))
	case toolUpdate:
		var t trackedTask
		if err := json.Unmarshal([]byte(r.Content), &t); err == nil && t.TaskID != "" {
			c.replace(t)
		}
		c.note(fmt.Sprintf("Done: %s is now %s.", o.target(), statusText(o.status)))
	case toolDelete:
		c.remove(o.taskID)
		c.note(fmt.Sprintf("Done: I deleted the task %s.", o.target()))
	}
}

// limitRE reads the plan limit out of the error of a refused create or
// reopen: the plan, its limit and the open tasks.
var limitRE = regexp.MustCompile(`the (\S+) plan allows at most (\d+) open tasks.*already has (\d+)`)

// failure words a failed call for the user.
func failure(o op, msg string) string {
	verb := map[opKind]string{opCreate: "add", opUpdate: "update", opDelete: "delete"}[o.kind]
	if o.kind == opUpdate && o.status == "open" {
		verb = "reopen"
	}
	if m := limitRE.FindStringSubmatch(msg); m != nil && verb != "" {
		return fmt.Sprintf("I can't %s %s: your %s plan allows at most %s open tasks (open or in progress), and you already have %s. To make room, mark a task as done or delete one.",
			verb, o.target(), m[1], m[2], m[3])
	}
	if verb == "" {
		return fmt.Sprintf("Sorry, that didn't work: %s.", strings.TrimSuffix(msg, "."))
	}
	return fmt.Sprintf("I couldn't %s %s: %s.", verb, o.target(), strings.TrimSuffix(msg, "."))
}

// report answers a question about the user's tasks.
func (c *conversation) report(filter string) string {
	var picked []trackedTask
	for _, t := range c.tasks {
		if filter == filterAll || t.Status == filter || (filter == filterNotDone && t.Status != "done") {
			picked = append(picked, t)
		}
	}
	what := map[string]string{
		filterAll:     "tasks",
		filterNotDone: "tasks that are not done yet",
		"open":        "open tasks",
		"in_progress": "tasks in progress",
		"done":        "tasks that are done",
	}[filter]
	if len(picked) == 0 {
		return fmt.Sprintf("You have no %s.", what)
	}
	if len(picked) == 1 {
		what = strings.Replace(what, "tasks", "task", 1)
		what = strings.Replace(what, " are ", " is ", 1)
	}
	items := make([]string, len(picked))
	for i, t := range picked {
		if filter == filterAll || filter == filterNotDone {
			items[i] = fmt.Sprintf("%s (%s, %s priority)", t.Title, statusText(t.Status), t.Priority)
		} else {
			items[i] = fmt.Sprintf("%s (%s priority)", t.Title, t.Priority)
		}
	}
	return fmt.Sprintf("You have %d %s: %s.", len(picked), what, joinList(items))
}

// resolve finds the op's task among the user's own tasks: by id, by exact
// title, or by a title that contains the words given when only one does.
func (c *conversation) resolve(o op) (trackedTask, bool) {
	if o.taskID != "" {
		for _, t := range c.tasks {
			if strings.EqualFold(t.TaskID, o.taskID) {
				return t, true
			}
		}
		return trackedTask{}, false
	}
	for _, t := range c.tasks {
		if strings.EqualFold(t.Title, o.title) {
			return t, true
		}
	}
	var found []trackedTask
	for _, t := range c.tasks {
		if strings.Contains(strings.ToLower(t.Title), strings.ToLower(o.title)) {
			found = append(found, t)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return trackedTask{}, false
}

// replace updates the tracked copy of t after a call changed it.
func (c *conversation) replace(t trackedTask) {
	for i := range c.tasks {
		if c.tasks[i].TaskID == t.TaskID {
			c.tasks[i] = t
		}
	}
}

// remove forgets a task the agent deleted.
func (c *conversation) remove(id string) {
	for i := range c.tasks {
		if c.tasks[i].TaskID == id {
			c.tasks = append(c.tasks[:i], c.tasks[i+1:]...)
			return
		}
	}
}

// call makes a tool call the reply, and remembers it: its result is due
// next (see onResult).
func (c *conversation) call(name string, args map[string]any) reply {
	c.pending = name
	return callTool(name, args)
}

// note adds s to what the next respond says.
func (c *conversation) note(s string) { c.notes = append(c.notes, s) }

// pop drops the request at the head of the queue, done or given up.
func (c *conversation) pop() { c.queue = c.queue[1:] }

// flush speaks the notes gathered so far.
func (c *conversation) flush() reply {
	text := strings.Join(c.notes, " ")
	c.notes = nil
	if text == "" {
		text = "Is there anything else I can help you with?"
	}
	return say(text)
}

// statusText spells a task status for the user ("in progress").
func statusText(s string) string {
	switch s {
	case "in_progress":
		return "in progress"
	case "done":
		return "done"
	case "open":
		return "open"
	}
	return s
}

// joinList joins items as a sentence does: "a, b and c".
func joinList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// plural picks one or many for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// capitalize upper-cases the first letter of s when it is an ASCII
// lower-case letter.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// firstName is the first word of name, or "there" (as in "Thanks, there")
// when name is empty.
func firstName(name string) string {
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return "there"
}
