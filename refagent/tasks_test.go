package refagent

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/agent"
)

// taskSeen is what a test reads of one reply and of the task it made.
type taskSeen struct {
	State   a2a.TaskState
	Got     a2a.TaskState // the state GetTask shows
	Said    bool          // GetTask's status message is the reply
	Listed  []a2a.TaskID  // ListTasks of the context
	Context bool          // the task is in the request's context
}

// TestEveryReplyIsAListedTask: every message the reference agent answers,
// free text or a turn of a conversation, streamed or not, gets a completed
// task whose status message is the reply, and GetTask and ListTasks (of
// its context) find it, as the official A2A TCK's ListTasks cases and
// hosting platforms that list tasks expect. The agent serves JSON-RPC 1.0
// only.
func TestEveryReplyIsAListedTask(t *testing.T) {
	d := mockDomain(t)
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), startAgent(t, d))
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	client, err := sdkclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	first := profileByName(t, agent.ProfileAgentBeats).Render(agent.Setup{Policy: d.Policy, Tools: d.Tools}, true,
		agent.Input{UserText: "Hi, I'm jane.park@example.com."})
	for _, tc := range []struct {
		name   string
		parts  []*a2a.Part
		stream bool
	}{
		{"free text", []*a2a.Part{a2a.NewTextPart("Task for list test")}, false},
		{"free text streamed", []*a2a.Part{a2a.NewTextPart("Task for list test")}, true},
		{"first turn of a conversation", first, false},
		{"first turn of a conversation streamed", first, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := a2a.NewMessage(a2a.MessageRoleUser, tc.parts...)
			msg.ContextID = a2a.NewContextID()
			var reply a2a.Event
			if tc.stream {
				for ev, err := range client.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: msg}) {
					if err != nil {
						t.Fatal(err)
					}
					reply = ev
				}
			} else {
				res, err := client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: msg})
				if err != nil {
					t.Fatal(err)
				}
				reply = res
			}
			task, _ := reply.(*a2a.Task)
			if task == nil {
				t.Fatalf("answered %T, want a Task", reply)
			}
			seen := taskSeen{State: task.Status.State, Context: task.ContextID == msg.ContextID}
			got, err := client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: task.ID})
			if err != nil {
				t.Fatalf("GetTask: %v", err)
			}
			seen.Got = got.Status.State
			seen.Said = got.Status.Message != nil && task.Status.Message != nil &&
				partsText(got.Status.Message.Parts) == partsText(task.Status.Message.Parts) && partsText(got.Status.Message.Parts) != ""
			list, err := client.ListTasks(t.Context(), &a2a.ListTasksRequest{ContextID: msg.ContextID})
			if err != nil {
				t.Fatalf("ListTasks: %v", err)
			}
			for _, lt := range list.Tasks {
				seen.Listed = append(seen.Listed, lt.ID)
			}
			want := taskSeen{State: a2a.TaskStateCompleted, Got: a2a.TaskStateCompleted, Said: true,
				Listed: []a2a.TaskID{task.ID}, Context: true}
			if diff := cmp.Diff(want, seen); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
