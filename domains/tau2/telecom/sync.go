package telecom

import "fmt"

// syncSides is tau2's TelecomEnvironment.sync_tools (domains-spec.md 5.6), run
// by the environment after every tool call and env function
// (domains.Spec.Sync): once the user's phone number is known, it copies
// the agent's records of their line into their surroundings (active line,
// roaming allowed, data allowance used up), settles a paid payment request
// (the bill becomes Paid) and raises a request for the first of their bills
// awaiting payment. It does not search for a network: the phone notices a
// changed line only when something makes it search (a toggle, a reboot).
func syncSides(db *DB, user any) error {
	u, ok := user.(*UserDB)
	if !ok {
		return fmt.Errorf("telecom sync: user database is %T, not *UserDB", user)
	}
	s := &u.Surroundings
	if s.PhoneNumber == nil {
		return nil
	}
	phone := *s.PhoneNumber
	line, err := db.lineByPhone(phone)
	if err != nil {
		return fmt.Errorf("Wrong scenario, line not found for phone number: %s", phone)
	}
	s.LineActive = line.Status == LineActive
	s.RoamingAllowed = line.RoamingEnabled
	plan, err := db.plan(line.PlanID)
	if err != nil {
		return err
	}
	s.MobileDataUsageExceeded = line.DataUsedGB >= plan.DataLimitGB+line.DataRefuelingGB
	if r := s.PaymentRequest; r != nil && r.Paid {
		bill, err := db.bill(r.BillID)
		if err != nil {
			return err
		}
		bill.Status = BillPaid
		s.PaymentRequest = nil
	}
	if s.PaymentRequest != nil {
		return nil // one request at a time
	}
	c, err := db.customerByPhone(phone, phone)
	if err != nil {
		return err
	}
	waiting, err := db.billsAwaitingPayment(c)
	if err != nil {
		return err
	}
	if len(waiting) > 0 {
		s.PaymentRequest = &PaymentRequest{BillID: waiting[0].BillID, AmountDue: waiting[0].TotalDue}
	}
	return nil
}
