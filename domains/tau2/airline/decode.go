package airline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
)

// Decoding db.json. The file is read in one pass, strictly: a missing or
// null required field, an unknown field, a value of the wrong JSON type or an
// invalid enumeration value is an error, so a database that tau2 would not
// load (or would load differently) does not load here either. Flights and
// payment methods keep their file order.

// UnmarshalJSON implements json.Unmarshaler. The records it decodes keep
// their dump trees (see dumpCache).
func (db *DB) UnmarshalJSON(data []byte) error {
	*db = DB{}
	flights, users, reservations := map[string]*Flight{}, map[string]*User{}, map[string]*Reservation{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	seen := map[string]bool{}
	err := eachMember(dec, func(key string) error {
		seen[key] = true
		switch key {
		case "flights":
			return eachMember(dec, func(id string) error {
				var w flightWire
				if err := dec.Decode(&w); err != nil {
					return fmt.Errorf("flight %s: %w", id, err)
				}
				f, err := w.flight()
				if err != nil {
					return fmt.Errorf("flight %s: %w", id, err)
				}
				f.dumped = f.dump()
				db.flightOrder = append(db.flightOrder, id)
				flights[id] = f
				return nil
			})
		case "users":
			return eachMember(dec, func(id string) error {
				var w userWire
				if err := dec.Decode(&w); err != nil {
					return fmt.Errorf("user %s: %w", id, err)
				}
				u, err := w.user()
				if err != nil {
					return fmt.Errorf("user %s: %w", id, err)
				}
				u.dumped = u.dump()
				users[id] = u
				return nil
			})
		case "reservations":
			return eachMember(dec, func(id string) error {
				var w reservationWire
				if err := dec.Decode(&w); err != nil {
					return fmt.Errorf("reservation %s: %w", id, err)
				}
				r, err := w.reservation()
				if err != nil {
					return fmt.Errorf("reservation %s: %w", id, err)
				}
				r.dumped = r.dump()
				reservations[id] = r
				return nil
			})
		}
		return fmt.Errorf("unknown field %q", key)
	})
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	for _, k := range []string{"flights", "users", "reservations"} {
		if !seen[k] {
			return fmt.Errorf("database: missing field %q", k)
		}
	}
	db.flights.base, db.users.base, db.reservations.base = flights, users, reservations
	db.hashing = new(hashing)
	return nil
}

// eachMember reads a JSON object from dec and calls each with every key,
// which must then read the value. Duplicate keys are an error.
func eachMember(dec *json.Decoder, each func(key string) error) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("expected an object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		if seen[key] {
			return fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		if err := each(key); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// req checks a record's required fields, reporting the first one that is
// missing (or null) as "<what>: missing field <name>".
type req struct {
	pycompat.Fields
	what string
}

func newReq(what string) *req {
	return &req{what: what, Fields: pycompat.Fields{Missing: func(name string) error {
		return fmt.Errorf("%s: missing field %q", what, name)
	}}}
}

// oneOf checks an enum field.
func (r *req) oneOf(name, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		r.Failf("%s: invalid %s %q", r.what, name, v)
	}
}

type flightWire struct {
	FlightNumber       *string             `json:"flight_number"`
	Origin             *string             `json:"origin"`
	Destination        *string             `json:"destination"`
	ScheduledDeparture *string             `json:"scheduled_departure_time_est"`
	ScheduledArrival   *string             `json:"scheduled_arrival_time_est"`
	Dates              map[string]dateWire `json:"dates"`
}

type dateWire struct {
	Status             *string    `json:"status"`
	AvailableSeats     *seatsWire `json:"available_seats"`
	Prices             *seatsWire `json:"prices"`
	ActualDeparture    *string    `json:"actual_departure_time_est"`
	ActualArrival      *string    `json:"actual_arrival_time_est"`
	EstimatedDeparture *string    `json:"estimated_departure_time_est"`
	EstimatedArrival   *string    `json:"estimated_arrival_time_est"`
}

type seatsWire struct {
	BasicEconomy *int64 `json:"basic_economy"`
	Economy      *int64 `json:"economy"`
	Business     *int64 `json:"business"`
}

func (w *flightWire) flight() (*Flight, error) {
	r := newReq("flight")
	f := &Flight{
		FlightNumber:       r.Str("flight_number", w.FlightNumber),
		Origin:             r.Str("origin", w.Origin),
		Destination:        r.Str("destination", w.Destination),
		ScheduledDeparture: r.Str("scheduled_departure_time_est", w.ScheduledDeparture),
		ScheduledArrival:   r.Str("scheduled_arrival_time_est", w.ScheduledArrival),
		Dates:              make(map[string]FlightDate, len(w.Dates)),
	}
	r.Present("dates", w.Dates != nil)
	if r.Err() != nil {
		return nil, r.Err()
	}
	for day, dw := range w.Dates {
		d, err := dw.date()
		if err != nil {
			return nil, fmt.Errorf("date %s: %w", day, err)
		}
		f.Dates[day] = d
	}
	return f, nil
}

// date checks that the entry has exactly the fields of its status.
func (w *dateWire) date() (FlightDate, error) {
	if w.Status == nil {
		return FlightDate{}, fmt.Errorf("flight date: missing field \"status\"")
	}
	d := FlightDate{Status: *w.Status}
	shape, ok := dateShape(d.Status)
	if !ok {
		return FlightDate{}, fmt.Errorf("flight date: unknown status %q", d.Status)
	}
	present := map[string]bool{
		"available_seats":              w.AvailableSeats != nil,
		"prices":                       w.Prices != nil,
		"actual_departure_time_est":    w.ActualDeparture != nil,
		"actual_arrival_time_est":      w.ActualArrival != nil,
		"estimated_departure_time_est": w.EstimatedDeparture != nil,
		"estimated_arrival_time_est":   w.EstimatedArrival != nil,
	}
	for _, k := range sortedKeys(present) {
		if present[k] != slices.Contains(shape, k) {
			return FlightDate{}, fmt.Errorf("flight date (%s): field %q must be %s", d.Status, k,
				map[bool]string{true: "present", false: "absent"}[slices.Contains(shape, k)])
		}
	}
	var err error
	if w.AvailableSeats != nil {
		if d.AvailableSeats, err = w.AvailableSeats.seats("available_seats"); err != nil {
			return FlightDate{}, err
		}
		if d.Prices, err = w.Prices.seats("prices"); err != nil {
			return FlightDate{}, err
		}
	}
	for k, p := range map[string]*string{
		"actual_departure_time_est":    w.ActualDeparture,
		"actual_arrival_time_est":      w.ActualArrival,
		"estimated_departure_time_est": w.EstimatedDeparture,
		"estimated_arrival_time_est":   w.EstimatedArrival,
	} {
		if p != nil {
			*d.timeField(k) = *p
		}
	}
	return d, nil
}

func (w *seatsWire) seats(what string) (Seats, error) {
	r := newReq(what)
	s := Seats{
		BasicEconomy: r.Int(CabinBasicEconomy, w.BasicEconomy),
		Economy:      r.Int(CabinEconomy, w.Economy),
		Business:     r.Int(CabinBusiness, w.Business),
	}
	return s, r.Err()
}

type userWire struct {
	UserID          *string         `json:"user_id"`
	Name            *nameWire       `json:"name"`
	Address         *addressWire    `json:"address"`
	Email           *string         `json:"email"`
	DOB             *string         `json:"dob"`
	PaymentMethods  *PaymentMethods `json:"payment_methods"`
	SavedPassengers []passengerWire `json:"saved_passengers"`
	Membership      *string         `json:"membership"`
	Reservations    []string        `json:"reservations"`
}

type nameWire struct {
	FirstName *string `json:"first_name"`
	LastName  *string `json:"last_name"`
}

type addressWire struct {
	Address1 *string `json:"address1"`
	Address2 *string `json:"address2"` // nullable
	City     *string `json:"city"`
	Country  *string `json:"country"`
	State    *string `json:"state"`
	Zip      *string `json:"zip"`
}

type passengerWire struct {
	FirstName *string `json:"first_name"`
	LastName  *string `json:"last_name"`
	DOB       *string `json:"dob"`
}

func (w *passengerWire) passenger() (Passenger, error) {
	r := newReq("passenger")
	p := Passenger{
		FirstName: r.Str("first_name", w.FirstName),
		LastName:  r.Str("last_name", w.LastName),
		DOB:       r.Str("dob", w.DOB),
	}
	return p, r.Err()
}

func passengers(ws []passengerWire) ([]Passenger, error) {
	out := make([]Passenger, len(ws))
	for i := range ws {
		var err error
		if out[i], err = ws[i].passenger(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (w *userWire) user() (*User, error) {
	r := newReq("user")
	u := &User{
		UserID:     r.Str("user_id", w.UserID),
		Email:      r.Str("email", w.Email),
		DOB:        r.Str("dob", w.DOB),
		Membership: r.Str("membership", w.Membership),
	}
	r.Present("name", w.Name != nil)
	r.Present("address", w.Address != nil)
	r.Present("payment_methods", w.PaymentMethods != nil)
	r.Present("saved_passengers", w.SavedPassengers != nil)
	r.Present("reservations", w.Reservations != nil)
	r.oneOf("membership", u.Membership, memberships)
	if r.Err() != nil {
		return nil, r.Err()
	}
	rn := newReq("name")
	u.Name = PersonName{FirstName: rn.Str("first_name", w.Name.FirstName), LastName: rn.Str("last_name", w.Name.LastName)}
	ra := newReq("address")
	a := w.Address
	u.Address = Address{
		Address1: ra.Str("address1", a.Address1),
		Address2: a.Address2,
		City:     ra.Str("city", a.City),
		Country:  ra.Str("country", a.Country),
		State:    ra.Str("state", a.State),
		Zip:      ra.Str("zip", a.Zip),
	}
	if rn.Err() != nil {
		return nil, rn.Err()
	}
	if ra.Err() != nil {
		return nil, ra.Err()
	}
	u.PaymentMethods = *w.PaymentMethods
	u.Reservations = w.Reservations
	var err error
	u.SavedPassengers, err = passengers(w.SavedPassengers)
	return u, err
}

// UnmarshalJSON implements json.Unmarshaler, keeping the file's order.
func (pm *PaymentMethods) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	*pm = PaymentMethods{}
	return eachMember(dec, func(key string) error {
		var w paymentMethodWire
		if err := dec.Decode(&w); err != nil {
			return fmt.Errorf("payment method %s: %w", key, err)
		}
		m, err := w.method()
		if err != nil {
			return fmt.Errorf("payment method %s: %w", key, err)
		}
		*pm = append(*pm, PaymentMethodEntry{Key: key, Method: m})
		return nil
	})
}

type paymentMethodWire struct {
	Source   *string  `json:"source"`
	ID       *string  `json:"id"`
	Brand    *string  `json:"brand"`
	LastFour *string  `json:"last_four"`
	Amount   *float64 `json:"amount"`
}

func (w *paymentMethodWire) method() (PaymentMethod, error) {
	r := newReq("payment method")
	m := PaymentMethod{Source: r.Str("source", w.Source), ID: r.Str("id", w.ID)}
	if r.Err() != nil {
		return m, r.Err()
	}
	r.what = m.Source
	switch m.Source {
	case SourceCreditCard:
		m.Brand = r.Str("brand", w.Brand)
		m.LastFour = r.Str("last_four", w.LastFour)
		if w.Amount != nil {
			return m, fmt.Errorf("credit card: unexpected field \"amount\"")
		}
	case SourceGiftCard, SourceCertificate:
		if w.Amount == nil {
			r.Present("amount", false)
		} else {
			m.Amount = *w.Amount
		}
		if w.Brand != nil || w.LastFour != nil {
			return m, fmt.Errorf("%s: unexpected card fields", m.Source)
		}
	default:
		return m, fmt.Errorf("payment method: unknown source %q", m.Source)
	}
	return m, r.Err()
}

type reservationWire struct {
	ReservationID   *string         `json:"reservation_id"`
	UserID          *string         `json:"user_id"`
	Origin          *string         `json:"origin"`
	Destination     *string         `json:"destination"`
	FlightType      *string         `json:"flight_type"`
	Cabin           *string         `json:"cabin"`
	Flights         []segmentWire   `json:"flights"`
	Passengers      []passengerWire `json:"passengers"`
	PaymentHistory  []paymentWire   `json:"payment_history"`
	CreatedAt       *string         `json:"created_at"`
	TotalBaggages   *int64          `json:"total_baggages"`
	NonfreeBaggages *int64          `json:"nonfree_baggages"`
	Insurance       *string         `json:"insurance"`
	Status          *string         `json:"status"` // optional, nullable
}

type segmentWire struct {
	FlightNumber *string `json:"flight_number"`
	Origin       *string `json:"origin"`
	Destination  *string `json:"destination"`
	Date         *string `json:"date"`
	Price        *int64  `json:"price"`
}

type paymentWire struct {
	PaymentID *string `json:"payment_id"`
	Amount    *int64  `json:"amount"`
}

func (w *reservationWire) reservation() (*Reservation, error) {
	r := newReq("reservation")
	res := &Reservation{
		ReservationID:   r.Str("reservation_id", w.ReservationID),
		UserID:          r.Str("user_id", w.UserID),
		Origin:          r.Str("origin", w.Origin),
		Destination:     r.Str("destination", w.Destination),
		FlightType:      r.Str("flight_type", w.FlightType),
		Cabin:           Value{r.Str("cabin", w.Cabin)},
		CreatedAt:       r.Str("created_at", w.CreatedAt),
		TotalBaggages:   Value{r.Int("total_baggages", w.TotalBaggages)},
		NonfreeBaggages: Value{r.Int("nonfree_baggages", w.NonfreeBaggages)},
		Insurance:       r.Str("insurance", w.Insurance),
		Status:          w.Status,
	}
	r.Present("flights", w.Flights != nil)
	r.Present("passengers", w.Passengers != nil)
	r.Present("payment_history", w.PaymentHistory != nil)
	r.oneOf("flight_type", res.FlightType, flightTypes)
	r.oneOf("cabin", res.Cabin.v.(string), cabins)
	r.oneOf("insurance", res.Insurance, yesNo)
	if res.Status != nil {
		r.oneOf("status", *res.Status, []string{StatusCancelled})
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	res.Flights = make([]ReservationFlight, len(w.Flights))
	for i, s := range w.Flights {
		rs := newReq("reservation flight")
		res.Flights[i] = ReservationFlight{
			FlightNumber: rs.Str("flight_number", s.FlightNumber),
			Origin:       rs.Str("origin", s.Origin),
			Destination:  rs.Str("destination", s.Destination),
			Date:         rs.Str("date", s.Date),
			Price:        rs.Int("price", s.Price),
		}
		if rs.Err() != nil {
			return nil, rs.Err()
		}
	}
	res.PaymentHistory = make([]Payment, len(w.PaymentHistory))
	for i, p := range w.PaymentHistory {
		rp := newReq("payment")
		res.PaymentHistory[i] = Payment{PaymentID: rp.Str("payment_id", p.PaymentID), Amount: rp.Int("amount", p.Amount)}
		if rp.Err() != nil {
			return nil, rp.Err()
		}
	}
	var err error
	res.Passengers, err = passengers(w.Passengers)
	return res, err
}
