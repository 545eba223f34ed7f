package airline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Decoding db.json. The file is read in one pass, strictly: a missing or
// null required field, an unknown field, a value of the wrong JSON type or an
// invalid enumeration value is an error, so a database that tau2 would not
// load (or would load differently) does not load here either. Flights and
// payment methods keep their file order.

// UnmarshalJSON implements json.Unmarshaler. The records it decodes keep
// their dump trees (see dumpCache).
func (db *DB) UnmarshalJSON(data []byte) error {
	*db = DB{flights: map[string]*Flight{}, users: map[string]*User{}, reservations: map[string]*Reservation{}}
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
				db.flights[id] = f
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
				db.users[id] = u
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
				db.reservations[id] = r
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

// req dereferences required fields, reporting the first one that is
// missing (or null).
type req struct {
	what string
	err  error
}

func (r *req) str(name string, p *string) string {
	if p == nil {
		r.fail(name)
		return ""
	}
	return *p
}

func (r *req) int(name string, p *int64) int64 {
	if p == nil {
		r.fail(name)
		return 0
	}
	return *p
}

func (r *req) present(name string, ok bool) {
	if !ok {
		r.fail(name)
	}
}

func (r *req) oneOf(name, v string, allowed []string) {
	if r.err == nil && !slices.Contains(allowed, v) {
		r.err = fmt.Errorf("%s: invalid %s %q", r.what, name, v)
	}
}

func (r *req) fail(name string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: missing field %q", r.what, name)
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
	r := req{what: "flight"}
	f := &Flight{
		FlightNumber:       r.str("flight_number", w.FlightNumber),
		Origin:             r.str("origin", w.Origin),
		Destination:        r.str("destination", w.Destination),
		ScheduledDeparture: r.str("scheduled_departure_time_est", w.ScheduledDeparture),
		ScheduledArrival:   r.str("scheduled_arrival_time_est", w.ScheduledArrival),
		Dates:              make(map[string]FlightDate, len(w.Dates)),
	}
	r.present("dates", w.Dates != nil)
	if r.err != nil {
		return nil, r.err
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
	r := req{what: what}
	s := Seats{
		BasicEconomy: r.int(CabinBasicEconomy, w.BasicEconomy),
		Economy:      r.int(CabinEconomy, w.Economy),
		Business:     r.int(CabinBusiness, w.Business),
	}
	return s, r.err
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
	r := req{what: "passenger"}
	p := Passenger{
		FirstName: r.str("first_name", w.FirstName),
		LastName:  r.str("last_name", w.LastName),
		DOB:       r.str("dob", w.DOB),
	}
	return p, r.err
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
	r := req{what: "user"}
	u := &User{
		UserID:     r.str("user_id", w.UserID),
		Email:      r.str("email", w.Email),
		DOB:        r.str("dob", w.DOB),
		Membership: r.str("membership", w.Membership),
	}
	r.present("name", w.Name != nil)
	r.present("address", w.Address != nil)
	r.present("payment_methods", w.PaymentMethods != nil)
	r.present("saved_passengers", w.SavedPassengers != nil)
	r.present("reservations", w.Reservations != nil)
	r.oneOf("membership", u.Membership, memberships)
	if r.err != nil {
		return nil, r.err
	}
	rn := req{what: "name"}
	u.Name = PersonName{FirstName: rn.str("first_name", w.Name.FirstName), LastName: rn.str("last_name", w.Name.LastName)}
	ra := req{what: "address"}
	a := w.Address
	u.Address = Address{
		Address1: ra.str("address1", a.Address1),
		Address2: a.Address2,
		City:     ra.str("city", a.City),
		Country:  ra.str("country", a.Country),
		State:    ra.str("state", a.State),
		Zip:      ra.str("zip", a.Zip),
	}
	if rn.err != nil {
		return nil, rn.err
	}
	if ra.err != nil {
		return nil, ra.err
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
	r := req{what: "payment method"}
	m := PaymentMethod{Source: r.str("source", w.Source), ID: r.str("id", w.ID)}
	if r.err != nil {
		return m, r.err
	}
	r.what = m.Source
	switch m.Source {
	case SourceCreditCard:
		m.Brand = r.str("brand", w.Brand)
		m.LastFour = r.str("last_four", w.LastFour)
		if w.Amount != nil {
			return m, fmt.Errorf("credit card: unexpected field \"amount\"")
		}
	case SourceGiftCard, SourceCertificate:
		if w.Amount == nil {
			r.fail("amount")
		} else {
			m.Amount = *w.Amount
		}
		if w.Brand != nil || w.LastFour != nil {
			return m, fmt.Errorf("%s: unexpected card fields", m.Source)
		}
	default:
		return m, fmt.Errorf("payment method: unknown source %q", m.Source)
	}
	return m, r.err
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
	r := req{what: "reservation"}
	res := &Reservation{
		ReservationID:   r.str("reservation_id", w.ReservationID),
		UserID:          r.str("user_id", w.UserID),
		Origin:          r.str("origin", w.Origin),
		Destination:     r.str("destination", w.Destination),
		FlightType:      r.str("flight_type", w.FlightType),
		Cabin:           Value{r.str("cabin", w.Cabin)},
		CreatedAt:       r.str("created_at", w.CreatedAt),
		TotalBaggages:   Value{r.int("total_baggages", w.TotalBaggages)},
		NonfreeBaggages: Value{r.int("nonfree_baggages", w.NonfreeBaggages)},
		Insurance:       r.str("insurance", w.Insurance),
		Status:          w.Status,
	}
	r.present("flights", w.Flights != nil)
	r.present("passengers", w.Passengers != nil)
	r.present("payment_history", w.PaymentHistory != nil)
	r.oneOf("flight_type", res.FlightType, flightTypes)
	r.oneOf("cabin", res.Cabin.v.(string), cabins)
	r.oneOf("insurance", res.Insurance, yesNo)
	if res.Status != nil {
		r.oneOf("status", *res.Status, []string{StatusCancelled})
	}
	if r.err != nil {
		return nil, r.err
	}
	res.Flights = make([]ReservationFlight, len(w.Flights))
	for i, s := range w.Flights {
		rs := req{what: "reservation flight"}
		res.Flights[i] = ReservationFlight{
			FlightNumber: rs.str("flight_number", s.FlightNumber),
			Origin:       rs.str("origin", s.Origin),
			Destination:  rs.str("destination", s.Destination),
			Date:         rs.str("date", s.Date),
			Price:        rs.int("price", s.Price),
		}
		if rs.err != nil {
			return nil, rs.err
		}
	}
	res.PaymentHistory = make([]Payment, len(w.PaymentHistory))
	for i, p := range w.PaymentHistory {
		rp := req{what: "payment"}
		res.PaymentHistory[i] = Payment{PaymentID: rp.str("payment_id", p.PaymentID), Amount: rp.int("amount", p.Amount)}
		if rp.err != nil {
			return nil, rp.err
		}
	}
	var err error
	res.Passengers, err = passengers(w.Passengers)
	return res, err
}
