// Package airline is tau2-bench's airline domain for proctor: an airline's
// customer service, where the agent books, changes and cancels flight
// reservations for users under a written policy.
//
// The data is tau2-bench's and is not part of proctor: [New] reads it from a
// directory laid out as tau2's data/tau2/domains/airline (db.json,
// tasks.json, split_tasks.json, policy.md). The tools reproduce tau2's
// behaviour, failures included, and [DB.Hash] reproduces its database hash,
// so rewards computed by proctor agree with tau2's on the same trajectories.
// The behaviour followed is the one described in tau2's domains
// specification (section 2, airline) for tau2-bench commit a2c0247.
//
// A simulation's database is a copy-on-write [DB.Clone] of one template
// decoded at load time: records are shared until a tool changes them, so
// many concurrent simulations cost little more than one.
//
// Like tau2, the tools check no argument type up front: tau2 calls its
// Python methods with the agent's arguments as they are, and the tools
// follow what Python makes of them (bad_calls.json, replayed by
// TestBadCalls, holds tau2's answers). Some wrong-typed calls succeed:
// send_certificate with the amount "100" (a string) adds a certificate;
// update_reservation_passengers given one object instead of a list stores
// the object as the passengers when it has as many keys as the
// reservation has passengers (its keys written in a passenger record's
// field order, where tau2 keeps the agent's). Others fail with Python's
// own exception text ("'<=' not supported between instances of 'str' and
// 'int'", "unhashable type: 'list'").
package airline

import (
	"cmp"
	"fmt"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/taskfile"
)

// Name is the airline domain's name in a [domains.Registry].
const Name = "airline"

// Description is the one-line summary of the airline domain.
const Description = "tau2-bench airline: customer service of an airline whose agent books, " +
	"modifies and cancels flight reservations, handles baggage, passengers and payments, " +
	"and offers compensation under a written policy."

// DefaultSplit is the task split used when none is named.
const DefaultSplit = taskfile.DefaultSplit

// Data file names inside the domain directory.
const (
	DBFile     = "db.json"
	TasksFile  = "tasks.json"
	SplitsFile = "split_tasks.json"
	PolicyFile = "policy.md"
)

// New builds the airline domain from the tau2 data in dir, with the tasks of
// the named split ("" means "base").
func New(dir, split string) (*domains.Domain, error) {
	files := taskfile.Dir{Path: dir, Domain: "airline"}
	policy, err := files.Read(PolicyFile)
	if err != nil {
		return nil, err
	}
	tasks, err := files.Tasks(cmp.Or(split, DefaultSplit), nil)
	if err != nil {
		return nil, err
	}
	db, err := files.Read(DBFile)
	if err != nil {
		return nil, err
	}
	d, err := domains.NewDomain(domains.Spec[DB]{
		Tau2Messages: true,
		Name:         Name,
		Description:  Description,
		Policy:       string(policy),
		DB:           db,
		Tasks:        tasks,
		Tools:        Tools(),
	})
	if err != nil {
		return nil, fmt.Errorf("airline: %w", err)
	}
	return d, nil
}

// toolsClass is the class of tau2's airline toolkit, which Python's
// TypeErrors for a call's arguments name (AirlineTools.fn()).
const toolsClass = "AirlineTools"
