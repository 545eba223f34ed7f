package airline

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/proctor-eval/proctor/domains/tau2/internal/dbhash"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// Enumerations, as stored in the database and accepted by the tools.
const (
	CabinBasicEconomy = "basic_economy"
	CabinEconomy      = "economy"
	CabinBusiness     = "business"

	FlightTypeOneWay    = "one_way"
	FlightTypeRoundTrip = "round_trip"

	StatusAvailable = "available"
	StatusLanded    = "landed"
	StatusCancelled = "cancelled"
	StatusDelayed   = "delayed"
	StatusFlying    = "flying"
	StatusOnTime    = "on time"

	SourceCreditCard  = "credit_card"
	SourceGiftCard    = "gift_card"
	SourceCertificate = "certificate"
)

var (
	cabins      = []string{CabinBasicEconomy, CabinEconomy, CabinBusiness}
	flightTypes = []string{FlightTypeRoundTrip, FlightTypeOneWay}
	memberships = []string{"gold", "silver", "regular"}
	yesNo       = []string{"yes", "no"}
)

// DB is the airline database: flights, users and reservations, each keyed by
// id. It mirrors tau2's pydantic FlightDB: Dump builds the same tree as its
// model_dump(), so Hash gives tau2's hash.
//
// Records are shared between a template and its clones (see Clone): code
// that changes a record must get it through the mutable* methods, which copy
// it first.
type DB struct {
	flightOrder  []string // flight numbers in file order (searches scan in this order)
	flights      records[Flight]
	users        records[User]
	reservations records[Reservation]
	// owned holds the records (*Flight, *User, *Reservation) this DB made
	// itself and may change in place; every other record may be shared.
	owned map[any]struct{}
	// hashing is the incremental hashing state of the decoded database,
	// shared with its clones; nil for a DB built otherwise.
	hashing *hashing
}

// hashing holds the encoding of a decoded database (its records' bases),
// made on the first hash of a clone and shared read-only by all clones: a
// clone's hash encodes only its own records (see dbhash).
type hashing struct {
	// cloned is set once the database has been cloned: only then is
	// encoding it worth its cost (a database merged with a task's
	// initialization data is used once).
	cloned atomic.Bool

	once sync.Once
	tmpl *dbhash.Template
	err  error
}

// template encodes the decoded database, once for it and its clones.
func (db *DB) template() (*dbhash.Template, error) {
	h := db.hashing
	h.once.Do(func() {
		h.tmpl, h.err = dbhash.New(map[string]map[string]any{
			"flights":      db.flights.baseDumps((*Flight).dump),
			"users":        db.users.baseDumps((*User).dump),
			"reservations": db.reservations.baseDumps((*Reservation).dump),
		})
	})
	return h.tmpl, h.err
}

// changes lists the records of db that may differ from the decoded ones.
func (db *DB) changes() []dbhash.Change {
	var out []dbhash.Change
	out = db.flights.changes(out, "flights", (*Flight).dump)
	out = db.users.changes(out, "users", (*User).dump)
	return db.reservations.changes(out, "reservations", (*Reservation).dump)
}

// Flight is a scheduled flight and its status on each date.
type Flight struct {
	FlightNumber string `json:"flight_number"`
	Origin       string `json:"origin"`
	Destination  string `json:"destination"`
	// ScheduledDeparture and ScheduledArrival are HH:MM:SS (EST); the arrival
	// may end in "+1" for the next day.
	ScheduledDeparture string                `json:"scheduled_departure_time_est"`
	ScheduledArrival   string                `json:"scheduled_arrival_time_est"`
	Dates              map[string]FlightDate `json:"dates"`

	dumped map[string]any // see dumpCache
}

// FlightDate is a flight's state on one date. Which fields exist depends on
// Status (see dateShape); the others are empty.
type FlightDate struct {
	Status             string
	AvailableSeats     Seats // available
	Prices             Seats // available
	ActualDeparture    string
	ActualArrival      string
	EstimatedDeparture string
	EstimatedArrival   string
}

// dateShape lists the keys of a flight-date entry with this status besides
// "status", and whether the status is known.
func dateShape(status string) ([]string, bool) {
	switch status {
	case StatusAvailable:
		return []string{"available_seats", "prices"}, true
	case StatusLanded:
		return []string{"actual_departure_time_est", "actual_arrival_time_est"}, true
	case StatusCancelled:
		return nil, true
	case StatusDelayed, StatusOnTime:
		return []string{"estimated_departure_time_est", "estimated_arrival_time_est"}, true
	case StatusFlying:
		return []string{"actual_departure_time_est", "estimated_arrival_time_est"}, true
	}
	return nil, false
}

// Seats holds one integer per cabin: seats left, or prices.
type Seats struct {
	BasicEconomy int64 `json:"basic_economy"`
	Economy      int64 `json:"economy"`
	Business     int64 `json:"business"`
}

// of returns the count for a cabin (a Python dict lookup: only the three
// cabin names are keys).
func (s *Seats) of(cabin string) (*int64, bool) {
	switch cabin {
	case CabinBasicEconomy:
		return &s.BasicEconomy, true
	case CabinEconomy:
		return &s.Economy, true
	case CabinBusiness:
		return &s.Business, true
	}
	return nil, false
}

// User is a customer account. Field order is tau2's model order, which is
// the order of tool output.
type User struct {
	UserID          string         `json:"user_id"`
	Name            PersonName     `json:"name"`
	Address         Address        `json:"address"`
	Email           string         `json:"email"`
	DOB             string         `json:"dob"`
	PaymentMethods  PaymentMethods `json:"payment_methods"`
	SavedPassengers []Passenger    `json:"saved_passengers"`
	Membership      string         `json:"membership"`
	Reservations    []string       `json:"reservations"`

	dumped map[string]any // see dumpCache
}

// PersonName is a user's name.
type PersonName struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// Address is a user's postal address.
type Address struct {
	Address1 string  `json:"address1"`
	Address2 *string `json:"address2"`
	City     string  `json:"city"`
	Country  string  `json:"country"`
	State    string  `json:"state"`
	Zip      string  `json:"zip"`
}

// PaymentMethods is a user's payment methods keyed by payment id, in
// insertion order (as a Python dict keeps them).
type PaymentMethods []PaymentMethodEntry

// PaymentMethodEntry is one key of PaymentMethods and its method.
type PaymentMethodEntry struct {
	Key    string
	Method PaymentMethod
}

// PaymentMethod is a credit card (Brand, LastFour), a gift card or a travel
// certificate (Amount: the balance, a float).
type PaymentMethod struct {
	Source   string
	ID       string
	Brand    string
	LastFour string
	Amount   float64
}

// Passenger is a traveller on a reservation or a user's saved passenger.
type Passenger struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	DOB       string `json:"dob"`
	// raw, when isRaw is set, is an item tau2 stored as it was given instead
	// of a passenger record (update_reservation_passengers with items that
	// are not all objects).
	raw   any
	isRaw bool
}

// Reservation is a booking. Cabin and the baggage counts are Values because
// tau2 assigns them without validation when a reservation is updated.
type Reservation struct {
	ReservationID   string              `json:"reservation_id"`
	UserID          string              `json:"user_id"`
	Origin          string              `json:"origin"`
	Destination     string              `json:"destination"`
	FlightType      string              `json:"flight_type"`
	Cabin           Value               `json:"cabin"`
	Flights         []ReservationFlight `json:"flights"`
	Passengers      []Passenger         `json:"passengers"`
	PaymentHistory  []Payment           `json:"payment_history"`
	CreatedAt       string              `json:"created_at"`
	TotalBaggages   Value               `json:"total_baggages"`
	NonfreeBaggages Value               `json:"nonfree_baggages"`
	Insurance       string              `json:"insurance"`
	// Status is nil or "cancelled".
	Status *string `json:"status"`

	// passengersDict, when not nil, replaces Passengers: the object that
	// update_reservation_passengers stored as it was given (see
	// setPassengersDict).
	passengersDict map[string]any

	dumped map[string]any // see dumpCache
}

// ReservationFlight is one flight segment of a reservation, at the price per
// passenger paid for it.
type ReservationFlight struct {
	FlightNumber string `json:"flight_number"`
	Origin       string `json:"origin"`
	Destination  string `json:"destination"`
	Date         string `json:"date"`
	Price        int64  `json:"price"`
}

// Payment is a payment (or, when negative, a refund) on a reservation.
type Payment struct {
	PaymentID string `json:"payment_id"`
	Amount    int64  `json:"amount"`
}

// ---------------------------------------------------------------------------
// Copy on write.

// Clone returns a DB that shares every record with db and copies a record
// before changing it. It copies only the records db changed, so a clone of
// the full airline database costs a few hundred bytes.
func (db *DB) Clone() *DB {
	if len(db.owned) > 0 {
		// db's own records are shared from now on: db must copy them before
		// changing them again. (A template never owns records, so cloning a
		// template only reads it and is safe from many goroutines.)
		db.owned = nil
	}
	if db.hashing != nil && !db.hashing.cloned.Load() {
		db.hashing.cloned.Store(true)
	}
	return &DB{
		flightOrder:  db.flightOrder,
		flights:      db.flights.clone(),
		users:        db.users.clone(),
		reservations: db.reservations.clone(),
		hashing:      db.hashing,
	}
}

func (db *DB) owns(rec any) bool {
	_, ok := db.owned[rec]
	return ok
}

func (db *DB) own(rec any) {
	if db.owned == nil {
		db.owned = make(map[any]struct{})
	}
	db.owned[rec] = struct{}{}
}

// mutableUser returns a user that this DB may change. The user must exist.
func (db *DB) mutableUser(id string) *User {
	u, _ := db.users.get(id)
	if db.owns(u) {
		return u
	}
	c := *u
	c.dumped = nil
	c.PaymentMethods = slices.Clone(u.PaymentMethods)
	c.SavedPassengers = slices.Clone(u.SavedPassengers)
	c.Reservations = slices.Clone(u.Reservations)
	db.users.set(id, &c)
	db.own(&c)
	return &c
}

// mutableReservation returns a reservation that this DB may change. The
// reservation must exist.
func (db *DB) mutableReservation(id string) *Reservation {
	r, _ := db.reservations.get(id)
	if db.owns(r) {
		return r
	}
	c := *r
	c.dumped = nil
	c.Flights = slices.Clone(r.Flights)
	c.Passengers = slices.Clone(r.Passengers)
	c.PaymentHistory = slices.Clone(r.PaymentHistory)
	db.reservations.set(id, &c)
	db.own(&c)
	return &c
}

// mutableFlight returns a flight that this DB may change. The flight must
// exist.
func (db *DB) mutableFlight(number string) *Flight {
	f, _ := db.flights.get(number)
	if db.owns(f) {
		return f
	}
	c := *f
	c.dumped = nil
	c.Dates = maps.Clone(f.Dates) // FlightDate holds no references
	db.flights.set(number, &c)
	db.own(&c)
	return &c
}

// addReservation stores a new reservation made by this DB.
func (db *DB) addReservation(r *Reservation) {
	db.reservations.set(r.ReservationID, r)
	db.own(r)
}

// ---------------------------------------------------------------------------
// Hash: the model_dump() tree.

// Hash implements domains.Hasher: tau2's DB hash, the SHA-256 of
// json.dumps(model_dump(), sort_keys=True, default=str). A decoded database
// and its clones are hashed incrementally (see dbhash): only the records
// that differ from the decoded ones are encoded, and a database seen before
// is not hashed again.
func (db *DB) Hash() (string, error) {
	if db.hashing == nil || !db.hashing.cloned.Load() {
		return db.FullHash()
	}
	tmpl, err := db.template()
	if err != nil {
		return "", err
	}
	return tmpl.Hash(db.changes())
}

// FullHash is Hash computed the plain way, over the whole model dump.
func (db *DB) FullHash() (string, error) {
	return pyjson.Hash(db.Dump())
}

// Dump returns the database as tau2's model_dump() does: every model field
// present (unset optional ones as nil), ints as int64, floats as float64.
// The tree shares parts with the database and with other dumps: it must not
// be modified.
//
// dumpCache: the records of a decoded database (the template every
// environment clones) keep their dump tree, built once when decoded, and
// copies made for a change drop it. Dumping a clone then only builds the
// trees of the records it changed, instead of 15 MB of maps per hash.
func (db *DB) Dump() any {
	flights := make(map[string]any, len(db.flights.base))
	for k, f := range db.flights.all() {
		flights[k] = f.dump()
	}
	users := make(map[string]any, len(db.users.base))
	for k, u := range db.users.all() {
		users[k] = u.dump()
	}
	reservations := make(map[string]any, len(db.reservations.base))
	for k, r := range db.reservations.all() {
		reservations[k] = r.dump()
	}
	return map[string]any{"flights": flights, "users": users, "reservations": reservations}
}

func (f *Flight) dump() map[string]any {
	if f.dumped != nil {
		return f.dumped
	}
	return f.buildDump()
}

func (f *Flight) buildDump() map[string]any {
	dates := make(map[string]any, len(f.Dates))
	for k, d := range f.Dates {
		dates[k] = d.dump()
	}
	return map[string]any{
		"flight_number":                f.FlightNumber,
		"origin":                       f.Origin,
		"destination":                  f.Destination,
		"scheduled_departure_time_est": f.ScheduledDeparture,
		"scheduled_arrival_time_est":   f.ScheduledArrival,
		"dates":                        dates,
	}
}

func (d *FlightDate) dump() map[string]any {
	m := map[string]any{"status": d.Status}
	keys, _ := dateShape(d.Status)
	for _, k := range keys {
		switch k {
		case "available_seats":
			m[k] = d.AvailableSeats.dump()
		case "prices":
			m[k] = d.Prices.dump()
		default:
			m[k] = *d.timeField(k)
		}
	}
	return m
}

func (d *FlightDate) timeField(key string) *string {
	switch key {
	case "actual_departure_time_est":
		return &d.ActualDeparture
	case "actual_arrival_time_est":
		return &d.ActualArrival
	case "estimated_departure_time_est":
		return &d.EstimatedDeparture
	case "estimated_arrival_time_est":
		return &d.EstimatedArrival
	}
	return nil
}

func (s Seats) dump() map[string]any {
	return map[string]any{CabinBasicEconomy: s.BasicEconomy, CabinEconomy: s.Economy, CabinBusiness: s.Business}
}

func (u *User) dump() map[string]any {
	if u.dumped != nil {
		return u.dumped
	}
	return u.buildDump()
}

func (u *User) buildDump() map[string]any {
	var address2 any
	if u.Address.Address2 != nil {
		address2 = *u.Address.Address2
	}
	methods := make(map[string]any, len(u.PaymentMethods))
	for _, e := range u.PaymentMethods {
		methods[e.Key] = e.Method.dump()
	}
	return map[string]any{
		"user_id": u.UserID,
		"name":    map[string]any{"first_name": u.Name.FirstName, "last_name": u.Name.LastName},
		"address": map[string]any{
			"address1": u.Address.Address1,
			"address2": address2,
			"city":     u.Address.City,
			"country":  u.Address.Country,
			"state":    u.Address.State,
			"zip":      u.Address.Zip,
		},
		"email":            u.Email,
		"dob":              u.DOB,
		"payment_methods":  methods,
		"saved_passengers": dumpPassengers(u.SavedPassengers),
		"membership":       u.Membership,
		"reservations":     u.Reservations,
	}
}

func (m *PaymentMethod) dump() map[string]any {
	if m.Source == SourceCreditCard {
		return map[string]any{"source": m.Source, "id": m.ID, "brand": m.Brand, "last_four": m.LastFour}
	}
	return map[string]any{"source": m.Source, "id": m.ID, "amount": m.Amount}
}

func (p *Passenger) dump() any {
	if p.isRaw {
		return p.raw
	}
	return map[string]any{"first_name": p.FirstName, "last_name": p.LastName, "dob": p.DOB}
}

func dumpPassengers(ps []Passenger) []any {
	out := make([]any, len(ps))
	for i := range ps {
		out[i] = ps[i].dump()
	}
	return out
}

func (r *Reservation) dump() map[string]any {
	if r.dumped != nil {
		return r.dumped
	}
	return r.buildDump()
}

func (r *Reservation) buildDump() map[string]any {
	flights := make([]any, len(r.Flights))
	for i, f := range r.Flights {
		flights[i] = map[string]any{
			"flight_number": f.FlightNumber,
			"origin":        f.Origin,
			"destination":   f.Destination,
			"date":          f.Date,
			"price":         f.Price,
		}
	}
	payments := make([]any, len(r.PaymentHistory))
	for i, p := range r.PaymentHistory {
		payments[i] = map[string]any{"payment_id": p.PaymentID, "amount": p.Amount}
	}
	var status any
	if r.Status != nil {
		status = *r.Status
	}
	return map[string]any{
		"reservation_id":   r.ReservationID,
		"user_id":          r.UserID,
		"origin":           r.Origin,
		"destination":      r.Destination,
		"flight_type":      r.FlightType,
		"cabin":            r.Cabin.v,
		"flights":          flights,
		"passengers":       r.dumpPassengersField(),
		"payment_history":  payments,
		"created_at":       r.CreatedAt,
		"total_baggages":   r.TotalBaggages.v,
		"nonfree_baggages": r.NonfreeBaggages.v,
		"insurance":        r.Insurance,
		"status":           status,
	}
}

// ---------------------------------------------------------------------------
// Tool output: JSON objects with tau2's field order.

// MarshalJSON implements json.Marshaler: an object in insertion order.
func (pm PaymentMethods) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, e := range pm {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(e.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(e.Method)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// MarshalJSON implements json.Marshaler: the fields of the method's kind.
func (m PaymentMethod) MarshalJSON() ([]byte, error) {
	if m.Source == SourceCreditCard {
		return json.Marshal(struct {
			Source   string `json:"source"`
			ID       string `json:"id"`
			Brand    string `json:"brand"`
			LastFour string `json:"last_four"`
		}{m.Source, m.ID, m.Brand, m.LastFour})
	}
	return json.Marshal(struct {
		Source string `json:"source"`
		ID     string `json:"id"`
		Amount Float  `json:"amount"`
	}{m.Source, m.ID, Float(m.Amount)})
}

// passengerCount is Python's len(reservation.passengers): the number of
// keys of a stored object.
func (r *Reservation) passengerCount() int {
	if r.passengersDict != nil {
		return len(r.passengersDict)
	}
	return len(r.Passengers)
}

func (r *Reservation) dumpPassengersField() any {
	if r.passengersDict != nil {
		return r.passengersDict
	}
	return dumpPassengers(r.Passengers)
}

// MarshalJSON implements json.Marshaler: the reservation's fields in
// order, its passengers the stored object when there is one.
func (r *Reservation) MarshalJSON() ([]byte, error) {
	type plain Reservation
	if r.passengersDict == nil {
		return json.Marshal((*plain)(r))
	}
	c := *r
	c.Passengers = nil
	b, err := json.Marshal((*plain)(&c))
	if err != nil {
		return nil, err
	}
	obj, err := appendPassengersDict(nil, r.passengersDict)
	if err != nil {
		return nil, err
	}
	// Only a key is a quoted name followed by a colon: the one
	// "passengers" member.
	return bytes.Replace(b, []byte(`"passengers":null`), append([]byte(`"passengers":`), obj...), 1), nil
}

// appendPassengersDict writes a stored passengers object with its keys in
// this order: a passenger record's fields, then any others sorted. tau2
// keeps the agent's own order, which proctor's decoded arguments no longer
// hold; agents follow the schema's order.
func appendPassengersDict(b []byte, m map[string]any) ([]byte, error) {
	passengerKeyOrder := []string{"first_name", "last_name", "dob"}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !slices.Contains(passengerKeyOrder, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var known []string
	for _, k := range passengerKeyOrder {
		if _, ok := m[k]; ok {
			known = append(known, k)
		}
	}
	b = append(b, '{')
	for i, k := range append(known, keys...) {
		if i > 0 {
			b = append(b, ',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b = append(append(b, kb...), ':')
		if b, err = appendJSONValue(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// MarshalJSON implements json.Marshaler.
func (p Passenger) MarshalJSON() ([]byte, error) {
	if p.isRaw {
		return appendJSONValue(nil, p.raw)
	}
	type plain Passenger
	return json.Marshal(plain(p))
}
