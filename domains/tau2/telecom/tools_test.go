package telecom

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/domains"
)

// These tests check the tools against outputs written by Python's
// json.dumps of tau2's model dumps (domains-spec.md 1.2), and the
// behaviour of domains-spec.md section 5 that the gold replays do not
// reach: reads, failures, the payment round trip, the VPN quirk.

// call runs a tool and fails the test on an error result.
func call(t *testing.T, env domains.Env, requestor, name string, args map[string]any) string {
	t.Helper()
	res := env.Call(domains.ToolCall{Name: name, Arguments: args, Requestor: requestor})
	if res.Error {
		t.Fatalf("%s(%v): %s", name, args, res.Content)
	}
	return res.Content
}

func freshEnv(t *testing.T, d *domains.Domain, taskID string) domains.Env {
	t.Helper()
	var task *domains.Task
	if taskID != "" {
		var ok bool
		if task, ok = d.Task(taskID); !ok {
			t.Fatalf("no task %s", taskID)
		}
	}
	env, err := d.NewEnv(task)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

type m = map[string]any

// miniDB is a small telecom world of proctor's own in tau2's TOML format:
// Ada Park (C1) has two lines, L1 active on her phone D1 and L2 suspended,
// and bills B1 (paid), B2 (issued) and B3 (the draft); Bo Chen (C2) has
// L3 on the Max plan and no draft bill. The numbers of P2 are integers, as
// a TOML file may write them.
const miniDB = `[[plans]]
plan_id = "P1"
name = "Starter"
data_limit_gb = 10.0
price_per_month = 30.0
data_refueling_price_per_gb = 2.5

[[plans]]
plan_id = "P2"
name = "Max"
data_limit_gb = 50
price_per_month = 55
data_refueling_price_per_gb = 0.1

[[customers]]
customer_id = "C1"
full_name = "Ada Park"
date_of_birth = "1980-02-03"
email = "ada@example.org"
phone_number = "555-0100"
account_status = "Active"
created_at = "2024-11-02T08:00:00"
goodwill_credit_used_this_year = 10.0
line_ids = ["L1", "L2"]
bill_ids = ["B1", "B2", "B3"]
address = {street = "1 Elm Rd", city = "Springfield", state = "OR", zip_code = "97477"}
[[customers.payment_methods]]
method_type = "Credit Card"
account_number_last_4 = "4242"
expiration_date = "01/2030"

[[customers]]
customer_id = "C2"
full_name = "Bo Chen"
date_of_birth = "1991-07-08"
email = "bo@example.org"
phone_number = "555-0200"
account_status = "Active"
created_at = "2025-01-03T10:15:30"
last_extension_date = "2025-01-10"
line_ids = ["L3"]
bill_ids = ["B4"]
address = {street = "2 Oak St", city = "Salem", state = "OR", zip_code = "97301"}

[[lines]]
line_id = "L1"
phone_number = "555-0101"
status = "Active"
plan_id = "P1"
device_id = "D1"
data_used_gb = 4.5
roaming_enabled = true
contract_end_date = "2026-06-30"

[[lines]]
line_id = "L2"
phone_number = "555-0102"
status = "Suspended"
plan_id = "P1"
device_id = "D2"
suspension_start_date = "2025-02-01"

[[lines]]
line_id = "L3"
phone_number = "555-0201"
status = "Active"
plan_id = "P2"
data_used_gb = 12.25

[[bills]]
bill_id = "B1"
customer_id = "C1"
period_start = "2025-01-01"
period_end = "2025-01-31"
issue_date = "2025-01-05"
total_due = 30.0
due_date = "2025-01-19"
status = "Paid"
line_items = [{description = "Starter - Line 555-0101", amount = 30.0, date = "2025-01-05", item_type = "Plan Charge"}]

[[bills]]
bill_id = "B2"
customer_id = "C1"
period_start = "2025-02-01"
period_end = "2025-02-28"
issue_date = "2025-02-05"
total_due = 35.0
due_date = "2025-02-19"
status = "Issued"
line_items = [
  {description = "Starter - Line 555-0101", amount = 30.0, date = "2025-02-05", item_type = "Plan Charge"},
  {description = "Suspension Fee - Line 555-0102", amount = 5.0, date = "2025-02-05", item_type = "Fee"},
]

[[bills]]
bill_id = "B3"
customer_id = "C1"
period_start = "2025-03-01"
period_end = "2025-03-31"
issue_date = "2025-03-01"
total_due = 0.0
due_date = "2025-03-15"
status = "Draft"

[[bills]]
bill_id = "B4"
customer_id = "C2"
period_start = "2025-02-01"
period_end = "2025-02-28"
issue_date = "2025-02-05"
total_due = 55.0
due_date = "2025-02-19"
status = "Paid"

[[devices]]
device_id = "D1"
device_type = "phone"
model = "Fonix 3"
imei = "111"
is_esim_capable = true
activated = true
activation_date = "2025-01-20T14:30:00"
last_esim_transfer_date = "2025-01-21T09:00:00"

[[devices]]
device_id = "D2"
device_type = "tablet"
model = "Slate"
is_esim_capable = false
`

// miniDomain is the telecom domain over miniDB, with a phone in tau2's
// default state (tau2's user_db.toml only restates the defaults).
func miniDomain(t testing.TB) *domains.Domain {
	t.Helper()
	agentDB, err := TOMLToJSON([]byte(miniDB))
	if err != nil {
		t.Fatal(err)
	}
	userDB, err := TOMLToJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := domains.NewDomain(domains.Spec[DB]{Name: "telecom-mini", DB: agentDB, Tools: Tools(),
		User: domains.NewSide(userDB, UserTools()), Sync: syncSides})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAgentTools(t *testing.T) {
	d := miniDomain(t)
	cases := []struct {
		name, tool string
		args       m
		want       string
		isError    bool
	}{
		{"customer by id", "get_customer_by_id", m{"customer_id": "C1"}, `{"customer_id": "C1", "full_name": "Ada Park", "date_of_birth": "1980-02-03", "email": "ada@example.org", "phone_number": "555-0100", "address": {"street": "1 Elm Rd", "city": "Springfield", "state": "OR", "zip_code": "97477"}, "account_status": "Active", "payment_methods": [{"method_type": "Credit Card", "account_number_last_4": "4242", "expiration_date": "01/2030"}], "line_ids": ["L1", "L2"], "bill_ids": ["B1", "B2", "B3"], "created_at": "2024-11-02 08:00:00", "last_extension_date": null, "goodwill_credit_used_this_year": 10.0}`, false},
		{"customer by contact phone", "get_customer_by_phone", m{"phone_number": "555-0100"}, `{"customer_id": "C1", "full_name": "Ada Park", "date_of_birth": "1980-02-03", "email": "ada@example.org", "phone_number": "555-0100", "address": {"street": "1 Elm Rd", "city": "Springfield", "state": "OR", "zip_code": "97477"}, "account_status": "Active", "payment_methods": [{"method_type": "Credit Card", "account_number_last_4": "4242", "expiration_date": "01/2030"}], "line_ids": ["L1", "L2"], "bill_ids": ["B1", "B2", "B3"], "created_at": "2024-11-02 08:00:00", "last_extension_date": null, "goodwill_credit_used_this_year": 10.0}`, false},
		{"customer by line phone", "get_customer_by_phone", m{"phone_number": "555-0102"}, `{"customer_id": "C1", "full_name": "Ada Park", "date_of_birth": "1980-02-03", "email": "ada@example.org", "phone_number": "555-0100", "address": {"street": "1 Elm Rd", "city": "Springfield", "state": "OR", "zip_code": "97477"}, "account_status": "Active", "payment_methods": [{"method_type": "Credit Card", "account_number_last_4": "4242", "expiration_date": "01/2030"}], "line_ids": ["L1", "L2"], "bill_ids": ["B1", "B2", "B3"], "created_at": "2024-11-02 08:00:00", "last_extension_date": null, "goodwill_credit_used_this_year": 10.0}`, false},
		{"unknown phone", "get_customer_by_phone", m{"phone_number": "5550101"}, "Error: Customer with phone number 5550101 not found", true},
		{"customer by name", "get_customer_by_name", m{"full_name": "bo CHEN", "dob": "1991-07-08"}, `[{"customer_id": "C2", "full_name": "Bo Chen", "date_of_birth": "1991-07-08", "email": "bo@example.org", "phone_number": "555-0200", "address": {"street": "2 Oak St", "city": "Salem", "state": "OR", "zip_code": "97301"}, "account_status": "Active", "payment_methods": [], "line_ids": ["L3"], "bill_ids": ["B4"], "created_at": "2025-01-03 10:15:30", "last_extension_date": "2025-01-10", "goodwill_credit_used_this_year": 0.0}]`, false},
		{"no customer by name", "get_customer_by_name", m{"full_name": "Bo Chen", "dob": "1991-07-09"}, "[]", false},
		{"line", "get_details_by_id", m{"id": "L1"}, `{"line_id": "L1", "phone_number": "555-0101", "status": "Active", "plan_id": "P1", "device_id": "D1", "data_used_gb": 4.5, "data_refueling_gb": 0.0, "roaming_enabled": true, "contract_end_date": "2026-06-30", "last_plan_change_date": null, "last_sim_replacement_date": null, "suspension_start_date": null}`, false},
		{"device", "get_details_by_id", m{"id": "D1"}, `{"device_id": "D1", "device_type": "phone", "model": "Fonix 3", "imei": "111", "is_esim_capable": true, "activated": true, "activation_date": "2025-01-20 14:30:00", "last_esim_transfer_date": "2025-01-21 09:00:00"}`, false},
		{"device with defaults", "get_details_by_id", m{"id": "D2"}, `{"device_id": "D2", "device_type": "tablet", "model": "Slate", "imei": null, "is_esim_capable": false, "activated": false, "activation_date": null, "last_esim_transfer_date": null}`, false},
		{"bill", "get_details_by_id", m{"id": "B2"}, `{"bill_id": "B2", "customer_id": "C1", "period_start": "2025-02-01", "period_end": "2025-02-28", "issue_date": "2025-02-05", "total_due": 35.0, "due_date": "2025-02-19", "line_items": [{"description": "Starter - Line 555-0101", "amount": 30.0, "date": "2025-02-05", "item_type": "Plan Charge"}, {"description": "Suspension Fee - Line 555-0102", "amount": 5.0, "date": "2025-02-05", "item_type": "Fee"}], "status": "Issued"}`, false},
		{"plan", "get_details_by_id", m{"id": "P2"}, `{"plan_id": "P2", "name": "Max", "data_limit_gb": 50.0, "price_per_month": 55.0, "data_refueling_price_per_gb": 0.1}`, false},
		{"unknown id kind", "get_details_by_id", m{"id": "X1"}, "Error: Unknown ID format or type: X1", true},
		{"unknown line", "get_details_by_id", m{"id": "L9"}, "Error: Line with ID L9 not found", true},
		{"bills newest first", "get_bills_for_customer", m{"customer_id": "C1", "limit": json.Number("2")}, `[{"bill_id": "B3", "customer_id": "C1", "period_start": "2025-03-01", "period_end": "2025-03-31", "issue_date": "2025-03-01", "total_due": 0.0, "due_date": "2025-03-15", "line_items": [], "status": "Draft"}, {"bill_id": "B2", "customer_id": "C1", "period_start": "2025-02-01", "period_end": "2025-02-28", "issue_date": "2025-02-05", "total_due": 35.0, "due_date": "2025-02-19", "line_items": [{"description": "Starter - Line 555-0101", "amount": 30.0, "date": "2025-02-05", "item_type": "Plan Charge"}, {"description": "Suspension Fee - Line 555-0102", "amount": 5.0, "date": "2025-02-05", "item_type": "Fee"}], "status": "Issued"}]`, false},
		{"bills negative limit", "get_bills_for_customer", m{"customer_id": "C2", "limit": json.Number("-1")}, "[]", false},
		{"bills limit true", "get_bills_for_customer", m{"customer_id": "C2", "limit": true}, `[{"bill_id": "B4", "customer_id": "C2", "period_start": "2025-02-01", "period_end": "2025-02-28", "issue_date": "2025-02-05", "total_due": 55.0, "due_date": "2025-02-19", "line_items": [], "status": "Paid"}]`, false},
		{"bills float limit", "get_bills_for_customer", m{"customer_id": "C1", "limit": 2.0}, "Error: slice indices must be integers or None or have an __index__ method", true},
		{"bills string limit, unknown customer", "get_bills_for_customer", m{"customer_id": "C9", "limit": "2"}, "Error: Customer with ID C9 not found", true},
		{"data usage", "get_data_usage", m{"customer_id": "C1", "line_id": "L1"},
			`{"line_id": "L1", "data_used_gb": "4.5", "data_limit_gb": "10.0", "data_refueling_gb": "0.0", "cycle_end_date": "2025-02-28"}`, false},
		{"line of another customer", "get_data_usage", m{"customer_id": "C2", "line_id": "L1"}, "Error: Line L1 not found for customer C2", true},
		{"unknown customer", "get_data_usage", m{"customer_id": "C9", "line_id": "L1"}, "Error: Customer with ID C9 not found", true},
		{"suspend", "suspend_line", m{"customer_id": "C1", "line_id": "L1", "reason": "travel"}, `{"message": "Line suspended successfully. $5/month holding fee will apply.", "line": {"line_id": "L1", "phone_number": "555-0101", "status": "Suspended", "plan_id": "P1", "device_id": "D1", "data_used_gb": 4.5, "data_refueling_gb": 0.0, "roaming_enabled": true, "contract_end_date": "2026-06-30", "last_plan_change_date": null, "last_sim_replacement_date": null, "suspension_start_date": "2025-02-25"}}`, false},
		{"suspend a suspended line", "suspend_line", m{"customer_id": "C1", "line_id": "L2", "reason": "x"}, "Error: Line must be active to suspend", true},
		{"resume", "resume_line", m{"customer_id": "C1", "line_id": "L2"}, `{"message": "Line resumed successfully", "line": {"line_id": "L2", "phone_number": "555-0102", "status": "Active", "plan_id": "P1", "device_id": "D2", "data_used_gb": 0.0, "data_refueling_gb": 0.0, "roaming_enabled": false, "contract_end_date": null, "last_plan_change_date": null, "last_sim_replacement_date": null, "suspension_start_date": null}}`, false},
		{"resume an active line", "resume_line", m{"customer_id": "C1", "line_id": "L1"}, "Error: Line must be suspended to resume", true},
		{"roaming already on", "enable_roaming", m{"customer_id": "C1", "line_id": "L1"}, "Roaming was already enabled", false},
		{"roaming off", "disable_roaming", m{"customer_id": "C1", "line_id": "L1"}, "Roaming disabled successfully", false},
		{"roaming already off", "disable_roaming", m{"customer_id": "C2", "line_id": "L3"}, "Roaming was already disabled", false},
		{"payment request", "send_payment_request", m{"customer_id": "C1", "bill_id": "B2"}, "Payment request sent to the customer for bill B2", false},
		{"payment request for another's bill", "send_payment_request", m{"customer_id": "C1", "bill_id": "B4"}, "Error: Bill B4 not found for customer C1", true},
		{"refuel", "refuel_data", m{"customer_id": "C1", "line_id": "L1", "gb_amount": 1.5},
			`{"message": "Successfully added 1.5 GB of data for line L1 for $3.75", "new_data_refueling_gb": "1.5", "charge": "3.75"}`, false},
		{"refuel nothing", "refuel_data", m{"customer_id": "C1", "line_id": "L1", "gb_amount": 0.0}, "Error: Refuel amount must be positive", true},
		{"refuel a string", "refuel_data", m{"customer_id": "C1", "line_id": "L1", "gb_amount": "2"}, "Error: '<=' not supported between instances of 'str' and 'int'", true},
		{"refuel null", "refuel_data", m{"customer_id": "C1", "line_id": "L1", "gb_amount": nil}, "Error: '<=' not supported between instances of 'NoneType' and 'int'", true},
		{"refuel a string, unknown line", "refuel_data", m{"customer_id": "C1", "line_id": "L9", "gb_amount": "2"}, "Error: Line L9 not found for customer C1", true},
		{"refuel an int", "refuel_data", m{"customer_id": "C1", "line_id": "L1", "gb_amount": json.Number("2")},
			`{"message": "Successfully added 2 GB of data for line L1 for $5.00", "new_data_refueling_gb": "2.0", "charge": "5.0"}`, false},
		{"phone number as a number", "get_customer_by_phone", m{"phone_number": json.Number("5550100")}, "Error: Customer with phone number 5550100 not found", true},
		{"phone number as null", "get_customer_by_phone", m{"phone_number": nil}, "Error: Customer with phone number None not found", true},
		{"transfer", "transfer_to_human_agents", m{"summary": "needs a human"}, "Transfer successful", false},
		{"unexpected argument", "get_customer_by_id", m{"customer_id": "C1", "x": 1.0}, "Error: TelecomTools.get_customer_by_id() got an unexpected keyword argument 'x'", true},
		{"missing arguments", "suspend_line", m{"customer_id": "C1"}, "Error: TelecomTools.suspend_line() missing 2 required positional arguments: 'line_id' and 'reason'", true},
		{"wrong type", "get_customer_by_id", m{"customer_id": 1.0}, "Error: argument 'customer_id' must be a string, got float", true},
		{"user tool on the agent side", "toggle_data", nil, `Error: unknown tool "toggle_data"`, true},
		{"env function is no tool", "set_data_usage", m{"customer_id": "C1", "line_id": "L1", "data_used_gb": 1.0}, `Error: unknown tool "set_data_usage"`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := freshEnv(t, d, "")
			res := env.Call(domains.ToolCall{Name: tc.tool, Arguments: tc.args})
			if res.Error != tc.isError || res.Content != tc.want {
				t.Errorf("got %v %s\nwant %v %s", res.Error, res.Content, tc.isError, tc.want)
			}
		})
	}
}

// envWith is an environment whose initial state is these initialization
// actions (tau2's form: env_type, func_name, arguments), after Ada
// Park's set_user_info (her line L1), as every telecom task begins.
func envWith(t *testing.T, d *domains.Domain, actions ...domains.Action) domains.Env {
	t.Helper()
	init := append([]domains.Action{{EnvType: "user", FuncName: "set_user_info", Arguments: m{"name": "Ada Park", "phone_number": "555-0101"}}}, actions...)
	env, err := d.NewEnv(&domains.Task{ID: "t", InitialState: &domains.InitialState{InitializationActions: init}})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func user(name string, args m) domains.Action {
	return domains.Action{EnvType: "user", FuncName: name, Arguments: args}
}

func agent(name string, args m) domains.Action {
	return domains.Action{EnvType: "assistant", FuncName: name, Arguments: args}
}

const (
	barExcellent = "📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%"
	barAirplane  = "✈️ Airplane Mode | 🔋 80%"
)

func TestUserTools(t *testing.T) {
	d := miniDomain(t)
	search := user("simulate_network_search", nil)
	vpn := "{'server_address': '192.168.1.1', 'protocol': 'OpenVPN', 'server_performance': <PerformanceLevel.%s>}"
	type step struct {
		requestor, tool string
		args            m
		want            string
	}
	cases := []struct {
		name  string
		init  []domains.Action
		steps []step
	}{
		{"before any network search", nil, []step{
			{"user", "check_status_bar", nil, "Status Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔋 80%"},
			{"user", "run_speed_test", nil, "Speed Test Result: 220.00 Mbps (Excellent). Connection is very fast."},
		}},
		{"healthy phone", []domains.Action{search}, []step{
			{"user", "check_status_bar", nil, "Status Bar: " + barExcellent},
			{"user", "check_network_status", nil, "Airplane Mode: OFF\nSIM Card Status: active\nCellular Connection: connected\nCellular Signal: excellent\n" +
				"Cellular Network Type: 5G\nMobile Data Enabled: Yes\nData Roaming Enabled: No\nWi-Fi Radio: OFF\nWi-Fi Connected: No"},
			{"user", "run_speed_test", nil, "Speed Test Result: 275.00 Mbps (Excellent). Connection is very fast."},
			{"user", "check_network_mode_preference", nil, "Network Mode Preference: 4g_5g_preferred"},
			{"user", "check_sim_status", nil, "Your SIM card is active and working."},
			{"user", "check_data_restriction_status", nil, "Data Saver mode is OFF."},
			{"user", "check_wifi_status", nil, "Wi-Fi is turned OFF."},
			{"user", "check_wifi_calling_status", nil, "Wi-Fi Calling is currently turned OFF."},
			{"user", "check_vpn_status", nil, "VPN is turned OFF."},
			{"user", "can_send_mms", nil, "Your messaging app can send MMS messages."},
			{"user", "check_payment_request", nil, "No payment request has been made."},
			{"user", "make_payment", nil, "You do not have a payment request."},
			{"user", "check_apn_settings", nil, "Current APN Name: internet\nMMSC URL (for picture messages): http://mms.carrier.com/mms/wapenc\n" +
				"(These are technical settings, usually best left unchanged.)"},
		}},
		{"airplane mode", []domains.Action{search, user("turn_airplane_mode_on", nil)}, []step{
			{"user", "check_status_bar", nil, "Status Bar: " + barAirplane},
			{"user", "run_speed_test", nil, "Speed test failed: No Connection."},
			{"user", "toggle_wifi", nil, "Cannot change Wi-Fi settings while Airplane Mode is ON.\nStatus Bar: " + barAirplane},
			{"user", "can_send_mms", nil, "Your messaging app cannot send MMS messages."},
			{"user", "toggle_airplane_mode", nil, "Airplane Mode is now OFF.\nStatus Bar: " + barExcellent},
		}},
		{"wi-fi", []domains.Action{search}, []step{
			{"user", "toggle_wifi", nil, "Wi-Fi is now ON.\nStatus Bar: " + barExcellent},
			{"user", "check_wifi_status", nil, "Wi-Fi is ON but not connected to any network."},
			{"user", "toggle_wifi_calling", nil, "Wi-Fi Calling is now ON.\nStatus Bar: " + barExcellent},
		}},
		{"slow network", []domains.Action{search, user("turn_data_saver_mode_on", nil)}, []step{
			{"user", "run_speed_test", nil, "Speed Test Result: 55.00 Mbps (Good). Connection is good for most activities, including HD streaming."},
			{"user", "set_network_mode_preference", m{"mode": "2g_only"}, "Preferred Network Mode set to: 2g_only\nStatus Bar: 📶¹ Poor | 2G | 📱 Data Enabled | 🔽 Data Saver | 🔋 80%"},
			{"user", "run_speed_test", nil, "Speed Test Result: 0.01 Mbps (Very Poor). Connection is very slow. Basic web browsing might be difficult."},
			{"user", "can_send_mms", nil, "Your messaging app cannot send MMS messages."},
			{"user", "set_network_mode_preference", m{"mode": "3g_only"}, "Preferred Network Mode set to: 3g_only\nStatus Bar: 📶² Fair | 3G | 📱 Data Enabled | 🔽 Data Saver | 🔋 80%"},
			{"user", "run_speed_test", nil, "Speed Test Result: 0.30 Mbps (Very Poor). Connection is very slow. Basic web browsing might be difficult."},
			{"user", "set_network_mode_preference", m{"mode": "5g"}, "Failed to set network mode: '5g' is not a valid option. Please use one of: " +
				"4g_5g_preferred, 4g_only, 3g_only, 2g_only\nStatus Bar: 📶² Fair | 3G | 📱 Data Enabled | 🔽 Data Saver | 🔋 80%"},
			{"user", "toggle_data_saver_mode", nil, "Data Saver Mode is now OFF.\nStatus Bar: 📶² Fair | 3G | 📱 Data Enabled | 🔋 80%"},
			{"user", "check_data_restriction_status", nil, "Data Saver mode is OFF."},
			{"user", "set_network_mode_preference", m{"mode": "4g_only"}, "Preferred Network Mode set to: 4g_only\nStatus Bar: 📶³ Good | 4G | 📱 Data Enabled | 🔋 80%"},
			{"user", "run_speed_test", nil, "Speed Test Result: 44.00 Mbps (Good). Connection is good for most activities, including HD streaming."},
		}},
		// break_vpn degrades the environment's default VPN details, so a
		// reconnection is slow too, as in tau2.
		{"broken vpn", []domains.Action{search, user("break_vpn", nil)}, []step{
			{"user", "check_vpn_status", nil, "VPN is ON and connected. Details: " + strings.Replace(vpn, "%s", "POOR: 'poor'", 1)},
			{"user", "run_speed_test", nil, "Speed Test Result: 27.50 Mbps (Good). Connection is good for most activities, including HD streaming."},
			{"user", "connect_vpn", nil, "VPN already connected."},
			{"user", "disconnect_vpn", nil, "VPN disconnected successfully.\nStatus Bar: " + barExcellent},
			{"user", "disconnect_vpn", nil, "No active VPN connection to disconnect.\nStatus Bar: " + barExcellent},
			{"user", "connect_vpn", nil, "VPN connected successfully.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔒 VPN Connected | 🔋 80%"},
			{"user", "check_vpn_status", nil, "VPN is ON and connected. Details: " + strings.Replace(vpn, "%s", "POOR: 'poor'", 1)},
		}},
		{"vpn", []domains.Action{search}, []step{
			{"user", "connect_vpn", nil, "VPN connected successfully.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔒 VPN Connected | 🔋 80%"},
			{"user", "check_vpn_status", nil, "VPN is ON and connected. Details: " + strings.Replace(vpn, "%s", "EXCELLENT: 'excellent'", 1)},
			{"user", "toggle_airplane_mode", nil, "Airplane Mode is now ON.\nStatus Bar: " + barAirplane},
			{"user", "check_vpn_status", nil, "VPN is turned OFF."},
		}},
		{"apps", []domains.Action{search, user("remove_app_permission", m{"app_name": "messaging", "permission": "STORAGE"})}, []step{
			{"user", "check_installed_apps", nil, "The following apps are installed on the phone: messaging, browser"},
			{"user", "check_app_permissions", m{"app_name": "messaging"}, "App 'messaging' has permission for: sms, phone."},
			{"user", "check_app_status", m{"app_name": "browser"}, "Status for App: browser\n - Permissions Granted:\n   - storage\n   - network"},
			{"user", "check_app_status", m{"app_name": "camera"}, "App 'camera' not found on this phone."},
			{"user", "check_app_permissions", m{"app_name": "camera"}, "App 'camera' not found on this phone."},
			{"user", "can_send_mms", nil, "Your messaging app cannot send MMS messages."},
			{"user", "grant_app_permission", m{"app_name": "messaging", "permission": "camera"}, "Error. Permission 'camera' not tracked for app 'messaging', " +
				"available permissions: ['sms', 'storage', 'phone', 'network']\nStatus Bar: " + barExcellent},
			{"user", "grant_app_permission", m{"app_name": "camera", "permission": "sms"}, "Error. App 'camera' not found. Cannot grant permission.\nStatus Bar: " + barExcellent},
			{"user", "grant_app_permission", m{"app_name": "messaging", "permission": "Storage"}, "Success. Permission 'storage' granted to app 'messaging'.\nStatus Bar: " + barExcellent},
			{"user", "can_send_mms", nil, "Your messaging app can send MMS messages."},
		}},
		{"apn", []domains.Action{search}, []step{
			{"user", "set_apn_settings", m{"apn_settings": m{"apn_name": "broken", "mmsc_url": nil}}, "APN settings set to: broken\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"},
			{"user", "check_apn_settings", nil, "Current APN Name: broken\nMMSC URL (for picture messages): Not Set\n(These are technical settings, usually best left unchanged.)"},
			{"user", "reboot_device", nil, "Restarting network services...\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"},
			{"user", "reset_apn_settings", nil, "APN settings will reset at reboot.\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"},
			{"user", "reboot_device", nil, "Resetting APN settings...\nRestarting network services...\nStatus Bar: " + barExcellent},
			{"user", "can_send_mms", nil, "Your messaging app can send MMS messages."},
		}},
		{"sim", []domains.Action{user("unseat_sim_card", nil)}, []step{
			{"user", "check_sim_status", nil, "No SIM card detected in the phone."},
			{"user", "check_status_bar", nil, "Status Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"},
			{"user", "reseat_sim_card", nil, "SIM card re-seated successfully.\nStatus Bar: " + barExcellent},
		}},
		{"locked sim", []domains.Action{user("lock_sim_card", m{"mode": "puk"})}, []step{
			{"user", "reseat_sim_card", nil, "SIM card re-seated successfully.\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"},
			{"user", "check_sim_status", nil, "The SIM card is locked with a PUK code."},
		}},
		// Abroad, data needs roaming on the phone and on the line.
		{"abroad", []domains.Action{search, user("set_user_location", m{"abroad": true})}, []step{
			{"user", "run_speed_test", nil, "Speed test failed: No Connection."},
			{"user", "toggle_roaming", nil, "Data Roaming is now ON.\nStatus Bar: " + barExcellent},
			{"user", "run_speed_test", nil, "Speed Test Result: 275.00 Mbps (Excellent). Connection is very fast."},
			{"assistant", "disable_roaming", m{"customer_id": "C1", "line_id": "L1"}, "Roaming disabled successfully"},
			{"user", "run_speed_test", nil, "Speed test failed: No Connection."},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := envWith(t, d, tc.init...)
			for i, s := range tc.steps {
				if got := call(t, env, s.requestor, s.tool, s.args); got != s.want {
					t.Errorf("step %d %s:\n got %q\nwant %q", i, s.tool, got, s.want)
				}
			}
		})
	}
}

func TestUserToolFailures(t *testing.T) {
	d := miniDomain(t)
	env := envWith(t, d)
	cases := []struct {
		tool string
		args m
		want string
	}{
		{"toggle_data", m{"x": true}, "Error: TelecomUserTools.toggle_data() got an unexpected keyword argument 'x'"},
		{"grant_app_permission", m{"app_name": "messaging"}, "Error: TelecomUserTools.grant_app_permission() missing 1 required positional argument: 'permission'"},
		{"set_apn_settings", m{"apn_settings": m{"apn": "internet"}}, "Error: 1 validation error for APNSettings\napn\n  extra inputs are not permitted"},
		{"set_apn_settings", m{"apn_settings": m{"apn_name": "wap"}}, "Error: 1 validation error for APNSettings\napn_name\n  apn_name \"wap\" is not one of ['internet', 'broken']"},
		{"set_apn_settings", m{"apn_settings": m{"mms_port": 80.5}}, "Error: 1 validation error for APNSettings\nmms_port\n  must be an integer or null"},
		{"get_customer_by_id", m{"customer_id": "C1"}, `Error: unknown tool "get_customer_by_id"`},
		{"turn_data_on", nil, `Error: unknown tool "turn_data_on"`},
	}
	for _, tc := range cases {
		res := env.Call(domains.ToolCall{Name: tc.tool, Arguments: tc.args, Requestor: "user"})
		if !res.Error || res.Content != tc.want {
			t.Errorf("%s(%v) = %v %q, want an error %q", tc.tool, tc.args, res.Error, res.Content, tc.want)
		}
	}
	if h, _ := env.Hash(); h != mustHash(t, envWith(t, d)) {
		t.Error("failed calls changed the environment")
	}
}

// TestUserToolHalfWrites: a mode or APN settings of the wrong type is
// stored before tau2 fails on it, so the call fails and still changes the
// phone, as tau2's does.
func TestUserToolHalfWrites(t *testing.T) {
	d := miniDomain(t)
	fresh := mustHash(t, envWith(t, d))
	cases := []struct {
		name  string
		steps []struct {
			tool    string
			args    m
			want    string
			isError bool
		}
	}{
		{"mode as a number", []struct {
			tool    string
			args    m
			want    string
			isError bool
		}{
			{"set_network_mode_preference", m{"mode": json.Number("4")}, "Error: 'int' object has no attribute 'value'", true},
			{"check_network_mode_preference", nil, "Error: 'int' object has no attribute 'value'", true},
			{"set_network_mode_preference", m{"mode": "3g_only"}, "Preferred Network Mode set to: 3g_only\nStatus Bar: 📶² Fair | 3G | 📱 Data Enabled | 🔋 80%", false},
			{"check_network_mode_preference", nil, "Network Mode Preference: 3g_only", false},
		}},
		{"mode as null", []struct {
			tool    string
			args    m
			want    string
			isError bool
		}{
			{"set_network_mode_preference", m{"mode": nil}, "Failed to set network mode: 'None' is not a valid option. Please use one of: 4g_5g_preferred, 4g_only, 3g_only, 2g_only\nStatus Bar: 📶³ Good | 4G | 📱 Data Enabled | 🔋 80%", false},
		}},
		{"APN settings as a string", []struct {
			tool    string
			args    m
			want    string
			isError bool
		}{
			{"set_apn_settings", m{"apn_settings": "internet"}, "Error: 'str' object has no attribute 'apn_name'", true},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := envWith(t, d)
			for i, s := range tc.steps {
				res := env.Call(domains.ToolCall{Name: s.tool, Arguments: s.args, Requestor: "user"})
				if res.Error != s.isError || res.Content != s.want {
					t.Errorf("step %d %s: got %v %q\nwant %v %q", i, s.tool, res.Error, res.Content, s.isError, s.want)
				}
			}
			if mustHash(t, env) == fresh {
				t.Error("the phone did not change")
			}
		})
	}
}

func mustHash(t *testing.T, env domains.Env) string {
	t.Helper()
	h, err := env.Hash()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestSync follows a payment and a data refuel between the two sides.
func TestSync(t *testing.T) {
	d := miniDomain(t)
	overdue := agent("suspend_line_for_overdue_bill", m{"customer_id": "C1", "line_id": "L1", "new_bill_id": "B9", "contract_ended": false})
	env := envWith(t, d, overdue, user("simulate_network_search", nil))
	assert := func(side, fn string, args m, want bool) {
		t.Helper()
		got, err := domains.CallFunc(env, side, fn, args)
		if err != nil || got != want {
			t.Errorf("%s(%v) = %v, %v; want %v", fn, args, got, err, want)
		}
	}
	assert("assistant", "assert_overdue_bill_exists", m{"customer_id": "C1", "overdue_bill_id": "B9"}, true)
	assert("assistant", "assert_no_overdue_bill", m{"overdue_bill_id": "B9"}, false)
	steps := []struct {
		requestor, tool string
		args            m
		want            string
	}{
		{"user", "check_status_bar", nil, "Status Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"},
		{"user", "check_payment_request", nil, "No payment request has been made."},
		{"assistant", "send_payment_request", m{"customer_id": "C1", "bill_id": "B9"}, "Payment request sent to the customer for bill B9"},
		{"user", "check_payment_request", nil, "You have a payment request for bill B9 of 30.0 USD."},
		{"user", "make_payment", nil, "Payment of 30.0 USD has been made for bill B9."},
		{"user", "check_payment_request", nil, "No payment request has been made."},
		{"assistant", "resume_line", m{"customer_id": "C1", "line_id": "L1"}, ""},
		// The phone notices the line only when it searches again.
		{"user", "check_status_bar", nil, "Status Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"},
		{"user", "reboot_device", nil, "Restarting network services...\nStatus Bar: " + barExcellent},
	}
	for i, s := range steps {
		if got := call(t, env, s.requestor, s.tool, s.args); s.want != "" && got != s.want {
			t.Errorf("step %d %s:\n got %q\nwant %q", i, s.tool, got, s.want)
		}
	}
	if got := call(t, env, "", "get_details_by_id", m{"id": "B9"}); got != `{"bill_id": "B9", "customer_id": "C1", "period_start": "2025-01-01", `+
		`"period_end": "2025-01-31", "issue_date": "2025-01-01", "total_due": 30.0, "due_date": "2025-01-15", "line_items": [{"description": `+
		`"Charge for line L1", "amount": 30.0, "date": "2025-02-25", "item_type": "Charge"}], "status": "Paid"}` {
		t.Errorf("overdue bill after payment: %s", got)
	}
	assert("assistant", "assert_no_overdue_bill", m{"overdue_bill_id": "B9"}, true)
	assert("assistant", "assert_line_status", m{"customer_id": "C1", "line_id": "L1", "expected_status": "Active"}, true)
	assert("user", "assert_service_status", m{"expected_status": "connected"}, true)

	// One request at a time.
	env = envWith(t, d)
	call(t, env, "", "send_payment_request", m{"customer_id": "C1", "bill_id": "B2"})
	if res := env.Call(domains.ToolCall{Name: "send_payment_request", Arguments: m{"customer_id": "C1", "bill_id": "B1"}}); !res.Error ||
		res.Content != "Error: A bill is already awaiting payment for this customer" {
		t.Errorf("second payment request: %+v", res)
	}
	if got := call(t, env, "user", "check_payment_request", nil); got != "You have a payment request for bill B2 of 35.0 USD." {
		t.Errorf("payment request: %s", got)
	}

	// Data: over the allowance until refueled.
	env = envWith(t, d, agent("set_data_usage", m{"customer_id": "C1", "line_id": "L1", "data_used_gb": 10.5}), user("simulate_network_search", nil))
	assert("user", "assert_mobile_data_usage_exceeded", m{"expected_status": true}, true)
	assert("user", "assert_mobile_data_status", m{"expected_status": false}, true)
	if got := call(t, env, "", "refuel_data", m{"customer_id": "C1", "line_id": "L1", "gb_amount": 1.0}); !strings.Contains(got, "for $2.50") {
		t.Errorf("refuel: %s", got)
	}
	assert("user", "assert_mobile_data_usage_exceeded", m{"expected_status": false}, true)
	assert("user", "assert_internet_speed", m{"expected_speed": 200.0, "expected_desc": "EXCELLENT"}, true)
	assert("user", "assert_internet_speed", m{"expected_speed": 300.0}, false)
	assert("user", "assert_internet_not_excellent", nil, false)
	assert("assistant", "assert_data_refueling_amount", m{"customer_id": "C1", "line_id": "L1", "expected_amount": 1.0}, true)
	if got := call(t, env, "", "get_bills_for_customer", m{"customer_id": "C1", "limit": json.Number("1")}); !strings.Contains(got,
		`"total_due": 2.5, "due_date": "2025-03-15", "line_items": [{"description": "Data refueling: 1.0 GB at $2.5/GB", "amount": 2.5, "date": "2025-02-25", "item_type": "Charge"}], "status": "Draft"`) {
		t.Errorf("draft bill after refuel: %s", got)
	}

	// A customer without a draft bill gets one, named deterministically.
	env = envWith(t, d)
	call(t, env, "", "refuel_data", m{"customer_id": "C2", "line_id": "L3", "gb_amount": 1.0})
	got := call(t, env, "", "get_bills_for_customer", m{"customer_id": "C2", "limit": json.Number("1")})
	other := envWith(t, d)
	call(t, other, "", "refuel_data", m{"customer_id": "C2", "line_id": "L3", "gb_amount": 1.0})
	if again := call(t, other, "", "get_bills_for_customer", m{"customer_id": "C2", "limit": json.Number("1")}); again != got ||
		!strings.Contains(got, `"period_start": "2025-03-01", "period_end": "2025-03-31", "issue_date": "2025-03-01", "total_due": 0.1,`) {
		t.Errorf("new draft bill: %s\nagain: %s", got, again)
	}

	// A phone number with no line is a broken scenario.
	_, err := d.NewEnv(&domains.Task{ID: "t", InitialState: &domains.InitialState{InitializationActions: []domains.Action{
		user("set_user_info", m{"name": "X", "phone_number": "555-9999"})}}})
	if err == nil || !strings.Contains(err.Error(), "Wrong scenario, line not found for phone number: 555-9999") {
		t.Errorf("unknown phone number: %v", err)
	}
}
