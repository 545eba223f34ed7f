package telecom

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// TransferMessage is what transfer_to_human_agents returns.
const TransferMessage = "Transfer successful"

// Tools returns the agent's tools and env functions (domains-spec.md 5.3).
func Tools() *domains.Toolbox[DB] {
	tb := domains.NewToolbox[DB]()
	tb.Register("get_customer_by_phone",
		"Look up a customer by phone number: their contact number or the number of one of their lines. Returns the customer's account.",
		`{"type": "object", "properties": {
			"phone_number": {"type": "string", "description": "The phone number, as written in the account, such as '555-123-4567'."}
		}, "required": ["phone_number"]}`,
		getCustomerByPhone)
	tb.Register("get_customer_by_id",
		"Look up a customer by customer id. Returns the customer's account.",
		`{"type": "object", "properties": {
			"customer_id": {"type": "string", "description": "The customer's id, such as 'C1001'."}
		}, "required": ["customer_id"]}`,
		getCustomerByID)
	tb.Register("get_customer_by_name",
		"Find customers by full name (any letter case) and date of birth. Returns a possibly empty list of accounts.",
		`{"type": "object", "properties": {
			"full_name": {"type": "string", "description": "The customer's full name."},
			"dob": {"type": "string", "description": "The customer's date of birth, YYYY-MM-DD."}
		}, "required": ["full_name", "dob"]}`,
		getCustomerByName)
	tb.Register("get_details_by_id",
		"Fetch any record by its id: a customer (C...), line (L...), device (D...), bill (B...) or plan (P...).",
		`{"type": "object", "properties": {
			"id": {"type": "string", "description": "The record's id, such as 'L1002' or 'P1001'."}
		}, "required": ["id"]}`,
		getDetailsByID)
	tb.Register("get_bills_for_customer",
		"List a customer's bills, newest issue date first.",
		`{"type": "object", "properties": {
			"customer_id": {"type": "string", "description": "The customer's id."},
			"limit": {"type": "integer", "description": "How many bills to return at most (default 12)."}
		}, "required": ["customer_id"]}`,
		getBillsForCustomer)
	tb.Register("get_data_usage",
		"Show a line's data use in the current billing cycle: data used, the plan's allowance, data refueled this cycle and the cycle's end date.",
		`{"type": "object", "properties": {
			"customer_id": {"type": "string", "description": "The id of the customer who owns the line."},
			"line_id": {"type": "string", "description": "The line's id."}
		}, "required": ["customer_id", "line_id"]}`,
		getDataUsage)
	tb.Register("suspend_line",
		"Suspend an active line (for at most six months; a holding fee of $5 a month applies). Returns the updated line.",
		`{"type": "object", "properties": {
			"customer_id": {"type": "string", "description": "The id of the customer who owns the line."},
			"line_id": {"type": "string", "description": "The line's id."},
			"reason": {"type": "string", "description": "Why the line is suspended."}
		}, "required": ["customer_id", "line_id", "reason"]}`,
		suspendLine)
	tb.Register("resume_line",
		"Reactivate a suspended (or pending) line. Returns the updated line.",
		`{"type": "object", "properties": {
			"customer_id": {"type": "string", "description": "The id of the customer who owns the line."},
			"line_id": {"type": "string", "description": "The line's id."}
		}, "required": ["customer_id", "line_id"]}`,
		resumeLine)
	tb.Register("send_payment_request",
		"Ask the customer to pay one of their bills: the bill becomes 'Awaiting Payment' and the customer sees the request on their phone. "+
			"Fails when another of their bills already awaits payment. It does not check whether the bill is already paid: check that first.",
		`{"type": "object", "properties": {
			"customer_id": {"type": "string", "description": "The customer's id."},
			"bill_id": {"type": "string", "description": "The id of the bill to be paid."}
		}, "required": ["customer_id", "bill_id"]}`,
		sendPaymentRequest)
	tb.Register("enable_roaming",
		"Allow international roaming on a line.",
		`{"type": "object", "properties": {
			"customer_id": {"type": "string", "description": "The id of the customer who owns the line."},
			"line_id": {"type": "string", "description": "The line's id."}
		}, "required": ["customer_id", "line_id"]}`,
		enableRoaming)
	tb.Register("disable_roaming",
		"Stop international roaming on a line.",
		`{"type": "object", "properties": {
			"customer_id": {"type": "string", "description": "The id of the customer who owns the line."},
			"line_id": {"type": "string", "description": "The line's id."}
		}, "required": ["customer_id", "line_id"]}`,
		disableRoaming)
	tb.Register("transfer_to_human_agents",
		"Hand the conversation to a human agent, with a summary of the customer's issue. Only when the customer asks for one, "+
			"or when the policy and your tools cannot resolve the issue.",
		`{"type": "object", "properties": {
			"summary": {"type": "string", "description": "A summary of the customer's issue for the human agent."}
		}, "required": ["summary"]}`,
		transferToHumanAgents)
	tb.Register("refuel_data",
		"Add data to a line for the current billing cycle; the charge, at the plan's refueling price per GB, goes on the customer's next (draft) bill.",
		`{"type": "object", "properties": {
			"customer_id": {"type": "string", "description": "The id of the customer who owns the line."},
			"line_id": {"type": "string", "description": "The line's id."},
			"gb_amount": {"type": "number", "description": "How many gigabytes to add, such as 2.0."}
		}, "required": ["customer_id", "line_id", "gb_amount"]}`,
		refuelData)

	tb.RegisterEnvFunc("set_data_usage", setDataUsage)
	tb.RegisterEnvFunc("suspend_line_for_overdue_bill", suspendLineForOverdueBill)
	tb.RegisterEnvFunc("get_available_plan_ids", getAvailablePlanIDs)
	tb.RegisterEnvFunc("assert_data_refueling_amount", assertDataRefuelingAmount)
	tb.RegisterEnvFunc("assert_line_status", assertLineStatus)
	tb.RegisterEnvFunc("assert_overdue_bill_exists", assertOverdueBillExists)
	tb.RegisterEnvFunc("assert_no_overdue_bill", assertNoOverdueBill)
	return tb
}

// Lookups, linear by id as tau2's are. They return pointers into the
// database's lists, valid until a list grows.

func (db *DB) customer(id string) (*Customer, error) {
	for i := range db.Customers {
		if db.Customers[i].CustomerID == id {
			return &db.Customers[i], nil
		}
	}
	return nil, fmt.Errorf("Customer with ID %s not found", id)
}

func (db *DB) line(id string) (*Line, error) {
	for i := range db.Lines {
		if db.Lines[i].LineID == id {
			return &db.Lines[i], nil
		}
	}
	return nil, fmt.Errorf("Line with ID %s not found", id)
}

func (db *DB) lineByPhone(phone string) (*Line, error) {
	for i := range db.Lines {
		if db.Lines[i].PhoneNumber == phone {
			return &db.Lines[i], nil
		}
	}
	return nil, fmt.Errorf("Line with phone number %s not found", phone)
}

func (db *DB) plan(id string) (*Plan, error) {
	for i := range db.Plans {
		if db.Plans[i].PlanID == id {
			return &db.Plans[i], nil
		}
	}
	return nil, fmt.Errorf("Plan with ID %s not found", id)
}

func (db *DB) device(id string) (*Device, error) {
	for i := range db.Devices {
		if db.Devices[i].DeviceID == id {
			return &db.Devices[i], nil
		}
	}
	return nil, fmt.Errorf("Device with ID %s not found", id)
}

func (db *DB) bill(id string) (*Bill, error) {
	for i := range db.Bills {
		if db.Bills[i].BillID == id {
			return &db.Bills[i], nil
		}
	}
	return nil, fmt.Errorf("Bill with ID %s not found", id)
}

// customerByPhone is the first customer, in list order, whose contact
// number is phone or who owns a line with that number. A line id of theirs
// that names no line fails, as tau2's lookup raises.
// customerByPhone finds the customer whose number or line's number equals
// phone (a value of another type than string equals none); shown is
// phone as the error names it.
func (db *DB) customerByPhone(phone any, shown string) (*Customer, error) {
	for i := range db.Customers {
		c := &db.Customers[i]
		if phone == any(c.PhoneNumber) {
			return c, nil
		}
		for _, id := range c.LineIDs {
			l, err := db.line(id)
			if err != nil {
				return nil, err
			}
			if phone == any(l.PhoneNumber) {
				return c, nil
			}
		}
	}
	return nil, fmt.Errorf("Customer with phone number %s not found", shown)
}

// targetLine is a customer's line: the customer must exist and own it.
func (db *DB) targetLine(customerID, lineID string) (*Line, error) {
	c, err := db.customer(customerID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(c.LineIDs, lineID) {
		return nil, fmt.Errorf("Line %s not found for customer %s", lineID, customerID)
	}
	return db.line(lineID)
}

// billsAwaitingPayment are the customer's bills awaiting payment, in the
// order of their bill ids.
func (db *DB) billsAwaitingPayment(c *Customer) ([]*Bill, error) {
	var out []*Bill
	for _, id := range c.BillIDs {
		b, err := db.bill(id)
		if err != nil {
			return nil, err
		}
		if b.Status == BillAwaitingPayment {
			out = append(out, b)
		}
	}
	return out, nil
}

// out writes a tool's non-string result as tau2's tool message does.
func out(v any) (any, error) {
	s, err := pyJSON(v)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// customerAndLineArgs reads the customer_id and line_id of a tool that
// takes exactly those (and the extra parameters given).
func customerAndLineArgs(fn string, args domains.Args, extra ...string) (string, string, error) {
	if err := pycompat.CheckKwargs(toolsClass, fn, args, append([]string{"customer_id", "line_id"}, extra...)); err != nil {
		return "", "", err
	}
	c, err := str(args, "customer_id")
	if err != nil {
		return "", "", err
	}
	l, err := str(args, "line_id")
	if err != nil {
		return "", "", err
	}
	return c, l, nil
}

func getCustomerByPhone(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "get_customer_by_phone", args, []string{"phone_number"}); err != nil {
		return nil, err
	}
	// tau2 compares the value with each phone number: one that is not a
	// str matches none and is named in the error as Python's str() has it.
	v := args["phone_number"]
	shown, scalar := pycompat.Str(v)
	if !scalar {
		return nil, fmt.Errorf("argument 'phone_number' must be a string, got %s", typeName(v))
	}
	c, err := db.customerByPhone(v, shown)
	if err != nil {
		return nil, err
	}
	return out(c.dump())
}

func getCustomerByID(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "get_customer_by_id", args, []string{"customer_id"}); err != nil {
		return nil, err
	}
	id, err := str(args, "customer_id")
	if err != nil {
		return nil, err
	}
	c, err := db.customer(id)
	if err != nil {
		return nil, err
	}
	return out(c.dump())
}

func getCustomerByName(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "get_customer_by_name", args, []string{"full_name", "dob"}); err != nil {
		return nil, err
	}
	name, err := str(args, "full_name")
	if err != nil {
		return nil, err
	}
	dob, err := str(args, "dob")
	if err != nil {
		return nil, err
	}
	found := []any{}
	for i := range db.Customers {
		c := &db.Customers[i]
		if strings.EqualFold(c.FullName, name) && c.DateOfBirth == dob {
			found = append(found, c.dump())
		}
	}
	return out(found)
}

func getDetailsByID(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "get_details_by_id", args, []string{"id"}); err != nil {
		return nil, err
	}
	id, err := str(args, "id")
	if err != nil {
		return nil, err
	}
	var rec obj
	switch {
	case strings.HasPrefix(id, "L"):
		l, err := db.line(id)
		if err != nil {
			return nil, err
		}
		rec = l.dump()
	case strings.HasPrefix(id, "D"):
		d, err := db.device(id)
		if err != nil {
			return nil, err
		}
		rec = d.dump()
	case strings.HasPrefix(id, "B"):
		b, err := db.bill(id)
		if err != nil {
			return nil, err
		}
		rec = b.dump()
	case strings.HasPrefix(id, "C"):
		c, err := db.customer(id)
		if err != nil {
			return nil, err
		}
		rec = c.dump()
	case strings.HasPrefix(id, "P"):
		p, err := db.plan(id)
		if err != nil {
			return nil, err
		}
		rec = p.dump()
	default:
		return nil, fmt.Errorf("Unknown ID format or type: %s", id)
	}
	return out(rec)
}

func getBillsForCustomer(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "get_bills_for_customer", args, []string{"customer_id"}, "limit"); err != nil {
		return nil, err
	}
	id, err := str(args, "customer_id")
	if err != nil {
		return nil, err
	}
	c, err := db.customer(id)
	if err != nil {
		return nil, err
	}
	bills := make([]*Bill, 0, len(c.BillIDs))
	for _, bid := range c.BillIDs {
		b, err := db.bill(bid)
		if err != nil {
			return nil, err
		}
		bills = append(bills, b)
	}
	// Python's sorted(reverse=True) is stable: equal dates keep their order.
	slices.SortStableFunc(bills, func(a, b *Bill) int { return strings.Compare(string(b.IssueDate), string(a.IssueDate)) })
	limit, err := sliceBound(args, "limit", 12, len(bills))
	if err != nil {
		return nil, err
	}
	// bills[:limit] with Python's slice bounds: a negative limit counts
	// from the end.
	if limit < 0 {
		limit = max(0, len(bills)+limit)
	}
	bills = bills[:min(limit, len(bills))]
	list := make([]any, len(bills))
	for i, b := range bills {
		list[i] = b.dump()
	}
	return out(list)
}

// cycleEnd is the last day of the current billing cycle (the month of
// today).
const cycleEnd = "2025-02-28"

func getDataUsage(db *DB, args domains.Args) (any, error) {
	cid, lid, err := customerAndLineArgs("get_data_usage", args)
	if err != nil {
		return nil, err
	}
	l, err := db.targetLine(cid, lid)
	if err != nil {
		return nil, err
	}
	p, err := db.plan(l.PlanID)
	if err != nil {
		return nil, err
	}
	// A plain dict: tau2 writes its numbers with str() (domains-spec.md 1.2).
	return out(obj{
		{"line_id", lid}, {"data_used_gb", pyjson.FormatFloat(l.DataUsedGB)}, {"data_limit_gb", pyjson.FormatFloat(p.DataLimitGB)},
		{"data_refueling_gb", pyjson.FormatFloat(l.DataRefuelingGB)}, {"cycle_end_date", cycleEnd},
	})
}

func suspendLine(db *DB, args domains.Args) (any, error) {
	cid, lid, err := customerAndLineArgs("suspend_line", args, "reason")
	if err != nil {
		return nil, err
	}
	if _, err := str(args, "reason"); err != nil {
		return nil, err
	}
	l, err := db.targetLine(cid, lid)
	if err != nil {
		return nil, err
	}
	if l.Status != LineActive {
		return nil, fmt.Errorf("Line must be active to suspend")
	}
	l.Status = LineSuspended
	d := today
	l.SuspensionStartDate = &d
	return out(obj{{"message", "Line suspended successfully. $5/month holding fee will apply."}, {"line", l.dump()}})
}

func resumeLine(db *DB, args domains.Args) (any, error) {
	cid, lid, err := customerAndLineArgs("resume_line", args)
	if err != nil {
		return nil, err
	}
	l, err := db.targetLine(cid, lid)
	if err != nil {
		return nil, err
	}
	if l.Status != LineSuspended && l.Status != LinePendingActivation {
		return nil, fmt.Errorf("Line must be suspended to resume")
	}
	l.Status = LineActive
	l.SuspensionStartDate = nil
	return out(obj{{"message", "Line resumed successfully"}, {"line", l.dump()}})
}

func sendPaymentRequest(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "send_payment_request", args, []string{"customer_id", "bill_id"}); err != nil {
		return nil, err
	}
	cid, err := str(args, "customer_id")
	if err != nil {
		return nil, err
	}
	bid, err := str(args, "bill_id")
	if err != nil {
		return nil, err
	}
	c, err := db.customer(cid)
	if err != nil {
		return nil, err
	}
	waiting, err := db.billsAwaitingPayment(c)
	if err != nil {
		return nil, err
	}
	if len(waiting) != 0 {
		return nil, fmt.Errorf("A bill is already awaiting payment for this customer")
	}
	if !slices.Contains(c.BillIDs, bid) {
		return nil, fmt.Errorf("Bill %s not found for customer %s", bid, cid)
	}
	b, err := db.bill(bid)
	if err != nil {
		return nil, err
	}
	b.Status = BillAwaitingPayment // whatever it was: tau2 does not check
	return fmt.Sprintf("Payment request sent to the customer for bill %s", b.BillID), nil
}

func enableRoaming(db *DB, args domains.Args) (any, error) {
	return setRoaming(db, args, "enable_roaming", true)
}

func disableRoaming(db *DB, args domains.Args) (any, error) {
	return setRoaming(db, args, "disable_roaming", false)
}

func setRoaming(db *DB, args domains.Args, fn string, on bool) (any, error) {
	cid, lid, err := customerAndLineArgs(fn, args)
	if err != nil {
		return nil, err
	}
	l, err := db.targetLine(cid, lid)
	if err != nil {
		return nil, err
	}
	word := "disabled"
	if on {
		word = "enabled"
	}
	if l.RoamingEnabled == on {
		return "Roaming was already " + word, nil
	}
	l.RoamingEnabled = on
	return "Roaming " + word + " successfully", nil
}

func transferToHumanAgents(_ *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "transfer_to_human_agents", args, []string{"summary"}); err != nil {
		return nil, err
	}
	if _, err := str(args, "summary"); err != nil {
		return nil, err
	}
	return TransferMessage, nil
}

func refuelData(db *DB, args domains.Args) (any, error) {
	cid, lid, err := customerAndLineArgs("refuel_data", args, "gb_amount")
	if err != nil {
		return nil, err
	}
	l, err := db.targetLine(cid, lid)
	if err != nil {
		return nil, err
	}
	// tau2 first compares gb_amount with 0: a str, None, list or dict
	// fails there, as Python's comparison does.
	switch v := args["gb_amount"]; v.(type) {
	case string, nil, []any, map[string]any:
		return nil, fmt.Errorf("'<=' not supported between instances of '%s' and 'int'", pycompat.TypeName(v))
	}
	gb, err := num(args, "gb_amount")
	if err != nil {
		return nil, err
	}
	// tau2 does not check the line's status.
	if gb.f <= 0 {
		return nil, fmt.Errorf("Refuel amount must be positive")
	}
	p, err := db.plan(l.PlanID)
	if err != nil {
		return nil, err
	}
	charge := gb.f * p.DataRefuelingPricePerGB
	l.DataRefuelingGB += gb.f
	desc := fmt.Sprintf("Data refueling: %s GB at $%s/GB", gb, pyjson.FormatFloat(p.DataRefuelingPricePerGB))
	// tau2 has changed the line by now; a failing charge leaves it so.
	if err := db.applyOneTimeCharge(cid, charge, desc); err != nil {
		return nil, err
	}
	return out(obj{
		{"message", fmt.Sprintf("Successfully added %s GB of data for line %s for $%.2f", gb, lid, charge)},
		{"new_data_refueling_gb", pyjson.FormatFloat(l.DataRefuelingGB)},
		{"charge", pyjson.FormatFloat(charge)},
	})
}

// applyOneTimeCharge adds a charge (a credit when negative) to the
// customer's first draft bill, creating one for next month when there is
// none.
func (db *DB) applyOneTimeCharge(customerID string, amount float64, desc string) error {
	c, err := db.customer(customerID)
	if err != nil {
		return err
	}
	var draft *Bill
	for _, id := range c.BillIDs {
		b, err := db.bill(id)
		if err != nil {
			return err
		}
		if b.Status == BillDraft {
			draft = b
			break
		}
	}
	if draft == nil {
		id := db.newBillID(customerID)
		db.Bills = append(db.Bills, Bill{
			BillID: id, CustomerID: customerID, PeriodStart: "2025-03-01", PeriodEnd: "2025-03-31",
			IssueDate: "2025-03-01", DueDate: "2025-03-15", LineItems: []LineItem{}, Status: BillDraft,
		})
		c.BillIDs = append(c.BillIDs, id)
		draft = &db.Bills[len(db.Bills)-1]
	}
	kind := "Charge"
	if amount < 0 {
		kind = "Credit"
	}
	draft.LineItems = append(draft.LineItems, LineItem{Description: desc, Amount: amount, Date: today, ItemType: kind})
	draft.TotalDue += amount
	return nil
}

// newBillID names a new draft bill. tau2 takes "B" and 8 random hex
// digits; proctor derives them from the customer and the number of bills,
// so that replaying a conversation gives the same database.
func (db *DB) newBillID(customerID string) string {
	for n := len(db.Bills); ; n++ {
		sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", customerID, n))
		id := "B" + hex.EncodeToString(sum[:4])
		if _, err := db.bill(id); err != nil {
			return id
		}
	}
}

func setDataUsage(db *DB, args domains.Args) (any, error) {
	cid, lid, err := customerAndLineArgs("set_data_usage", args, "data_used_gb")
	if err != nil {
		return nil, err
	}
	used, err := num(args, "data_used_gb")
	if err != nil {
		return nil, err
	}
	l, err := db.targetLine(cid, lid)
	if err != nil {
		return nil, err
	}
	l.DataUsedGB = used.f
	return fmt.Sprintf("Data usage set to %s GB for line %s", used, lid), nil
}

func suspendLineForOverdueBill(db *DB, args domains.Args) (any, error) {
	cid, lid, err := customerAndLineArgs("suspend_line_for_overdue_bill", args, "new_bill_id", "contract_ended")
	if err != nil {
		return nil, err
	}
	billID, err := str(args, "new_bill_id")
	if err != nil {
		return nil, err
	}
	ended, err := boolean(args, "contract_ended")
	if err != nil {
		return nil, err
	}
	l, err := db.line(lid)
	if err != nil {
		return nil, err
	}
	if l.Status != LineActive {
		return nil, fmt.Errorf("Line must be active to suspend for unpaid bill")
	}
	p, err := db.plan(l.PlanID)
	if err != nil {
		return nil, err
	}
	amount := p.PricePerMonth
	if amount <= 0 {
		return nil, fmt.Errorf("Amount must be positive for overdue bill")
	}
	c, err := db.customer(cid)
	if err != nil {
		return nil, err
	}
	for _, id := range c.BillIDs {
		b, err := db.bill(id)
		if err != nil {
			return nil, err
		}
		if b.Status == BillOverdue {
			return nil, fmt.Errorf("Customer already has an overdue bill")
		}
	}
	// Last month's bill, overdue since its due date.
	db.Bills = append(db.Bills, Bill{
		BillID: billID, CustomerID: cid, PeriodStart: "2025-01-01", PeriodEnd: "2025-01-31",
		IssueDate: "2025-01-01", DueDate: "2025-01-15", TotalDue: amount, Status: BillOverdue,
		LineItems: []LineItem{{Description: "Charge for line " + l.LineID, Amount: amount, Date: today, ItemType: "Charge"}},
	})
	c.BillIDs = append(c.BillIDs, billID)
	l.Status = LineSuspended
	d := today
	l.SuspensionStartDate = &d
	if ended {
		end := Date("2025-01-31")
		l.ContractEndDate = &end
	}
	return fmt.Sprintf("Line %s suspended for unpaid bill %s. Contract ended: %s", lid, billID, pyBool(ended)), nil
}

func getAvailablePlanIDs(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "get_available_plan_ids", args, nil); err != nil {
		return nil, err
	}
	ids := make([]any, len(db.Plans))
	for i, p := range db.Plans {
		ids[i] = p.PlanID
	}
	return out(ids)
}

func assertDataRefuelingAmount(db *DB, args domains.Args) (any, error) {
	cid, lid, err := customerAndLineArgs("assert_data_refueling_amount", args, "expected_amount")
	if err != nil {
		return nil, err
	}
	want, err := num(args, "expected_amount")
	if err != nil {
		return nil, err
	}
	l, err := db.targetLine(cid, lid)
	if err != nil {
		return nil, err
	}
	return math.Abs(l.DataRefuelingGB-want.f) < 1e-6, nil
}

func assertLineStatus(db *DB, args domains.Args) (any, error) {
	cid, lid, err := customerAndLineArgs("assert_line_status", args, "expected_status")
	if err != nil {
		return nil, err
	}
	want, err := str(args, "expected_status")
	if err != nil {
		return nil, err
	}
	l, err := db.targetLine(cid, lid)
	if err != nil {
		return nil, err
	}
	return l.Status == want, nil
}

func assertOverdueBillExists(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "assert_overdue_bill_exists", args, []string{"customer_id", "overdue_bill_id"}); err != nil {
		return nil, err
	}
	cid, err := str(args, "customer_id")
	if err != nil {
		return nil, err
	}
	bid, err := str(args, "overdue_bill_id")
	if err != nil {
		return nil, err
	}
	c, err := db.customer(cid)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(c.BillIDs, bid) {
		return nil, fmt.Errorf("Overdue bill %s not found", bid)
	}
	b, err := db.bill(bid)
	if err != nil {
		return nil, err
	}
	if b.Status != BillOverdue {
		return nil, fmt.Errorf("Overdue bill %s is not overdue", bid)
	}
	return true, nil
}

func assertNoOverdueBill(db *DB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(toolsClass, "assert_no_overdue_bill", args, []string{"overdue_bill_id"}); err != nil {
		return nil, err
	}
	bid, err := str(args, "overdue_bill_id")
	if err != nil {
		return nil, err
	}
	b, err := db.bill(bid)
	if err != nil {
		return true, nil // no such bill
	}
	return b.Status == BillPaid, nil
}

// pyBool is Python's str() of a bool.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
