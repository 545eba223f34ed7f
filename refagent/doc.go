// Package refagent is proctor's reference agent: a real A2A server, built on
// a2a-go's a2asrv, that solves the built-in mock domain's tasks with plain
// rules and no LLM. It shows what a well-behaved participant looks like and
// gives proctor something to evaluate end to end (`proctor agent`, and
// `proctor run --agent builtin`, which serves it in process on a loopback
// port).
//
// It speaks the agentbeats message profile. The first message of a
// conversation (an A2A context) carries the policy inside <policy>...</policy>,
// the tools as OpenAI function JSON and, on a line starting with
// "User message: ", what the user said. Later messages carry either
// "User message: <text>" or "Tool call result (<tool>):\n<content>" blocks.
// Each reply is one agent Message with one text part holding one JSON object:
// {"name": "<tool>", "arguments": {...}} to call a tool, or
// {"name": "respond", "arguments": {"content": "..."}} to talk to the user.
//
// The rules follow the domain's policy: they authenticate the user by email
// before anything else, act only on the user's own tasks, ask for a priority
// rather than guess one, ask for confirmation before deleting, relay the plan
// limit when a create or reopen is refused, and transfer out-of-scope requests
// (billing, refunds, plan changes, account deletion) to a human agent before
// telling the user. They read emails, task ids, quoted task titles,
// priorities and statuses with regular expressions; the decision logic is a
// pure state machine per conversation, kept in memory (bounded by
// [MaxContexts]).
//
// Usage:
//
//	d, err := mock.New()
//	if err != nil {
//		log.Fatal(err)
//	}
//	ln, err := net.Listen("tcp", "127.0.0.1:0")
//	if err != nil {
//		log.Fatal(err)
//	}
//	fmt.Println("agent card at", refagent.BaseURL(ln.Addr())+".well-known/agent-card.json")
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
//	defer stop()
//	if err := refagent.Serve(ctx, ln, d); err != nil {
//		log.Fatal(err)
//	}
//
// To mount the agent in your own server, or advertise a public URL:
//
//	a, err := refagent.New(d)
//	http.Handle("/", a.Handler("https://agent.example.com/"))
package refagent
