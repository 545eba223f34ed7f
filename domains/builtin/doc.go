// Package builtin assembles the domains that ship with proctor into a
// [domains.Registry]. It lives apart from package domains because the built-in
// domains import the domain format, so the registry of them cannot live in
// the same package.
//
// Usage:
//
//	reg, err := builtin.Registry()
//	if err != nil {
//		log.Fatal(err)
//	}
//	d, err := reg.Get("mock")
//	if err != nil {
//		log.Fatal(err)
//	}
//	fmt.Println(d.Name, len(d.Tasks), d.ToolNames())
package builtin
