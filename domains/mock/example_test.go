package mock_test

import (
	"fmt"
	"log"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
)

func ExampleNew() {
	d, err := mock.New()
	if err != nil {
		log.Fatal(err)
	}
	task, _ := d.Task("mock-02")
	env, err := d.NewEnv(task)
	if err != nil {
		log.Fatal(err)
	}
	res := env.Call(domains.ToolCall{Name: "find_user_by_email", Arguments: map[string]any{"email": "jane.park@example.com"}})
	fmt.Println(res.Content)
	res = env.Call(domains.ToolCall{Name: "create_task", Arguments: map[string]any{"user_id": "u-1001", "title": "Order catering", "priority": "medium"}})
	fmt.Println(res.Content)
	got, _ := env.Hash()
	gold, _ := d.GoldHash(task)
	fmt.Println("matches the gold state:", got == gold)
	// Output:
	// {"name":"Jane Park","user_id":"u-1001"}
	// {"task_id":"T-1022","user_id":"u-1001","title":"Order catering","priority":"medium","status":"open","created_at":"2025-06-02T09:00:00Z","updated_at":"2025-06-02T09:00:00Z"}
	// matches the gold state: true
}
