package telecom

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/internal/tau2test"
)

func TestTOMLToJSON(t *testing.T) {
	cases := []struct {
		name, toml, want string
	}{
		{"document order", "b = 1\na = 2\n[z]\ny = 1\nx = 2\n[c]\nk = true\n", `{"b":1,"a":2,"z":{"y":1,"x":2},"c":{"k":true}}`},
		{"numbers keep their kind", "i = 5\nf = 5.0\ng = 1e20\nh = 0.1\n", `{"i":5,"f":5.0,"g":1e+20,"h":0.1}`},
		{"dates and times", "d = 2025-01-02\nl = 2025-01-02T03:04:05\nu = 2025-01-02T03:04:05.25Z\no = 2025-01-02T03:04:05-05:30\nt = 07:08:09\n",
			`{"d":"2025-01-02","l":"2025-01-02T03:04:05","u":"2025-01-02T03:04:05.250000Z","o":"2025-01-02T03:04:05-05:30","t":"07:08:09"}`},
		{"arrays of tables", "[[p]]\nid = \"a\"\nn = 1\n[[p]]\nn = 2\nid = \"b\"\n[[p.q]]\nx = 1\n",
			`{"p":[{"id":"a","n":1},{"id":"b","n":2,"q":[{"x":1}]}]}`},
		{"inline values", "a = [1, \"x\", {y = 2}]\nb = {c = [], d = {}}\n", `{"a":[1,"x",{"y":2}],"b":{"c":[],"d":{}}}`},
		{"quoted keys", "\"a.b\" = 1\n\"q\\\"\" = 2\n", `{"a.b":1,"q\"":2}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TOMLToJSON([]byte(tc.toml))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Error("not JSON")
			}
		})
	}
	for _, bad := range []string{"a = inf\n", "a = nan\n", "a = \n", "[a]\n[a]\n", strings.Repeat("a = [", 40) + strings.Repeat("]", 40) + "\n"} {
		if got, err := TOMLToJSON([]byte(bad)); err == nil {
			t.Errorf("%q converted to %s", bad, got)
		}
	}
}

func TestDecodeDatabases(t *testing.T) {
	decodeDB := func(doc string) (*DB, error) {
		j, err := TOMLToJSON([]byte(doc))
		if err != nil {
			return nil, err
		}
		db := new(DB)
		return db, json.Unmarshal(j, db)
	}
	// pydantic's coercions and defaults: an int in a float field is a
	// float, absent optional fields take their defaults.
	db, err := decodeDB(`[[plans]]
plan_id = "P1"
name = "n"
data_limit_gb = 5
price_per_month = 40
data_refueling_price_per_gb = 5
[[lines]]
line_id = "L1"
phone_number = "1"
plan_id = "P1"
[[customers]]
customer_id = "C1"
full_name = "f"
date_of_birth = "d"
email = "e"
phone_number = "1"
address = {street = "s", city = "c", state = "st", zip_code = "z"}
[[devices]]
device_id = "D1"
device_type = "phone"
model = "m"
is_esim_capable = false
activation_date = 2025-01-20T14:30:00
`)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := pyJSON(db.Dump())
	want := `{"plans": [{"plan_id": "P1", "name": "n", "data_limit_gb": 5.0, "price_per_month": 40.0, "data_refueling_price_per_gb": 5.0}], ` +
		`"customers": [{"customer_id": "C1", "full_name": "f", "date_of_birth": "d", "email": "e", "phone_number": "1", ` +
		`"address": {"street": "s", "city": "c", "state": "st", "zip_code": "z"}, "account_status": "Pending Verification", "payment_methods": [], ` +
		`"line_ids": [], "bill_ids": [], "created_at": "2025-01-01", "last_extension_date": null, "goodwill_credit_used_this_year": 0.0}], ` +
		`"lines": [{"line_id": "L1", "phone_number": "1", "status": "Pending Activation", "plan_id": "P1", "device_id": null, "data_used_gb": 0.0, ` +
		`"data_refueling_gb": 0.0, "roaming_enabled": false, "contract_end_date": null, "last_plan_change_date": null, "last_sim_replacement_date": null, ` +
		`"suspension_start_date": null}], "bills": [], "devices": [{"device_id": "D1", "device_type": "phone", "model": "m", "imei": null, ` +
		`"is_esim_capable": false, "activated": false, "activation_date": "2025-01-20 14:30:00", "last_esim_transfer_date": null}]}`
	if got != want {
		t.Errorf("dump\n got %s\nwant %s", got, want)
	}
	for doc, msg := range map[string]string{
		"[[plans]]\nplan_id = \"P1\"\n": `missing field "name"`,
		"color = 1\n":                   `unknown field "color"`,
		"[[lines]]\nline_id = \"L\"\nphone_number = \"1\"\nplan_id = \"P\"\nstatus = \"Gone\"\n":                  `status "Gone" is not one of`,
		"[[lines]]\nline_id = \"L\"\nphone_number = \"1\"\nplan_id = \"P\"\ncontract_end_date = \"31/12/2026\"\n": `invalid date`,
		"[[lines]]\nline_id = \"L\"\nphone_number = \"1\"\nplan_id = \"P\"\ndata_used_gb = \"lots\"\n":            `cannot unmarshal`,
		"plans = 3\n": `cannot unmarshal`,
	} {
		if _, err := decodeDB(doc); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: err = %v, want %q", doc, err, msg)
		}
	}

	decodeUser := func(doc string) (*UserDB, error) {
		j, err := TOMLToJSON([]byte(doc))
		if err != nil {
			return nil, err
		}
		u := new(UserDB)
		return u, json.Unmarshal(j, u)
	}
	// A dict given to pydantic replaces the default one: these apps only,
	// in this order; these signals only.
	u, err := decodeUser(`[device]
battery_level = 55.0
vpn_connected = true
vpn_details = {protocol = "WireGuard"}
[device.app_statuses.camera]
app_name = "camera"
[device.app_statuses.messaging]
app_name = "messaging"
permissions = {sms = true}
[surroundings]
signal_strength = {"4G" = "fair"}
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(u.Device.AppStatuses.Names(), ","); got != "camera,messaging" {
		t.Errorf("apps %s", got)
	}
	if u.Device.BatteryLevel != 55 || u.Device.VPNDetails.ServerPerformance != "unknown" || len(u.Surroundings.SignalStrength) != 1 || !u.Surroundings.LineActive {
		t.Errorf("decoded %+v", u)
	}
	u.searchNetwork() // no 5G here: 4G, fair
	if got := u.statusBar(); got != "📶² Fair | 4G | 📱 Data Enabled | 🔒 VPN Connected | 🔋 55%" {
		t.Errorf("status bar %s", got)
	}
	for doc, msg := range map[string]string{
		"[device]\nbattery_level = 5.5\n":                         "not an integer",
		"[device]\nsim_card_status = \"gone\"\n":                  `sim_card_status "gone"`,
		"[device.app_statuses.x]\npermissions = {}\n":             `missing field "app_name"`,
		"[surroundings]\nsignal_strength = {\"6G\" = \"poor\"}\n": `"6G" is not one of`,
		"[surroundings.payment_request]\nbill_id = \"B\"\n":       `missing field "amount_due"`,
		"[device.active_apn_settings]\napn_name = \"wap\"\n":      `apn_name "wap"`,
	} {
		if _, err := decodeUser(doc); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: err = %v, want %q", doc, err, msg)
		}
	}
}

// FuzzTOMLDatabase feeds arbitrary TOML to the conversion and the database
// decoders: nothing may panic, and a database that decodes must hash, and
// reach a fixed point after one JSON round trip (the first may turn a bare
// default date into a datetime, as tau2's re-validation does).
func FuzzTOMLDatabase(f *testing.F) {
	for _, s := range []string{
		"[[plans]]\nplan_id = \"P\"\nname = \"n\"\ndata_limit_gb = 1\nprice_per_month = 2.5\ndata_refueling_price_per_gb = 0.1\n",
		"[device]\nbattery_level = 80\n[device.app_statuses.b]\napp_name = \"b\"\n[surroundings]\nphone_number = \"1\"\n",
		"[[customers]]\ncustomer_id = \"C\"\nfull_name = \"f\"\ndate_of_birth = \"d\"\nemail = \"e\"\nphone_number = \"1\"\naddress = {street = \"s\", city = \"c\", state = \"t\", zip_code = \"z\"}\n",
		"a = 2025-01-02T03:04:05Z\n",
	} {
		f.Add([]byte(s))
	}
	if dir, ok := tau2test.Find("telecom"); ok {
		for _, name := range []string{DBFile, UserDBFile} {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		j, err := TOMLToJSON(doc)
		if err != nil {
			return
		}
		if !json.Valid(j) {
			t.Fatalf("invalid JSON %s", j)
		}
		var db DB
		if json.Unmarshal(j, &db) == nil {
			fixedPoint(t, &db, func() hashed { return new(DB) })
		}
		var u UserDB
		if json.Unmarshal(j, &u) == nil {
			fixedPoint(t, &u, func() hashed { return new(UserDB) })
		}
	})
}

type hashed interface {
	Hash() (string, error)
}

func fixedPoint(t *testing.T, v hashed, fresh func() hashed) {
	t.Helper()
	if _, err := v.Hash(); err != nil {
		t.Fatalf("hash: %v", err)
	}
	once := roundTrip(t, v, fresh())
	twice := roundTrip(t, once, fresh())
	h1, _ := once.Hash()
	h2, _ := twice.Hash()
	if h1 != h2 {
		t.Fatalf("round trips differ: %s / %s", h1, h2)
	}
}

func roundTrip(t *testing.T, v, into hashed) hashed {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("decode own JSON %s: %v", b, err)
	}
	return into
}
