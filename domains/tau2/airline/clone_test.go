package airline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

var (
	templateOnce sync.Once
	templateVal  *DB
	templateErr  error
)

// decodeTemplate decodes db.json as NewDomain does for its template (once:
// tests must not change it).
func decodeTemplate(t testing.TB) *DB {
	t.Helper()
	dir := needData(t)
	templateOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join(dir, DBFile))
		if err != nil {
			templateErr = err
			return
		}
		templateVal = new(DB)
		templateErr = json.Unmarshal(raw, templateVal)
	})
	if templateErr != nil {
		t.Fatal(templateErr)
	}
	return templateVal
}

// get is a record of a table, nil when absent.
func get[T any](t records[T], id string) *T {
	r, _ := t.get(id)
	return r
}

// run calls a tool directly on a DB.
func run(t testing.TB, db *DB, tool domains.ToolFunc[DB], args map[string]any) any {
	t.Helper()
	out, err := tool(db, args)
	if err != nil {
		t.Fatalf("tool failed: %v", err)
	}
	return out
}

func dbHash(t testing.TB, db *DB) string {
	t.Helper()
	h, err := db.Hash()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// writes changes every kind of record: a user (certificate, gift card), a
// reservation (baggage, cancellation), a flight (seats) and adds a
// reservation.
func writes(t testing.TB, db *DB) {
	t.Helper()
	run(t, db, sendCertificate, map[string]any{"user_id": sophia, "amount": 100.0})
	run(t, db, updateReservationBaggages, map[string]any{"reservation_id": wunaRes, "total_baggages": 2.0, "nonfree_baggages": 1.0, "payment_id": giftID})
	run(t, db, bookReservation, map[string]any{
		"user_id": sophia, "origin": "ORD", "destination": "PHL", "flight_type": "one_way", "cabin": "economy",
		"flights":         []any{map[string]any{"flight_number": "HAT271", "date": "2024-05-26"}},
		"passengers":      []any{map[string]any{"first_name": "Sophia", "last_name": "Silva", "dob": "1957-10-05"}},
		"payment_methods": []any{map[string]any{"payment_id": "certificate_3221322", "amount": 100.0}, map[string]any{"payment_id": cardID, "amount": 74.0}},
		"total_baggages":  0.0, "nonfree_baggages": 0.0, "insurance": "no",
	})
	run(t, db, cancelReservation, map[string]any{"reservation_id": wunaRes})
}

func TestCloneIsolation(t *testing.T) {
	tmpl := decodeTemplate(t)
	if h := dbHash(t, tmpl); h != freshHash {
		t.Fatalf("template hash %s", h)
	}
	wuna, sophiaRec, hat271 := get(tmpl.reservations, wunaRes), get(tmpl.users, sophia), get(tmpl.flights, "HAT271")

	a, b := tmpl.Clone(), tmpl.Clone()
	writes(t, a)
	changed := dbHash(t, a)
	if changed == freshHash {
		t.Fatal("writes did not change the clone's hash")
	}
	if h := dbHash(t, b); h != freshHash {
		t.Error("a sibling clone sees the writes")
	}
	if h := dbHash(t, tmpl); h != freshHash {
		t.Error("the template changed")
	}
	if get(tmpl.reservations, wunaRes) != wuna || get(tmpl.users, sophia) != sophiaRec || get(tmpl.flights, "HAT271") != hat271 {
		t.Error("the template's records were replaced")
	}
	if len(wuna.PaymentHistory) != 1 || wuna.Status != nil || len(sophiaRec.PaymentMethods) != 4 ||
		len(sophiaRec.Reservations) != 5 || hat271.Dates["2024-05-26"].AvailableSeats.Economy != 3 {
		t.Error("a template record was changed in place")
	}
	if _, ok := tmpl.reservations.get("HATHAT"); ok {
		t.Error("the new reservation reached the template")
	}
	// Records the clone did not touch are still shared.
	if get(a.users, "mia_li_3668") != get(tmpl.users, "mia_li_3668") || get(a.flights, "HAT001") != get(tmpl.flights, "HAT001") {
		t.Error("untouched records were copied")
	}
	// The same writes on a fresh clone give the same state.
	c := tmpl.Clone()
	writes(t, c)
	if h := dbHash(t, c); h != changed {
		t.Error("the same writes gave another hash")
	}

	// A clone of a clone: neither may change what they now share.
	d := a.Clone()
	run(t, a, cancelReservation, map[string]any{"reservation_id": "HATHAT"})
	run(t, a, updateReservationBaggages, map[string]any{"reservation_id": wunaRes, "total_baggages": 9.0, "nonfree_baggages": 1.0, "payment_id": cardID})
	if h := dbHash(t, d); h != changed {
		t.Error("a clone of a clone sees its parent's later writes")
	}
	run(t, d, sendCertificate, map[string]any{"user_id": sophia, "amount": 1.0})
	if len(get(a.users, sophia).PaymentMethods) != len(get(d.users, sophia).PaymentMethods)-1 {
		t.Error("a parent sees its clone's writes")
	}
}

// TestDumpCache checks that the dump trees cached on decoded records equal
// freshly built ones.
func TestDumpCache(t *testing.T) {
	tmpl := decodeTemplate(t)
	tree := map[string]any{}
	for _, kind := range []string{"flights", "users", "reservations"} {
		tree[kind] = map[string]any{}
	}
	for k, f := range tmpl.flights.all() {
		if f.dumped == nil {
			t.Fatal("decoded flight without a cached dump")
		}
		tree["flights"].(map[string]any)[k] = f.buildDump()
	}
	for k, u := range tmpl.users.all() {
		tree["users"].(map[string]any)[k] = u.buildDump()
	}
	for k, r := range tmpl.reservations.all() {
		tree["reservations"].(map[string]any)[k] = r.buildDump()
	}
	h, err := pyjson.Hash(tree)
	if err != nil {
		t.Fatal(err)
	}
	if h != freshHash {
		t.Fatalf("uncached dump hash %s, want %s", h, freshHash)
	}
}

// TestConcurrentEnvs runs writes in many environments of one domain at once
// (run it with -race): none sees another's writes, and the domain's
// template stays fresh.
func TestConcurrentEnvs(t *testing.T) {
	d := testDomain(t)
	const n = 16
	hashes := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			env, err := d.NewEnv(nil)
			if err != nil {
				errs[i] = err
				return
			}
			// Each environment sends a certificate of its own amount.
			res := env.Call(domains.ToolCall{Name: "send_certificate", Arguments: map[string]any{"user_id": sophia, "amount": float64(100 + i)}})
			if res.Error {
				errs[i] = fmt.Errorf("%s", res.Content)
				return
			}
			res = env.Call(domains.ToolCall{Name: "get_user_details", Arguments: map[string]any{"user_id": sophia}})
			var u struct {
				PaymentMethods map[string]struct {
					Amount float64 `json:"amount"`
				} `json:"payment_methods"`
			}
			if err := json.Unmarshal([]byte(res.Content), &u); err != nil {
				errs[i] = err
				return
			}
			if got := u.PaymentMethods["certificate_3221322"].Amount; got != float64(100+i) {
				errs[i] = fmt.Errorf("env %d sees certificate amount %v", i, got)
				return
			}
			hashes[i], errs[i] = env.Hash()
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if seen[hashes[i]] || hashes[i] == freshHash {
			t.Errorf("env %d: hash %s not distinct", i, hashes[i])
		}
		seen[hashes[i]] = true
	}
	env, err := d.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := env.Hash(); h != freshHash {
		t.Error("a new environment is not fresh after concurrent writes")
	}
}

// TestIncrementalHash is the property that incremental hashing rests on:
// after any sequence of tool calls (drawn from every task's expected
// actions, so bookings, changes, cancellations and payments), an
// environment's incremental hash is the hash of its whole model dump.
func TestIncrementalHash(t *testing.T) {
	dir := needData(t)
	d := testDomain(t)
	tools := Tools()
	tools.RegisterEnvFunc("full_hash", func(db *DB, _ domains.Args) (any, error) { return db.FullHash() })
	raw, err := os.ReadFile(filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	probe, err := domains.NewDomain(domains.Spec[DB]{Name: Name, Policy: "-", DB: raw, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	rounds := 15
	if testing.Short() || raceEnabled {
		rounds = 4
	}
	tau2test.CheckIncrementalHash(t, probe, d.Tasks, 3, rounds)
}
