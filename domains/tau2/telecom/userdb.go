package telecom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strconv"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// Network technologies, signal strengths and connection statuses of the
// user's phone.
const (
	TechNone = "none"
	Tech2G   = "2G"
	Tech3G   = "3G"
	Tech4G   = "4G"
	Tech5G   = "5G"

	SignalNone      = "none"
	SignalPoor      = "poor"
	SignalFair      = "fair"
	SignalGood      = "good"
	SignalExcellent = "excellent"

	NetConnected     = "connected"
	NetSearching     = "searching"
	NetNoService     = "no_service"
	NetEmergencyOnly = "emergency_only"
)

// SIM statuses, network mode preferences and APN names.
const (
	SIMActive    = "active"
	SIMMissing   = "missing"
	SIMLockedPIN = "locked_pin"
	SIMLockedPUK = "locked_puk"

	Mode4G5GPreferred = "4g_5g_preferred"
	Mode4GOnly        = "4g_only"
	Mode3GOnly        = "3g_only"
	Mode2GOnly        = "2g_only"

	APNInternet = "internet"
	APNBroken   = "broken"
)

// The enum values of the user database, as tau2's model has them.
func simStatuses() []string { return []string{SIMActive, SIMMissing, SIMLockedPIN, SIMLockedPUK} }
func technologies() []string {
	return []string{TechNone, Tech2G, Tech3G, Tech4G, Tech5G}
}
func networkModes() []string {
	return []string{Mode4G5GPreferred, Mode4GOnly, Mode3GOnly, Mode2GOnly}
}
func signalStrengths() []string {
	return []string{SignalNone, SignalPoor, SignalFair, SignalGood, SignalExcellent}
}
func performanceLevels() []string {
	return []string{"unknown", SignalPoor, SignalFair, SignalGood, SignalExcellent}
}
func networkStatuses() []string {
	return []string{NetConnected, NetSearching, NetNoService, NetEmergencyOnly}
}
func apnNames() []string { return []string{APNInternet, APNBroken} }

// Int is an integer field. pydantic takes an integral float (80.0) for one,
// so it does too.
type Int int64

// UnmarshalJSON reads an integer, or a float with an integral value.
func (i *Int) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("integer: %w", err)
	}
	if v, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		*i = Int(v)
		return nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return fmt.Errorf("%s is not an integer", n)
	}
	*i = Int(f)
	return nil
}

// APNSettings is the phone's active access point configuration.
type APNSettings struct {
	APNName       string  `json:"apn_name"`
	ResetAtReboot bool    `json:"reset_at_reboot"`
	MMSAPN        *string `json:"mms_apn"`
	MMSCURL       *string `json:"mmsc_url"`
	MMSProxy      *string `json:"mms_proxy"`
	MMSPort       *Int    `json:"mms_port"`
}

// defaultAPN is tau2's default APN configuration, which a reboot restores
// once reset_apn_settings asked for it.
func defaultAPN() APNSettings {
	mmsAPN, mmsc := "mms", "http://mms.carrier.com/mms/wapenc"
	return APNSettings{APNName: APNInternet, MMSAPN: &mmsAPN, MMSCURL: &mmsc}
}

func (a *APNSettings) dump() obj {
	var port any
	if a.MMSPort != nil {
		port = int64(*a.MMSPort)
	}
	return obj{
		{"apn_name", a.APNName}, {"reset_at_reboot", a.ResetAtReboot}, {"mms_apn", strOrNil(a.MMSAPN)},
		{"mmsc_url", strOrNil(a.MMSCURL)}, {"mms_proxy", strOrNil(a.MMSProxy)}, {"mms_port", port},
	}
}

// UnmarshalJSON reads APN settings strictly; absent fields take tau2's
// defaults.
func (a *APNSettings) UnmarshalJSON(b []byte) error {
	type plain APNSettings
	*a = defaultAPN()
	if err := decodeRecord(b, (*plain)(a)); err != nil {
		return err
	}
	return oneOf("apn_name", a.APNName, apnNames())
}

func (a APNSettings) clone() APNSettings {
	a.MMSAPN = clonePtr(a.MMSAPN)
	a.MMSCURL = clonePtr(a.MMSCURL)
	a.MMSProxy = clonePtr(a.MMSProxy)
	a.MMSPort = clonePtr(a.MMSPort)
	return a
}

// VPNDetails describes the VPN connection.
type VPNDetails struct {
	ServerAddress     *string `json:"server_address"`
	Protocol          *string `json:"protocol"`
	ServerPerformance string  `json:"server_performance"`
}

// defaultVPN is the connection connect_vpn makes.
func defaultVPN() VPNDetails {
	addr, proto := "192.168.1.1", "OpenVPN"
	return VPNDetails{ServerAddress: &addr, Protocol: &proto, ServerPerformance: SignalExcellent}
}

func (v *VPNDetails) dump() obj {
	return obj{{"server_address", strOrNil(v.ServerAddress)}, {"protocol", strOrNil(v.Protocol)}, {"server_performance", v.ServerPerformance}}
}

// UnmarshalJSON reads VPN details strictly.
func (v *VPNDetails) UnmarshalJSON(b []byte) error {
	type plain VPNDetails
	*v = VPNDetails{ServerPerformance: "unknown"}
	if err := decodeRecord(b, (*plain)(v)); err != nil {
		return err
	}
	return oneOf("server_performance", v.ServerPerformance, performanceLevels())
}

func (v VPNDetails) clone() VPNDetails {
	v.ServerAddress = clonePtr(v.ServerAddress)
	v.Protocol = clonePtr(v.Protocol)
	return v
}

// AppPermissions are the permissions the phone tracks for an app.
type AppPermissions struct {
	SMS     bool `json:"sms"`
	Storage bool `json:"storage"`
	Phone   bool `json:"phone"`
	Network bool `json:"network"`
}

// permissionNames are AppPermissions' fields, in declaration order.
func permissionNames() []string { return []string{"sms", "storage", "phone", "network"} }

// field addresses a permission by name; ok is false for a name
// AppPermissions does not have.
func (p *AppPermissions) field(name string) (*bool, bool) {
	switch name {
	case "sms":
		return &p.SMS, true
	case "storage":
		return &p.Storage, true
	case "phone":
		return &p.Phone, true
	case "network":
		return &p.Network, true
	}
	return nil, false
}

func (p *AppPermissions) dump() obj {
	return obj{{"sms", p.SMS}, {"storage", p.Storage}, {"phone", p.Phone}, {"network", p.Network}}
}

// UnmarshalJSON reads permissions strictly; absent ones are not granted.
func (p *AppPermissions) UnmarshalJSON(b []byte) error {
	type plain AppPermissions
	*p = AppPermissions{}
	return decodeRecord(b, (*plain)(p))
}

// AppStatus is an installed app and its permissions.
type AppStatus struct {
	AppName     string         `json:"app_name"`
	Permissions AppPermissions `json:"permissions"`
}

func (a *AppStatus) dump() obj {
	return obj{{"app_name", a.AppName}, {"permissions", a.Permissions.dump()}}
}

// UnmarshalJSON reads an app status strictly.
func (a *AppStatus) UnmarshalJSON(b []byte) error {
	type plain AppStatus
	*a = AppStatus{}
	return decodeRecord(b, (*plain)(a), "app_name")
}

// Apps are the phone's installed apps by name, in installation order (a
// Python dict keeps insertion order, which check_installed_apps shows).
type Apps struct {
	names []string
	m     map[string]*AppStatus
}

// defaultApps are tau2's default apps: messaging and a browser.
func defaultApps() Apps {
	var a Apps
	a.put("messaging", &AppStatus{AppName: "messaging", Permissions: AppPermissions{SMS: true, Storage: true, Phone: true}})
	a.put("browser", &AppStatus{AppName: "browser", Permissions: AppPermissions{Storage: true, Network: true}})
	return a
}

// Names returns the apps' names in order.
func (a *Apps) Names() []string { return append([]string(nil), a.names...) }

// Get returns an app by name.
func (a *Apps) Get(name string) (*AppStatus, bool) { s, ok := a.m[name]; return s, ok }

func (a *Apps) put(name string, s *AppStatus) {
	if a.m == nil {
		a.m = map[string]*AppStatus{}
	}
	if _, ok := a.m[name]; !ok {
		a.names = append(a.names, name)
	}
	a.m[name] = s
}

func (a *Apps) dump() obj {
	out := make(obj, len(a.names))
	for i, n := range a.names {
		out[i] = field{n, a.m[n].dump()}
	}
	return out
}

func (a Apps) clone() Apps {
	c := Apps{names: append([]string(nil), a.names...), m: make(map[string]*AppStatus, len(a.m))}
	for k, v := range a.m {
		s := *v
		c.m[k] = &s
	}
	return c
}

// MarshalJSON writes the apps in order.
func (a Apps) MarshalJSON() ([]byte, error) { return appendPy(nil, a.dump()) }

// UnmarshalJSON reads an object of apps, keeping its order. The object
// replaces the apps, defaults included, as a dict given to pydantic does.
func (a *Apps) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("app_statuses: expected an object, got %v", tok)
	}
	*a = Apps{m: map[string]*AppStatus{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		s := new(AppStatus)
		if err := dec.Decode(s); err != nil {
			return fmt.Errorf("app %q: %w", name, err)
		}
		a.put(name, s)
	}
	_, err = dec.Token()
	return err
}

// Phone is the state of the user's phone (tau2's MockPhoneAttributes).
type Phone struct {
	SIMCardStatus              string      `json:"sim_card_status"`
	SIMCardMissing             bool        `json:"sim_card_missing"`
	AirplaneMode               bool        `json:"airplane_mode"`
	NetworkSignalStrength      string      `json:"network_signal_strength"`
	NetworkTechnologyConnected string      `json:"network_technology_connected"`
	NetworkConnectionStatus    string      `json:"network_connection_status"`
	BatteryLevel               Int         `json:"battery_level"`
	DataEnabled                bool        `json:"data_enabled"`
	RoamingEnabled             bool        `json:"roaming_enabled"`
	NetworkModePreference      string      `json:"network_mode_preference"`
	ActiveAPNSettings          APNSettings `json:"active_apn_settings"`
	WifiEnabled                bool        `json:"wifi_enabled"`
	WifiConnected              bool        `json:"wifi_connected"`
	WifiSSID                   *string     `json:"wifi_ssid"`
	WifiSignalStrength         string      `json:"wifi_signal_strength"`
	WifiCallingEnabled         bool        `json:"wifi_calling_enabled"`
	WifiCallingMMSOverWifi     bool        `json:"wifi_calling_mms_over_wifi"`
	DataSaverMode              bool        `json:"data_saver_mode"`
	VPNEnabledSetting          bool        `json:"vpn_enabled_setting"`
	VPNConnected               bool        `json:"vpn_connected"`
	VPNDetails                 *VPNDetails `json:"vpn_details"`
	AppStatuses                Apps        `json:"app_statuses"`

	// modeOther and apnOther hold a value of another type that tau2 stored
	// unvalidated in network_mode_preference or active_apn_settings (see
	// setNetworkModePreference and setAPNSettings); the field then dumps
	// it. modeOther is set with NetworkModePreference "", which no search
	// knows, as tau2's search falls back for it.
	modeOther, apnOther *any
}

func defaultPhone() Phone {
	return Phone{
		SIMCardStatus: SIMActive, NetworkSignalStrength: SignalGood, NetworkTechnologyConnected: Tech5G,
		NetworkConnectionStatus: NetConnected, BatteryLevel: 80, DataEnabled: true,
		NetworkModePreference: Mode4G5GPreferred, ActiveAPNSettings: defaultAPN(),
		WifiSignalStrength: SignalNone, AppStatuses: defaultApps(),
	}
}

func (p *Phone) dump() obj {
	var vpn any
	if p.VPNDetails != nil {
		vpn = p.VPNDetails.dump()
	}
	return obj{
		{"sim_card_status", p.SIMCardStatus}, {"sim_card_missing", p.SIMCardMissing},
		{"airplane_mode", p.AirplaneMode}, {"network_signal_strength", p.NetworkSignalStrength},
		{"network_technology_connected", p.NetworkTechnologyConnected},
		{"network_connection_status", p.NetworkConnectionStatus}, {"battery_level", int64(p.BatteryLevel)},
		{"data_enabled", p.DataEnabled}, {"roaming_enabled", p.RoamingEnabled},
		{"network_mode_preference", p.modeDump()}, {"active_apn_settings", p.apnDump()},
		{"wifi_enabled", p.WifiEnabled}, {"wifi_connected", p.WifiConnected}, {"wifi_ssid", strOrNil(p.WifiSSID)},
		{"wifi_signal_strength", p.WifiSignalStrength}, {"wifi_calling_enabled", p.WifiCallingEnabled},
		{"wifi_calling_mms_over_wifi", p.WifiCallingMMSOverWifi}, {"data_saver_mode", p.DataSaverMode},
		{"vpn_enabled_setting", p.VPNEnabledSetting}, {"vpn_connected", p.VPNConnected}, {"vpn_details", vpn},
		{"app_statuses", p.AppStatuses.dump()},
	}
}

func (p *Phone) modeDump() any {
	if p.modeOther != nil {
		return *p.modeOther
	}
	return p.NetworkModePreference
}

func (p *Phone) apnDump() any {
	if p.apnOther != nil {
		return *p.apnOther
	}
	return p.ActiveAPNSettings.dump()
}

// UnmarshalJSON reads the phone's state strictly; absent fields take
// tau2's defaults.
func (p *Phone) UnmarshalJSON(b []byte) error {
	type plain Phone
	*p = defaultPhone()
	if err := decodeRecord(b, (*plain)(p)); err != nil {
		return err
	}
	for _, c := range []struct {
		name, v string
		allowed []string
	}{
		{"sim_card_status", p.SIMCardStatus, simStatuses()},
		{"network_signal_strength", p.NetworkSignalStrength, signalStrengths()},
		{"network_technology_connected", p.NetworkTechnologyConnected, technologies()},
		{"network_connection_status", p.NetworkConnectionStatus, networkStatuses()},
		{"network_mode_preference", p.NetworkModePreference, networkModes()},
		{"wifi_signal_strength", p.WifiSignalStrength, signalStrengths()},
	} {
		if err := oneOf(c.name, c.v, c.allowed); err != nil {
			return err
		}
	}
	return nil
}

func (p Phone) clone() Phone {
	p.ActiveAPNSettings = p.ActiveAPNSettings.clone()
	p.WifiSSID = clonePtr(p.WifiSSID)
	if p.VPNDetails != nil {
		v := p.VPNDetails.clone()
		p.VPNDetails = &v
	}
	p.AppStatuses = p.AppStatuses.clone()
	return p
}

// PaymentRequest is a bill the agent asked the user to pay.
type PaymentRequest struct {
	BillID    string  `json:"bill_id"`
	AmountDue float64 `json:"amount_due"`
	Paid      bool    `json:"paid"`
}

func (r *PaymentRequest) dump() obj {
	return obj{{"bill_id", r.BillID}, {"amount_due", r.AmountDue}, {"paid", r.Paid}}
}

// UnmarshalJSON reads a payment request strictly.
func (r *PaymentRequest) UnmarshalJSON(b []byte) error {
	type plain PaymentRequest
	*r = PaymentRequest{}
	return decodeRecord(b, (*plain)(r), "bill_id", "amount_due")
}

// Signals are the signal strengths where the user is, per network
// technology.
type Signals map[string]string

func defaultSignals() Signals {
	return Signals{Tech2G: SignalPoor, Tech3G: SignalFair, Tech4G: SignalGood, Tech5G: SignalExcellent}
}

// UnmarshalJSON reads the strengths; the object replaces the defaults.
func (s *Signals) UnmarshalJSON(b []byte) error {
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("signal_strength: %w", err)
	}
	for k, v := range m {
		if err := oneOf("signal_strength key", k, technologies()); err != nil {
			return err
		}
		if err := oneOf("signal_strength", v, signalStrengths()); err != nil {
			return err
		}
	}
	*s = m
	return nil
}

// Surroundings are the user's situation: who and where they are, and what
// the network lets them do (sync keeps the last four in step with the
// agent's records of their line).
type Surroundings struct {
	Name                    *string         `json:"name"`
	PhoneNumber             *string         `json:"phone_number"`
	IsAbroad                bool            `json:"is_abroad"`
	RoamingAllowed          bool            `json:"roaming_allowed"`
	SignalStrength          Signals         `json:"signal_strength"`
	MobileDataUsageExceeded bool            `json:"mobile_data_usage_exceeded"`
	LineActive              bool            `json:"line_active"`
	PaymentRequest          *PaymentRequest `json:"payment_request"`
}

func defaultSurroundings() Surroundings {
	return Surroundings{SignalStrength: defaultSignals(), LineActive: true}
}

func (s *Surroundings) dump() obj {
	signals := make(map[string]any, len(s.SignalStrength))
	for k, v := range s.SignalStrength {
		signals[k] = v
	}
	var req any
	if s.PaymentRequest != nil {
		req = s.PaymentRequest.dump()
	}
	return obj{
		{"name", strOrNil(s.Name)}, {"phone_number", strOrNil(s.PhoneNumber)}, {"is_abroad", s.IsAbroad},
		{"roaming_allowed", s.RoamingAllowed}, {"signal_strength", signals},
		{"mobile_data_usage_exceeded", s.MobileDataUsageExceeded}, {"line_active", s.LineActive},
		{"payment_request", req},
	}
}

// UnmarshalJSON reads the surroundings strictly; absent fields take
// tau2's defaults.
func (s *Surroundings) UnmarshalJSON(b []byte) error {
	type plain Surroundings
	*s = defaultSurroundings()
	return decodeRecord(b, (*plain)(s))
}

func (s Surroundings) clone() Surroundings {
	s.Name = clonePtr(s.Name)
	s.PhoneNumber = clonePtr(s.PhoneNumber)
	s.SignalStrength = maps.Clone(s.SignalStrength)
	s.PaymentRequest = clonePtr(s.PaymentRequest)
	return s
}

// UserDB is the telecom user database (tau2's TelecomUserDB): the user's
// phone and surroundings.
type UserDB struct {
	Device       Phone        `json:"device"`
	Surroundings Surroundings `json:"surroundings"`

	// tau2 hands every VPN connection the same default details object,
	// which break_vpn degrades; proctor keeps one such object per
	// environment. vpnPoor says the environment's default has been
	// degraded, vpnShared that Device.VPNDetails is that object.
	vpnPoor, vpnShared bool
}

// UnmarshalJSON reads the database strictly; absent parts take tau2's
// defaults.
func (db *UserDB) UnmarshalJSON(b []byte) error {
	type plain UserDB
	*db = UserDB{Device: defaultPhone(), Surroundings: defaultSurroundings()}
	return decodeRecord(b, (*plain)(db))
}

// MarshalJSON writes the database as tau2 dumps it, so that it decodes
// again to the same database.
func (db *UserDB) MarshalJSON() ([]byte, error) { return appendPy(nil, db.Dump()) }

// Dump returns the database as tau2's model_dump() does, as a pyjson dump
// tree.
func (db *UserDB) Dump() any {
	return obj{{"device", db.Device.dump()}, {"surroundings", db.Surroundings.dump()}}
}

// Hash is tau2's hash of the database (domains-spec.md 1.6).
func (db *UserDB) Hash() (string, error) { return pyjson.Hash(db.Dump()) }

// Clone returns a deep copy.
func (db *UserDB) Clone() *UserDB {
	c := *db
	c.Device = db.Device.clone()
	c.Surroundings = db.Surroundings.clone()
	return &c
}
