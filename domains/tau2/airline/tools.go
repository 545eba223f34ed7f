package airline

import (
	"errors"
	"fmt"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
	"slices"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/calc"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
)

// Fixed facts of the simulated world.
const (
	// Now is the current time of the simulated world, stamped on new
	// reservations.
	Now = "2024-05-15T15:00:00"
	// BaggageFee is the price of one non-free checked bag.
	BaggageFee = 50
	// InsuranceFee is the price of travel insurance per passenger.
	InsuranceFee = 30
	// TransferMessage is what transfer_to_human_agents returns.
	TransferMessage = "Transfer successful"
)

// New reservation and certificate ids are the first of these not yet taken.
var (
	newReservationIDs = []string{"HATHAT", "HATHAU", "HATHAV"}
	newCertificateIDs = []string{"certificate_3221322", "certificate_3221323", "certificate_3221324"}
)

// Airport is an entry of list_all_airports.
type Airport struct {
	IATA string `json:"iata"`
	City string `json:"city"`
}

func airports() []Airport {
	return []Airport{
		{"SFO", "San Francisco"}, {"JFK", "New York"}, {"LAX", "Los Angeles"}, {"ORD", "Chicago"},
		{"DFW", "Dallas"}, {"DEN", "Denver"}, {"SEA", "Seattle"}, {"ATL", "Atlanta"},
		{"MIA", "Miami"}, {"BOS", "Boston"}, {"PHX", "Phoenix"}, {"IAH", "Houston"},
		{"LAS", "Las Vegas"}, {"MCO", "Orlando"}, {"EWR", "Newark"}, {"CLT", "Charlotte"},
		{"MSP", "Minneapolis"}, {"DTW", "Detroit"}, {"PHL", "Philadelphia"}, {"LGA", "LaGuardia"},
	}
}

// DirectFlight is a search result: a flight with its seats and prices on the
// searched date. Date is set only in one-stop results.
type DirectFlight struct {
	FlightNumber       string  `json:"flight_number"`
	Origin             string  `json:"origin"`
	Destination        string  `json:"destination"`
	Status             string  `json:"status"`
	ScheduledDeparture string  `json:"scheduled_departure_time_est"`
	ScheduledArrival   string  `json:"scheduled_arrival_time_est"`
	Date               *string `json:"date"`
	AvailableSeats     Seats   `json:"available_seats"`
	Prices             Seats   `json:"prices"`
}

// JSON Schema fragments shared by several tools.
const (
	cabinSchema  = `{"type": "string", "enum": ["basic_economy", "economy", "business"], "description": "The cabin class: basic_economy, economy or business."}`
	flightsItems = `{"type": "array", "items": {"type": "object", "properties": {
		"flight_number": {"type": "string", "description": "Flight number, such as 'HAT001'."},
		"date": {"type": "string", "description": "Departure date of that flight, as YYYY-MM-DD."}
	}, "required": ["flight_number", "date"]}`
	passengerItems = `{"type": "array", "items": {"type": "object", "properties": {
		"first_name": {"type": "string", "description": "The passenger's first name."},
		"last_name": {"type": "string", "description": "The passenger's last name."},
		"dob": {"type": "string", "description": "The passenger's date of birth, as YYYY-MM-DD."}
	}, "required": ["first_name", "last_name", "dob"]}`
)

// Tools returns the airline toolbox: every tool tau2's airline agent has.
func Tools() *domains.Toolbox[DB] {
	tb := domains.NewToolbox[DB]()
	tb.EncodeWith(pyjson.ToolMessage) // tau2's json.dumps layout
	tb.Register("book_reservation",
		"Create a new reservation for a user, charging the given payment methods. The payments must add up exactly to the price: the per-passenger fare of every flight in the chosen cabin times the number of passengers, plus 30 per passenger with insurance, plus 50 per non-free bag. Travel certificates are used up entirely once charged; gift cards are debited by the amount charged.",
		`{"type": "object", "properties": {
			"user_id": {"type": "string", "description": "Id of the user making the booking, such as 'sara_doe_496'."},
			"origin": {"type": "string", "description": "IATA code of the trip's origin, such as 'JFK'."},
			"destination": {"type": "string", "description": "IATA code of the trip's destination, such as 'SFO'."},
			"flight_type": {"type": "string", "enum": ["round_trip", "one_way"], "description": "Whether the trip is one way or a round trip."},
			"cabin": `+cabinSchema+`,
			"flights": `+flightsItems+`, "description": "Every flight of the trip, outbound and (for a round trip) return, in order."},
			"passengers": `+passengerItems+`, "description": "Everyone travelling on the reservation."},
			"payment_methods": {"type": "array", "items": {"type": "object", "properties": {
				"payment_id": {"type": "string", "description": "Id of one of the user's payment methods, such as 'credit_card_7815826' or 'gift_card_7815826'."},
				"amount": {"type": "integer", "description": "Amount charged to that payment method."}
			}, "required": ["payment_id", "amount"]}, "description": "How the total price is split between the user's payment methods."},
			"total_baggages": {"type": "integer", "description": "Number of checked bags on the reservation."},
			"nonfree_baggages": {"type": "integer", "description": "How many of those bags are paid for (beyond the free allowance)."},
			"insurance": {"type": "string", "enum": ["yes", "no"], "description": "Whether travel insurance is bought."}
		}, "required": ["user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance"]}`,
		bookReservation)
	tb.Register("calculate",
		"Evaluate an arithmetic expression and return the result rounded to two decimals. Numbers, parentheses, spaces and the operators + - * / are allowed.",
		`{"type": "object", "properties": {
			"expression": {"type": "string", "description": "The expression to compute, such as '2 * (174 + 30)'."}
		}, "required": ["expression"]}`,
		calculateTool)
	tb.Register("cancel_reservation",
		"Cancel an entire reservation. The amounts paid are recorded as refunds to the payment methods they came from.",
		`{"type": "object", "properties": {
			"reservation_id": {"type": "string", "description": "The six-character reservation code, such as 'ZFA04Y'."}
		}, "required": ["reservation_id"]}`,
		cancelReservation)
	tb.Register("get_flight_status",
		"Look up the status of a flight on a date: available, on time, delayed, flying, landed or cancelled.",
		`{"type": "object", "properties": {
			"flight_number": {"type": "string", "description": "Flight number, such as 'HAT001'."},
			"date": {"type": "string", "description": "The date, as YYYY-MM-DD."}
		}, "required": ["flight_number", "date"]}`,
		getFlightStatus)
	tb.Register("get_reservation_details",
		"Look up a reservation: its flights, cabin, passengers, payments, baggage, insurance and status.",
		`{"type": "object", "properties": {
			"reservation_id": {"type": "string", "description": "The six-character reservation code, such as 'ZFA04Y'."}
		}, "required": ["reservation_id"]}`,
		getReservationDetails)
	tb.Register("get_user_details",
		"Look up a user's profile: name, address, email, date of birth, payment methods (with gift card and certificate balances), saved passengers, membership level and reservation codes.",
		`{"type": "object", "properties": {
			"user_id": {"type": "string", "description": "The user's id, such as 'sara_doe_496'."}
		}, "required": ["user_id"]}`,
		getUserDetails)
	tb.Register("list_all_airports",
		"List the airports served, with their IATA codes and cities.",
		`{"type": "object", "properties": {}, "required": []}`,
		listAllAirports)
	tb.Register("search_direct_flight",
		"Find the non-stop flights between two airports that can still be booked on a date, with the seats left and the fare per passenger in each cabin.",
		`{"type": "object", "properties": {
			"origin": {"type": "string", "description": "IATA code of the departure airport, such as 'JFK'."},
			"destination": {"type": "string", "description": "IATA code of the arrival airport, such as 'LAX'."},
			"date": {"type": "string", "description": "Departure date, as YYYY-MM-DD."}
		}, "required": ["origin", "destination", "date"]}`,
		searchDirectFlight)
	tb.Register("search_onestop_flight",
		"Find bookable connections with exactly one stop between two airports, departing on a date. Each result is a pair of flights; each flight carries the date it flies on.",
		`{"type": "object", "properties": {
			"origin": {"type": "string", "description": "IATA code of the departure airport, such as 'JFK'."},
			"destination": {"type": "string", "description": "IATA code of the final arrival airport, such as 'LAX'."},
			"date": {"type": "string", "description": "Departure date of the first flight, as YYYY-MM-DD."}
		}, "required": ["origin", "destination", "date"]}`,
		searchOnestopFlight)
	tb.Register("send_certificate",
		"Give a user a travel certificate worth the given amount, for example as compensation.",
		`{"type": "object", "properties": {
			"user_id": {"type": "string", "description": "The user's id, such as 'sara_doe_496'."},
			"amount": {"type": "integer", "description": "The certificate's value."}
		}, "required": ["user_id", "amount"]}`,
		sendCertificate)
	tb.Register("transfer_to_human_agents",
		"Hand the conversation to a human agent, with a short summary. Keep it for requests that your tools and the policy cannot handle, or for a user who insists on speaking to a person.",
		`{"type": "object", "properties": {
			"summary": {"type": "string", "description": "A short summary of the user's problem for the human agent."}
		}, "required": ["summary"]}`,
		transferToHumanAgents)
	tb.Register("update_reservation_baggages",
		"Change the number of checked bags on a reservation. Each additional non-free bag costs 50, charged to the given payment method (a credit card or a gift card; certificates cannot be used).",
		`{"type": "object", "properties": {
			"reservation_id": {"type": "string", "description": "The six-character reservation code, such as 'ZFA04Y'."},
			"total_baggages": {"type": "integer", "description": "The new total number of checked bags."},
			"nonfree_baggages": {"type": "integer", "description": "The new number of paid (non-free) bags."},
			"payment_id": {"type": "string", "description": "Id of the user's credit card or gift card to charge, such as 'credit_card_7815826'."}
		}, "required": ["reservation_id", "total_baggages", "nonfree_baggages", "payment_id"]}`,
		updateReservationBaggages)
	tb.Register("update_reservation_flights",
		"Replace the flights and/or cabin of a reservation. Give the complete new list of flights, including those that do not change. The fare difference is charged to, or refunded to, the given payment method (a credit card or a gift card; certificates cannot be used).",
		`{"type": "object", "properties": {
			"reservation_id": {"type": "string", "description": "The six-character reservation code, such as 'ZFA04Y'."},
			"cabin": `+cabinSchema+`,
			"flights": `+flightsItems+`, "description": "The reservation's complete itinerary after the change, unchanged flights included."},
			"payment_id": {"type": "string", "description": "Id of the user's credit card or gift card to charge or refund, such as 'credit_card_7815826'."}
		}, "required": ["reservation_id", "cabin", "flights", "payment_id"]}`,
		updateReservationFlights)
	tb.Register("update_reservation_passengers",
		"Replace the details of the passengers on a reservation. The number of passengers cannot change.",
		`{"type": "object", "properties": {
			"reservation_id": {"type": "string", "description": "The six-character reservation code, such as 'ZFA04Y'."},
			"passengers": `+passengerItems+`, "description": "Every passenger of the reservation, in order, with the corrected details."}
		}, "required": ["reservation_id", "passengers"]}`,
		updateReservationPassengers)
	return tb
}

// params checks a call's argument names as a Python call with keyword
// arguments does (an unknown name or a missing one fails) and returns the
// values, in the order of names, as dump values.
func params(tool string, args domains.Args, names ...string) ([]any, error) {
	if err := pycompat.CheckKwargs(toolsClass, tool, args, names); err != nil {
		return nil, err
	}
	vals := make([]any, len(names))
	for i, n := range names {
		v, err := fromJSON(args[n])
		if err != nil {
			return nil, fmt.Errorf("argument '%s': %w", n, err)
		}
		vals[i] = v
	}
	return vals, nil
}

// Lookups, with tau2's messages. A key of another type than string is simply
// not found, except a list or an object, which Python cannot hash.

func (db *DB) getUser(id any) (*User, error) { return lookup(&db.users, id, "User") }

func (db *DB) getReservation(id any) (*Reservation, error) {
	return lookup(&db.reservations, id, "Reservation")
}

func (db *DB) getFlight(number any) (*Flight, error) { return lookup(&db.flights, number, "Flight") }

// lookup finds a record by key, failing as tau2 does: "<Kind> <key> not
// found".
func lookup[T any](m *records[T], key any, kind string) (*T, error) {
	if err := hashable(key); err != nil {
		return nil, err
	}
	if s, ok := key.(string); ok {
		if v, ok := m.get(s); ok {
			return v, nil
		}
	}
	return nil, fmt.Errorf("%s %s not found", kind, pyStr(key))
}

func (db *DB) getFlightDate(number, date any) (*Flight, FlightDate, error) {
	f, err := db.getFlight(number)
	if err != nil {
		return nil, FlightDate{}, err
	}
	if err := hashable(date); err != nil {
		return nil, FlightDate{}, err
	}
	if s, ok := date.(string); ok {
		if d, ok := f.Dates[s]; ok {
			return f, d, nil
		}
	}
	return nil, FlightDate{}, fmt.Errorf("Flight %s not found on date %s", pyStr(number), pyStr(date))
}

// paymentMethod returns the index of a user's payment method, or -1.
func (u *User) paymentMethod(id any) int {
	s, ok := id.(string)
	if !ok {
		return -1
	}
	return slices.IndexFunc(u.PaymentMethods, func(e PaymentMethodEntry) bool { return e.Key == s })
}

func getUserDetails(db *DB, args domains.Args) (any, error) {
	p, err := params("get_user_details", args, "user_id")
	if err != nil {
		return nil, err
	}
	return db.getUser(p[0])
}

func getReservationDetails(db *DB, args domains.Args) (any, error) {
	p, err := params("get_reservation_details", args, "reservation_id")
	if err != nil {
		return nil, err
	}
	return db.getReservation(p[0])
}

func listAllAirports(_ *DB, args domains.Args) (any, error) {
	if _, err := params("list_all_airports", args); err != nil {
		return nil, err
	}
	return airports(), nil
}

func getFlightStatus(db *DB, args domains.Args) (any, error) {
	p, err := params("get_flight_status", args, "flight_number", "date")
	if err != nil {
		return nil, err
	}
	_, d, err := db.getFlightDate(p[0], p[1])
	if err != nil {
		return nil, err
	}
	return d.Status, nil
}

func transferToHumanAgents(_ *DB, args domains.Args) (any, error) {
	if _, err := params("transfer_to_human_agents", args, "summary"); err != nil {
		return nil, err
	}
	return TransferMessage, nil
}

func calculateTool(_ *DB, args domains.Args) (any, error) {
	p, err := params("calculate", args, "expression")
	if err != nil {
		return nil, err
	}
	expr, ok := p[0].(string)
	if !ok {
		// What Python's eval says of a non-string.
		if _, isList := p[0].([]any); isList {
			return nil, fmt.Errorf("eval() arg 1 must be a string, bytes or code object")
		}
		return nil, fmt.Errorf("'%s' object is not iterable", pyTypeName(p[0]))
	}
	return calc.Calculate(expr)
}

func searchDirectFlight(db *DB, args domains.Args) (any, error) {
	p, err := params("search_direct_flight", args, "origin", "destination", "date")
	if err != nil {
		return nil, err
	}
	return db.searchDirect(p[2], p[0], p[1], nil)
}

// searchDirect scans the flights in file order for those from origin to
// destination (nil matches any airport) that are available on date and, if
// leaveAfter is set, depart at or after it (a string comparison).
func (db *DB) searchDirect(date, origin, destination any, leaveAfter *string) ([]DirectFlight, error) {
	out := []DirectFlight{}
	for _, num := range db.flightOrder {
		f, _ := db.flights.get(num)
		if origin != nil && !pyEqual(f.Origin, origin) {
			continue
		}
		if destination != nil && !pyEqual(f.Destination, destination) {
			continue
		}
		if err := hashable(date); err != nil {
			return nil, err
		}
		ds, isStr := date.(string)
		d, ok := f.Dates[ds]
		if !isStr || !ok || d.Status != StatusAvailable {
			continue
		}
		if leaveAfter != nil && f.ScheduledDeparture < *leaveAfter {
			continue
		}
		out = append(out, DirectFlight{
			FlightNumber:       f.FlightNumber,
			Origin:             f.Origin,
			Destination:        f.Destination,
			Status:             StatusAvailable,
			ScheduledDeparture: f.ScheduledDeparture,
			ScheduledArrival:   f.ScheduledArrival,
			AvailableSeats:     d.AvailableSeats,
			Prices:             d.Prices,
		})
	}
	return out, nil
}

func searchOnestopFlight(db *DB, args domains.Args) (any, error) {
	p, err := params("search_onestop_flight", args, "origin", "destination", "date")
	if err != nil {
		return nil, err
	}
	origin, destination, date := p[0], p[1], p[2]
	firsts, err := db.searchDirect(date, origin, nil, nil)
	if err != nil {
		return nil, err
	}
	out := [][2]DirectFlight{}
	for _, first := range firsts {
		d1 := date.(string) // a date the first leg flies on: a string
		first.Date = &d1
		d2 := d1
		if strings.Contains(first.ScheduledArrival, "+1") {
			// tau2 builds the next day by hand: same month, day + 1, no zero
			// padding ("2024-05-6"), no month rollover ("2024-05-31").
			tail := d1[max(0, len(d1)-2):]
			day, err := strconv.Atoi(strings.TrimSpace(tail))
			if err != nil {
				return nil, fmt.Errorf("invalid literal for int() with base 10: %s", pycompat.Repr(tail))
			}
			d2 = fmt.Sprintf("2024-05-%d", day+1)
		}
		arrival := first.ScheduledArrival
		seconds, err := db.searchDirect(d2, first.Destination, destination, &arrival)
		if err != nil {
			return nil, err
		}
		for _, second := range seconds {
			second.Date = &d2
			out = append(out, [2]DirectFlight{first, second})
		}
	}
	return out, nil
}

// flightInfo is a requested flight: a number and a date.
type flightInfo struct {
	number string
	date   string
}

// coerceFlights turns a flights argument into records as tau2 does. When
// the items are not all objects they are returned raw: tau2 then fails when
// it reads the first one (after its reservation and user lookups).
func coerceFlights(v any) (infos []flightInfo, raw []any, err error) {
	items, err := pyIterable("flights", v)
	if err != nil {
		return nil, nil, err
	}
	if !allDicts(items) {
		return nil, items, nil
	}
	for i, it := range items {
		m := it.(map[string]any)
		var fi flightInfo
		if fi.number, err = recordStr(m, "flights", i, "flight_number"); err != nil {
			return nil, nil, err
		}
		if fi.date, err = recordStr(m, "flights", i, "date"); err != nil {
			return nil, nil, err
		}
		infos = append(infos, fi)
	}
	return infos, nil, nil
}

// attributeError is what using a raw (non-record) item fails with.
func attributeError(item any, attr string) error {
	return fmt.Errorf("'%s' object has no attribute '%s'", pyTypeName(item), attr)
}

// coercePassengers turns a passengers argument into records as tau2 does;
// raw reports that the items were not all objects and were left as they
// were (each as a raw Passenger).
func coercePassengers(v any) (ps []Passenger, raw bool, err error) {
	items, err := pyIterable("passengers", v)
	if err != nil {
		return nil, false, err
	}
	ps = make([]Passenger, 0, len(items))
	if !allDicts(items) {
		for _, it := range items {
			ps = append(ps, Passenger{raw: it, isRaw: true})
		}
		return ps, true, nil
	}
	for i, it := range items {
		m := it.(map[string]any)
		var p Passenger
		if p.FirstName, err = recordStr(m, "passengers", i, "first_name"); err != nil {
			return nil, false, err
		}
		if p.LastName, err = recordStr(m, "passengers", i, "last_name"); err != nil {
			return nil, false, err
		}
		if p.DOB, err = recordStr(m, "passengers", i, "dob"); err != nil {
			return nil, false, err
		}
		ps = append(ps, p)
	}
	return ps, false, nil
}

// coercePayments turns a payment_methods argument into records; raw as for
// coercePassengers.
func coercePayments(v any) (pays []Payment, raw bool, err error) {
	items, err := pyIterable("payment_methods", v)
	if err != nil {
		return nil, false, err
	}
	if !allDicts(items) {
		return nil, true, nil
	}
	for i, it := range items {
		m := it.(map[string]any)
		var p Payment
		if p.PaymentID, err = recordStr(m, "payment_methods", i, "payment_id"); err != nil {
			return nil, false, err
		}
		a, ok := m["amount"]
		if !ok {
			return nil, false, fmt.Errorf("1 validation error for Payment\npayment_methods.%d.amount: field required", i)
		}
		if p.Amount, err = laxInt(fmt.Sprintf("payment_methods.%d.amount", i), a); err != nil {
			return nil, false, fmt.Errorf("1 validation error for Payment\n%w", err)
		}
		pays = append(pays, p)
	}
	return pays, false, nil
}

// recordStr reads a required str field of an item being coerced to a record.
func recordStr(m map[string]any, list string, i int, key string) (string, error) {
	loc := fmt.Sprintf("%s.%d.%s", list, i, key)
	v, ok := m[key]
	if !ok {
		return "", fmt.Errorf("1 validation error\n%s: field required", loc)
	}
	s, err := laxStr(loc, v)
	if err != nil {
		return "", fmt.Errorf("1 validation error\n%w", err)
	}
	return s, nil
}

// bookReservation follows tau2's book_reservation step by step: the
// arguments' lists are coerced to records, then the user is looked up, a
// reservation id chosen, the reservation validated, the flights priced,
// insurance and bags added, the payments checked, and only then anything
// changed. Each step fails with tau2's message, in tau2's order.
func bookReservation(db *DB, args domains.Args) (any, error) {
	p, err := params("book_reservation", args, "user_id", "origin", "destination", "flight_type", "cabin",
		"flights", "passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance")
	if err != nil {
		return nil, err
	}
	userID, nonfreeArg := p[0], p[9]

	// 1. Coerce the list items to records.
	infos, rawFlights, err := coerceFlights(p[5])
	if err != nil {
		return nil, err
	}
	passengers, rawPassengers, err := coercePassengers(p[6])
	if err != nil {
		return nil, err
	}
	payments, rawPayments, err := coercePayments(p[7])
	if err != nil {
		return nil, err
	}
	// 2. The user, 3. a new reservation id.
	user, err := db.getUser(userID)
	if err != nil {
		return nil, err
	}
	uid := userID.(string) // found, so a string
	resID, err := db.newReservationID()
	if err != nil {
		return nil, err
	}
	// 4. The reservation record is validated.
	res, cabin, err := newReservation(resID, uid, reservationFields{
		origin: p[1], destination: p[2], flightType: p[3], cabin: p[4],
		totalBaggages: p[8], nonfreeBaggages: nonfreeArg, insurance: p[10],
		passengers: passengers, rawPassengers: rawPassengers, payments: payments, rawPayments: rawPayments,
	})
	if err != nil {
		return nil, err
	}
	n := int64(len(passengers))
	// 5. Flights: availability, seats, price.
	if len(rawFlights) > 0 {
		return nil, attributeError(rawFlights[0], "flight_number")
	}
	total, err := db.priceFlights(res, infos, cabin, n)
	if err != nil {
		return nil, err
	}
	// 6. Insurance and bags.
	totalPrice, err := addInsuranceAndBags(total, res.Insurance == "yes", n, nonfreeArg)
	if err != nil {
		return nil, err
	}
	// 7. Each payment on its own, 8. they must add up to the total exactly.
	if err := checkBookingPayments(user, payments, totalPrice); err != nil {
		return nil, err
	}
	if err := db.book(res, payments, infos, cabin, n); err != nil {
		return nil, err
	}
	return res, nil
}

// newReservationID is the first id of newReservationIDs not taken yet.
func (db *DB) newReservationID() (string, error) {
	for _, id := range newReservationIDs {
		if _, taken := db.reservations.get(id); !taken {
			return id, nil
		}
	}
	return "", fmt.Errorf("Too many reservations")
}

// reservationFields are book_reservation's arguments for the reservation
// record, as the agent passed them (dump values), and its coerced lists.
type reservationFields struct {
	origin, destination, flightType, cabin    any
	totalBaggages, nonfreeBaggages, insurance any
	passengers                                []Passenger
	rawPassengers                             bool
	payments                                  []Payment
	rawPayments                               bool
}

// newReservation builds the reservation record as pydantic validates it,
// failing on the first invalid field in the model's field order. It also
// returns the cabin.
func newReservation(resID, userID string, a reservationFields) (*Reservation, string, error) {
	res := &Reservation{ReservationID: resID, UserID: userID, CreatedAt: Now, Status: nil}
	var verr error
	check := func(e error) {
		if verr == nil && e != nil {
			verr = fmt.Errorf("1 validation error for Reservation\n%w", e)
		}
	}
	var e error
	res.Origin, e = laxStr("origin", a.origin)
	check(e)
	res.Destination, e = laxStr("destination", a.destination)
	check(e)
	res.FlightType, e = laxLiteral("flight_type", a.flightType, flightTypes...)
	check(e)
	cabin, e := laxLiteral("cabin", a.cabin, cabins...)
	check(e)
	if a.rawPassengers && len(a.passengers) > 0 {
		check(fmt.Errorf("passengers.0: input should be a valid dictionary or instance of Passenger"))
	}
	if a.rawPayments {
		check(fmt.Errorf("payment_history.0: input should be a valid dictionary or instance of Payment"))
	}
	totalBags, e := laxInt("total_baggages", a.totalBaggages)
	check(e)
	nonfreeBags, e := laxInt("nonfree_baggages", a.nonfreeBaggages)
	check(e)
	res.Insurance, e = laxLiteral("insurance", a.insurance, yesNo...)
	check(e)
	if verr != nil {
		return nil, "", verr
	}
	res.Cabin = Value{cabin}
	res.TotalBaggages = Value{totalBags}
	res.NonfreeBaggages = Value{nonfreeBags}
	res.Passengers = a.passengers
	res.PaymentHistory = slices.Clone(a.payments)
	if res.PaymentHistory == nil {
		res.PaymentHistory = []Payment{}
	}
	return res, cabin, nil
}

// priceFlights checks that every flight is available on its date with n
// seats left in the cabin, adds them to the reservation and returns their
// price for n passengers.
func (db *DB) priceFlights(res *Reservation, infos []flightInfo, cabin string, n int64) (int64, error) {
	res.Flights = []ReservationFlight{}
	var total int64
	for _, fi := range infos {
		f, d, err := db.getFlightDate(fi.number, fi.date)
		if err != nil {
			return 0, err
		}
		if d.Status != StatusAvailable {
			return 0, fmt.Errorf("Flight %s not available on date %s", fi.number, fi.date)
		}
		seats, _ := d.AvailableSeats.of(cabin)
		if *seats < n {
			return 0, fmt.Errorf("Not enough seats on flight %s", fi.number)
		}
		price, _ := d.Prices.of(cabin)
		res.Flights = append(res.Flights, ReservationFlight{
			FlightNumber: fi.number, Origin: f.Origin, Destination: f.Destination, Date: fi.date, Price: *price,
		})
		total += *price * n
	}
	return total, nil
}

// addInsuranceAndBags adds the insurance fee for n passengers and the fee
// of the non-free bags to the flights' total. The bag fee uses the argument
// as given: a float makes the total a float, a string cannot be added.
func addInsuranceAndBags(total int64, insured bool, n int64, nonfreeArg any) (any, error) {
	if insured {
		total += InsuranceFee * n
	}
	switch nb := nonfreeArg.(type) {
	case int64:
		return total + BaggageFee*nb, nil
	case bool:
		if nb {
			return total + BaggageFee, nil
		}
		return total, nil
	case float64:
		return float64(total) + BaggageFee*nb, nil
	}
	return nil, fmt.Errorf("unsupported operand type(s) for +=: 'int' and '%s'", pyTypeName(nonfreeArg))
}

// checkBookingPayments checks each payment on its own (the user's method,
// with enough balance for a gift card or certificate), then that they add
// up to the total price exactly.
func checkBookingPayments(user *User, payments []Payment, totalPrice any) error {
	var paid int64
	for _, pay := range payments {
		i := user.paymentMethod(pay.PaymentID)
		if i < 0 {
			return fmt.Errorf("Payment method %s not found", pay.PaymentID)
		}
		m := user.PaymentMethods[i].Method
		if (m.Source == SourceGiftCard || m.Source == SourceCertificate) && m.Amount < float64(pay.Amount) {
			return fmt.Errorf("Not enough balance in payment method %s", pay.PaymentID)
		}
		paid += pay.Amount
	}
	if want, _ := pyNumber(totalPrice); float64(paid) != want {
		return fmt.Errorf("Payment amount does not add up, total price is %s, but paid %d", pyStr(totalPrice), paid)
	}
	return nil
}

// book makes a checked booking's changes: it charges the payment methods,
// takes n seats of the cabin on each flight and records the reservation.
// Charging goes method by method: a certificate listed twice is gone the
// second time, which fails after the first charges were made, as in tau2.
func (db *DB) book(res *Reservation, payments []Payment, flights []flightInfo, cabin string, n int64) error {
	u := db.mutableUser(res.UserID)
	for _, pay := range payments {
		i := u.paymentMethod(pay.PaymentID)
		if i < 0 {
			return fmt.Errorf("%s", pycompat.Repr(pay.PaymentID))
		}
		switch u.PaymentMethods[i].Method.Source {
		case SourceGiftCard:
			u.PaymentMethods[i].Method.Amount -= float64(pay.Amount)
		case SourceCertificate:
			u.PaymentMethods = slices.Delete(u.PaymentMethods, i, i+1)
		}
	}
	for _, fd := range flights {
		f := db.mutableFlight(fd.number)
		d := f.Dates[fd.date]
		seats, _ := d.AvailableSeats.of(cabin)
		*seats -= n
		f.Dates[fd.date] = d
	}
	db.addReservation(res)
	u.Reservations = append(u.Reservations, res.ReservationID)
	return nil
}

func cancelReservation(db *DB, args domains.Args) (any, error) {
	p, err := params("cancel_reservation", args, "reservation_id")
	if err != nil {
		return nil, err
	}
	if _, err := db.getReservation(p[0]); err != nil {
		return nil, err
	}
	r := db.mutableReservation(p[0].(string))
	for _, pay := range slices.Clone(r.PaymentHistory) {
		r.PaymentHistory = append(r.PaymentHistory, Payment{PaymentID: pay.PaymentID, Amount: -pay.Amount})
	}
	cancelled := StatusCancelled
	r.Status = &cancelled
	return r, nil
}

// payForUpdate is tau2's payment rule for changes to a reservation: the
// method must be the user's and not a certificate; a gift card must cover
// the price and is debited by it (a negative price credits it). It returns
// the payment to record, or nil for a zero price.
func (db *DB) payForUpdate(userID string, paymentID any, price any) (*Payment, error) {
	if err := hashable(paymentID); err != nil {
		return nil, err
	}
	user, _ := db.users.get(userID)
	i := user.paymentMethod(paymentID)
	if i < 0 {
		return nil, fmt.Errorf("Payment method not found")
	}
	amount, _ := pyNumber(price)
	m := user.PaymentMethods[i].Method
	if m.Source == SourceCertificate {
		return nil, fmt.Errorf("Certificate cannot be used to update reservation")
	}
	if m.Source == SourceGiftCard && m.Amount < amount {
		return nil, fmt.Errorf("Gift card balance is not enough")
	}
	if m.Source == SourceGiftCard {
		u := db.mutableUser(userID)
		u.PaymentMethods[i].Method.Amount -= amount
	}
	if amount == 0 {
		return nil, nil
	}
	// The payment record validates the amount as an int (after the gift
	// card was debited, as in tau2).
	a, err := laxInt("amount", price)
	if err != nil {
		return nil, fmt.Errorf("1 validation error for Payment\n%w", err)
	}
	return &Payment{PaymentID: paymentID.(string), Amount: a}, nil
}

func updateReservationBaggages(db *DB, args domains.Args) (any, error) {
	p, err := params("update_reservation_baggages", args, "reservation_id", "total_baggages", "nonfree_baggages", "payment_id")
	if err != nil {
		return nil, err
	}
	r, err := db.getReservation(p[0])
	if err != nil {
		return nil, err
	}
	if _, err := db.getUser(r.UserID); err != nil {
		return nil, err
	}
	totalBags, nonfreeBags, paymentID := p[1], p[2], p[3]
	// price = 50 * max(0, new nonfree - current nonfree), in Python
	// arithmetic: ints stay ints, a float makes a float, bools count as 0/1.
	extra, err := pySub(nonfreeBags, r.NonfreeBaggages.v)
	if err != nil {
		return nil, err
	}
	var price any = int64(0)
	switch x := extra.(type) {
	case int64:
		if x > 0 {
			price = BaggageFee * x
		}
	case float64:
		if x > 0 {
			price = BaggageFee * x
		}
	}
	pay, err := db.payForUpdate(r.UserID, paymentID, price)
	if err != nil {
		return nil, err
	}
	r = db.mutableReservation(p[0].(string))
	if pay != nil {
		r.PaymentHistory = append(r.PaymentHistory, *pay)
	}
	// Stored as given, without validation.
	r.TotalBaggages = Value{totalBags}
	r.NonfreeBaggages = Value{nonfreeBags}
	return r, nil
}

// pySub is Python's a - b for ints, floats and bools.
func pySub(a, b any) (any, error) {
	ai, aInt := asInt(a)
	bi, bInt := asInt(b)
	if aInt && bInt {
		return ai - bi, nil
	}
	af, aok := pyNumber(a)
	bf, bok := pyNumber(b)
	if !aok || !bok {
		return nil, fmt.Errorf("unsupported operand type(s) for -: '%s' and '%s'", pyTypeName(a), pyTypeName(b))
	}
	return af - bf, nil
}

func asInt(v any) (int64, bool) {
	switch t := v.(type) {
	case int64:
		return t, true
	case bool:
		if t {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func updateReservationFlights(db *DB, args domains.Args) (any, error) {
	p, err := params("update_reservation_flights", args, "reservation_id", "cabin", "flights", "payment_id")
	if err != nil {
		return nil, err
	}
	cabin, paymentID := p[1], p[3]
	infos, rawFlights, err := coerceFlights(p[2])
	if err != nil {
		return nil, err
	}
	r, err := db.getReservation(p[0])
	if err != nil {
		return nil, err
	}
	if _, err := db.getUser(r.UserID); err != nil {
		return nil, err
	}
	if len(rawFlights) > 0 {
		return nil, attributeError(rawFlights[0], "flight_number")
	}
	n := int64(r.passengerCount())
	var total int64
	flights := []ReservationFlight{}
	for _, fi := range infos {
		// A flight already on the reservation, in an unchanged cabin, keeps
		// its segment and the price paid for it.
		if pyEqual(cabin, r.Cabin.v) {
			if i := slices.IndexFunc(r.Flights, func(s ReservationFlight) bool {
				return s.FlightNumber == fi.number && s.Date == fi.date
			}); i >= 0 {
				total += r.Flights[i].Price * n
				flights = append(flights, r.Flights[i])
				continue
			}
		}
		f, d, err := db.getFlightDate(fi.number, fi.date)
		if err != nil {
			return nil, err
		}
		if d.Status != StatusAvailable {
			return nil, fmt.Errorf("Flight %s not available on date %s", fi.number, fi.date)
		}
		if err := hashable(cabin); err != nil {
			return nil, err
		}
		c, isStr := cabin.(string)
		seats, ok := d.AvailableSeats.of(c)
		if !isStr || !ok {
			return nil, fmt.Errorf("%s", pyReprValue(cabin)) // KeyError
		}
		if *seats < n {
			return nil, fmt.Errorf("Not enough seats on flight %s", fi.number)
		}
		price, _ := d.Prices.of(c)
		flights = append(flights, ReservationFlight{
			FlightNumber: fi.number, Origin: f.Origin, Destination: f.Destination, Date: fi.date, Price: *price,
		})
		total += *price * n
	}
	var paidBefore int64
	for _, s := range r.Flights {
		paidBefore += s.Price
	}
	pay, err := db.payForUpdate(r.UserID, paymentID, total-paidBefore*n)
	if err != nil {
		return nil, err
	}
	r = db.mutableReservation(p[0].(string))
	if pay != nil {
		r.PaymentHistory = append(r.PaymentHistory, *pay)
	}
	r.Flights = flights
	r.Cabin = Value{cabin} // assigned without validation
	return r, nil
}

func updateReservationPassengers(db *DB, args domains.Args) (any, error) {
	p, err := params("update_reservation_passengers", args, "reservation_id", "passengers")
	if err != nil {
		return nil, err
	}
	if dict, ok := p[1].(map[string]any); ok && len(dict) > 0 {
		return setPassengersDict(db, p[0], dict)
	}
	passengers, _, err := coercePassengers(p[1])
	if err != nil {
		return nil, err
	}
	r, err := db.getReservation(p[0])
	if err != nil {
		return nil, err
	}
	if len(passengers) != r.passengerCount() {
		return nil, fmt.Errorf("Number of passengers does not match")
	}
	r = db.mutableReservation(p[0].(string))
	r.Passengers, r.passengersDict = passengers, nil
	return r, nil
}

// setPassengersDict is update_reservation_passengers given one object
// instead of a list: tau2 iterates its keys, finds they are not all
// objects, and so stores the object itself as the passengers when it has
// as many keys as the reservation has passengers.
func setPassengersDict(db *DB, id any, dict map[string]any) (any, error) {
	r, err := db.getReservation(id)
	if err != nil {
		return nil, err
	}
	if len(dict) != r.passengerCount() {
		return nil, fmt.Errorf("Number of passengers does not match")
	}
	v, err := fromJSON(dict)
	if err != nil {
		return nil, err
	}
	r = db.mutableReservation(id.(string))
	r.Passengers, r.passengersDict = nil, v.(map[string]any)
	return r, nil
}

func sendCertificate(db *DB, args domains.Args) (any, error) {
	p, err := params("send_certificate", args, "user_id", "amount")
	if err != nil {
		return nil, err
	}
	user, err := db.getUser(p[0])
	if err != nil {
		return nil, err
	}
	for _, id := range newCertificateIDs {
		if user.paymentMethod(id) >= 0 {
			continue
		}
		amount, err := laxFloat("amount", p[1])
		if err != nil {
			return nil, fmt.Errorf("1 validation error for Certificate\n%w", err)
		}
		u := db.mutableUser(p[0].(string))
		u.PaymentMethods = append(u.PaymentMethods, PaymentMethodEntry{
			Key:    id,
			Method: PaymentMethod{Source: SourceCertificate, ID: id, Amount: amount},
		})
		return fmt.Sprintf("Certificate %s added to user %s with amount %s.", id, pyStr(p[0]), pyStr(p[1])), nil
	}
	//lint:ignore ST1005 tau2's own message, which replays compare
	return nil, errors.New("Too many certificates")
}
