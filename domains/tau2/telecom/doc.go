// Package telecom is tau2-bench's telecom domain for proctor: a mobile
// carrier's technical support. The customer's phone has a problem (no
// service, no or slow mobile data, no MMS); the agent looks up their
// account and fixes what it can there (roaming, data refuels, a line
// suspended for an unpaid bill), and guides the user through actions on
// their own phone, which the user simulator performs with user tools
// (requestor "user": toggling airplane mode, data, roaming, resetting the
// APN, reseating the SIM, granting app permissions, paying a bill...).
//
// The domain has two databases: the agent's ([DB], tau2's TelecomDB: plans,
// customers, lines, bills, devices) and the user's ([UserDB]: the phone's
// state and the user's surroundings). After every tool call and env
// function the environment syncs them as tau2's sync_tools does: the
// user's surroundings follow the agent's record of their line, and payment
// requests and payments pass between the two. The phone's behaviour
// follows tau2's device simulation rules.
//
// The data are tau2-bench's own files (MIT licence) and are not part of
// proctor: [New] reads them at run time from a directory laid out like
// tau2's data/tau2/domains/telecom (db.toml, user_db.toml, tasks.json,
// split_tasks.json, main_policy.md, tech_support_manual.md; the workflow
// and solo policy texts for [Policy]). The TOML databases are converted
// with [TOMLToJSON]. Splits are base (the default, 114 tasks), train, test,
// small and full (all 2285).
//
// The tools follow tau2's domains specification (section 5) for
// tau2-bench commit a2c0247: their outputs, failure messages and quirks,
// and [DB.Hash] and [UserDB.Hash] are tau2's database hashes, so replays of
// tau2's gold actions give tau2's results exactly. Telecom tasks are scored
// on env assertions (and ACTION for the transfer tasks), not on database
// hashes.
//
// Arguments are not type-checked up front, as tau2 checks none: tau2 calls
// the Python function with them, and proctor mirrors what follows where
// bad_calls.json records it. A number for phone_number finds no customer
// ("Customer with phone number 5551232002 not found"); a str for limit
// fails as Python's slicing does, and one for gb_amount as its comparison
// does, after the customer and line are found; an int gb_amount stays an
// int ("2 GB", where 2.0 says "2.0 GB"). Some calls fail half-way and still
// change the phone: set_network_mode_preference with a mode that is not a
// str stores it and searches the network before failing on its .value
// (None instead answers "'None' is not a valid option"), and
// set_apn_settings with settings that are not an object stores them before
// failing on their apn_name; the stored value is what the user database
// then holds and hashes.
//
// Known differences from tau2:
//   - Other arguments of the wrong JSON type fail the call with a type
//     error. tau2 passes them into the Python function, where most fail
//     too, but set_user_location and set_data_usage would store a value of
//     the wrong type.
//   - After set_apn_settings stored settings that are not an object,
//     tau2's later network searches fail reading their apn_name; proctor's
//     keep the settings the phone had before.
//   - refuel_data names a new draft bill "B" and 8 hex digits derived from
//     the customer and the number of bills, where tau2 draws them at
//     random, so that replays are deterministic.
//   - tau2 gives every VPN connection one default-details object, shared by
//     all its environments, which break_vpn degrades; proctor has one per
//     environment.
//
// See ExampleNew for an environment with both sides and its env assertions.
package telecom
