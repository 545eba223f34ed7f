// Package domains defines proctor's domain format and holds the registry of
// built-in domains.
//
// A domain is data plus code. The data (a JSON database, a list of tasks and
// a policy document for the agent) is loaded from files, usually embedded with
// embed.FS; the code is a [Toolbox]: Go functions registered by name that act
// on a typed copy of the database. Every simulation gets a fresh [Env], so
// simulations never share state, and everything an environment produces (ids,
// timestamps) derives from the database and the calls made, never from the
// clock.
//
// Usage:
//
//	reg, err := builtin.Registry() // package domains/builtin
//	d, err := reg.Get("mock")
//	env, err := d.NewEnv(&d.Tasks[0])
//	out := env.Call(domains.ToolCall{Name: "get_user", Arguments: map[string]any{"user_id": "u-1001"}})
//	fmt.Println(out.Content, out.Error, env.Hash())
package domains
