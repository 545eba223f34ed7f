package telecom

import (
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// UserTools returns the user simulator's tools (requestor "user") and the
// user side's env functions (domains-spec.md 5.7). The user acts on their
// own phone; write tools report failures in their message, not as errors,
// as tau2's do.
func UserTools() *domains.Toolbox[UserDB] {
	tb := domains.NewToolbox[UserDB]()
	fns := map[string]domains.ToolFunc[UserDB]{
		"check_status_bar":              noArgs("check_status_bar", (*UserDB).checkStatusBar),
		"check_network_status":          noArgs("check_network_status", (*UserDB).checkNetworkStatus),
		"check_network_mode_preference": checkNetworkModePreference,
		"set_network_mode_preference":   setNetworkModePreference,
		"run_speed_test":                noArgs("run_speed_test", (*UserDB).runSpeedTest),
		"toggle_airplane_mode":          noArgs("toggle_airplane_mode", (*UserDB).toggleAirplaneMode),
		"check_sim_status":              noArgs("check_sim_status", (*UserDB).checkSIMStatus),
		"reseat_sim_card":               noArgs("reseat_sim_card", (*UserDB).reseatSIMCard),
		"toggle_data":                   noArgs("toggle_data", (*UserDB).toggleData),
		"toggle_roaming":                noArgs("toggle_roaming", (*UserDB).toggleRoaming),
		"check_data_restriction_status": noArgs("check_data_restriction_status", (*UserDB).checkDataRestrictionStatus),
		"toggle_data_saver_mode":        noArgs("toggle_data_saver_mode", (*UserDB).toggleDataSaverMode),
		"check_apn_settings":            noArgs("check_apn_settings", (*UserDB).checkAPNSettings),
		"set_apn_settings":              setAPNSettings,
		"reset_apn_settings":            noArgs("reset_apn_settings", (*UserDB).resetAPNSettings),
		"check_wifi_status":             noArgs("check_wifi_status", (*UserDB).checkWifiStatus),
		"toggle_wifi":                   noArgs("toggle_wifi", (*UserDB).toggleWifi),
		"check_wifi_calling_status":     noArgs("check_wifi_calling_status", (*UserDB).checkWifiCallingStatus),
		"toggle_wifi_calling":           noArgs("toggle_wifi_calling", (*UserDB).toggleWifiCalling),
		"check_vpn_status":              noArgs("check_vpn_status", (*UserDB).checkVPNStatus),
		"connect_vpn":                   noArgs("connect_vpn", (*UserDB).connectVPN),
		"disconnect_vpn":                noArgs("disconnect_vpn", (*UserDB).disconnectVPN),
		"check_installed_apps":          noArgs("check_installed_apps", (*UserDB).checkInstalledApps),
		"check_app_status":              checkAppStatus,
		"check_app_permissions":         checkAppPermissions,
		"grant_app_permission":          grantAppPermission,
		"can_send_mms":                  noArgs("can_send_mms", (*UserDB).canSendMMS),
		"reboot_device":                 noArgs("reboot_device", (*UserDB).rebootDevice),
		"check_payment_request":         noArgs("check_payment_request", (*UserDB).checkPaymentRequest),
		"make_payment":                  noArgs("make_payment", (*UserDB).makePayment),
	}
	// tau2's names, descriptions and schemas, in its order: the user
	// simulator is told of them as tau2's is.
	for _, s := range userToolSpecs {
		tb.Register(s.Name, s.Description, s.Parameters, fns[s.Name])
	}

	for name, fn := range map[string]domains.ToolFunc[UserDB]{
		"set_user_info":                        setUserInfo,
		"set_user_location":                    setUserLocation,
		"turn_airplane_mode_on":                turnTo("turn_airplane_mode_on", (*UserDB).flipAirplaneMode, true, "Airplane Mode is now ON."),
		"turn_airplane_mode_off":               turnTo("turn_airplane_mode_off", (*UserDB).flipAirplaneMode, false, "Airplane Mode is now OFF."),
		"turn_roaming_on":                      turnTo("turn_roaming_on", (*UserDB).flipRoaming, true, "Data Roaming is now ON."),
		"turn_roaming_off":                     turnTo("turn_roaming_off", (*UserDB).flipRoaming, false, "Data Roaming is now OFF."),
		"turn_data_saver_mode_on":              turnTo("turn_data_saver_mode_on", (*UserDB).flipDataSaver, true, "Data Saver Mode is now ON."),
		"turn_data_saver_mode_off":             turnTo("turn_data_saver_mode_off", (*UserDB).flipDataSaver, false, "Data Saver Mode is now OFF."),
		"turn_data_off":                        turnTo("turn_data_off", (*UserDB).flipData, false, "Data connection broken."),
		"turn_data_on":                         noArgs("turn_data_on", (*UserDB).turnDataOn),
		"unseat_sim_card":                      noArgs("unseat_sim_card", (*UserDB).unseatSIMCard),
		"lock_sim_card":                        lockSIMCard,
		"break_apn_settings":                   noArgs("break_apn_settings", (*UserDB).breakAPNSettings),
		"break_apn_mms_setting":                noArgs("break_apn_mms_setting", (*UserDB).breakAPNMMSSetting),
		"set_wifi_calling":                     setWifiCalling,
		"break_vpn":                            breakVPN,
		"remove_app_permission":                removeAppPermission,
		"simulate_network_search":              noArgs("simulate_network_search", (*UserDB).simulateNetworkSearch),
		"assert_airplane_mode_status":          assertBool("assert_airplane_mode_status", func(db *UserDB) bool { return db.Device.AirplaneMode }),
		"assert_mobile_data_status":            assertBool("assert_mobile_data_status", (*UserDB).mobileDataWorks),
		"assert_mobile_roaming_status":         assertBool("assert_mobile_roaming_status", func(db *UserDB) bool { return db.Device.RoamingEnabled }),
		"assert_mobile_data_saver_mode_status": assertBool("assert_mobile_data_saver_mode_status", func(db *UserDB) bool { return db.Device.DataSaverMode }),
		"assert_can_send_mms":                  assertBool("assert_can_send_mms", (*UserDB).mmsWorks),
		"assert_mobile_data_usage_exceeded":    assertBool("assert_mobile_data_usage_exceeded", func(db *UserDB) bool { return db.Surroundings.MobileDataUsageExceeded }),
		"assert_service_status":                assertServiceStatus,
		"assert_internet_speed":                assertInternetSpeed,
		"assert_internet_not_excellent":        assertInternetNotExcellent,
	} {
		tb.RegisterEnvFunc(name, fn)
	}
	return tb
}

// noArgs is a tool without parameters.
func noArgs(fn string, run func(db *UserDB) string) domains.ToolFunc[UserDB] {
	return func(db *UserDB, args domains.Args) (any, error) {
		if err := pycompat.CheckKwargs(userToolsClass, fn, args, nil); err != nil {
			return nil, err
		}
		return run(db), nil
	}
}

func (db *UserDB) checkNetworkStatus() string {
	d := &db.Device
	lines := []string{
		"Airplane Mode: " + onOff(d.AirplaneMode),
		"SIM Card Status: " + db.simStatus(),
		"Cellular Connection: " + d.NetworkConnectionStatus,
		"Cellular Signal: " + d.NetworkSignalStrength,
		"Cellular Network Type: " + d.NetworkTechnologyConnected,
		"Mobile Data Enabled: " + yesNo(d.DataEnabled),
		"Data Roaming Enabled: " + yesNo(d.RoamingEnabled),
		"Wi-Fi Radio: " + onOff(d.WifiEnabled),
		"Wi-Fi Connected: " + yesNo(d.WifiConnected),
	}
	if d.WifiConnected {
		lines = append(lines, "Connected Wi-Fi Network: "+pyOptStr(d.WifiSSID))
	}
	return strings.Join(lines, "\n")
}

// checkNetworkModePreference names the preferred mode; a mode of another
// type that set_network_mode_preference stored fails, as tau2 reads its
// .value.
func checkNetworkModePreference(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "check_network_mode_preference", args, nil); err != nil {
		return nil, err
	}
	if m := db.Device.modeOther; m != nil {
		return nil, fmt.Errorf("'%s' object has no attribute 'value'", pycompat.TypeName(*m))
	}
	return "Network Mode Preference: " + db.Device.NetworkModePreference, nil
}

func (db *UserDB) runSpeedTest() string {
	speed, label, ok := db.speedTest()
	if !ok {
		return "Speed test failed: " + label + "."
	}
	advice := map[string]string{
		"Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
		"Poor":      "Connection is slow. Web browsing may be sluggish, streaming difficult.",
		"Fair":      "Connection is okay for web browsing and some standard definition streaming.",
		"Good":      "Connection is good for most activities, including HD streaming.",
		"Excellent": "Connection is very fast.",
	}[label]
	return fmt.Sprintf("Speed Test Result: %.2f Mbps (%s). %s", speed, label, advice)
}

func (db *UserDB) toggleAirplaneMode() string {
	return db.withStatusBar("Airplane Mode is now " + onOff(db.flipAirplaneMode()) + ".")
}

func (db *UserDB) checkSIMStatus() string {
	switch s := db.simStatus(); s {
	case SIMActive:
		return "Your SIM card is active and working."
	case SIMMissing:
		return "No SIM card detected in the phone."
	case SIMLockedPIN:
		return "The SIM card is locked with a PIN code."
	case SIMLockedPUK:
		return "The SIM card is locked with a PUK code."
	default:
		return "Unknown SIM status: " + s
	}
}

func (db *UserDB) reseatSIMCard() string {
	db.Device.SIMCardMissing = false
	db.searchNetwork()
	return db.withStatusBar("SIM card re-seated successfully.")
}

func (db *UserDB) toggleData() string {
	return db.withStatusBar("Mobile Data is now " + onOff(db.flipData()) + ".")
}

func (db *UserDB) toggleRoaming() string {
	return db.withStatusBar("Data Roaming is now " + onOff(db.flipRoaming()) + ".")
}

func (db *UserDB) checkDataRestrictionStatus() string {
	if db.Device.DataSaverMode {
		return "Data Saver mode is ON (limits data usage)."
	}
	return "Data Saver mode is OFF."
}

func (db *UserDB) toggleDataSaverMode() string {
	return db.withStatusBar("Data Saver Mode is now " + onOff(db.flipDataSaver()) + ".")
}

func (db *UserDB) checkAPNSettings() string {
	a := &db.Device.ActiveAPNSettings
	name, url := a.APNName, "Not Set"
	if name == "" {
		name = "Not Set"
	}
	if a.MMSCURL != nil && *a.MMSCURL != "" {
		url = *a.MMSCURL
	}
	return "Current APN Name: " + name + "\nMMSC URL (for picture messages): " + url +
		"\n(These are technical settings, usually best left unchanged.)"
}

func (db *UserDB) resetAPNSettings() string {
	db.Device.ActiveAPNSettings.ResetAtReboot = true
	db.searchNetwork()
	return db.withStatusBar("APN settings will reset at reboot.")
}

func (db *UserDB) checkWifiStatus() string {
	d := &db.Device
	switch {
	case !d.WifiEnabled:
		return "Wi-Fi is turned OFF."
	case d.WifiConnected:
		return fmt.Sprintf("Wi-Fi is ON and connected to '%s'. Signal strength: %s.", pyOptStr(d.WifiSSID), d.WifiSignalStrength)
	}
	return "Wi-Fi is ON but not connected to any network."
}

func (db *UserDB) toggleWifi() string {
	d := &db.Device
	if d.AirplaneMode {
		return db.withStatusBar("Cannot change Wi-Fi settings while Airplane Mode is ON.")
	}
	d.WifiEnabled = !d.WifiEnabled
	if !d.WifiEnabled {
		db.wifiOff()
	}
	// Wi-Fi never connects by itself.
	return db.withStatusBar("Wi-Fi is now " + onOff(d.WifiEnabled) + ".")
}

func (db *UserDB) checkWifiCallingStatus() string {
	return "Wi-Fi Calling is currently turned " + onOff(db.Device.WifiCallingEnabled) + "."
}

func (db *UserDB) toggleWifiCalling() string {
	db.Device.WifiCallingEnabled = !db.Device.WifiCallingEnabled
	return db.withStatusBar("Wi-Fi Calling is now " + onOff(db.Device.WifiCallingEnabled) + ".")
}

func (db *UserDB) checkVPNStatus() string {
	d := &db.Device
	switch {
	case d.VPNConnected && d.VPNDetails != nil:
		return "VPN is ON and connected. Details: " + d.VPNDetails.repr()
	case d.VPNConnected:
		return "VPN is ON and connected (no specific details available)."
	case d.VPNEnabledSetting:
		return "VPN is turned ON in settings, but currently not connected."
	}
	return "VPN is turned OFF."
}

func (db *UserDB) connectVPN() string {
	if !db.vpnConnect() {
		return "VPN already connected."
	}
	return db.withStatusBar("VPN connected successfully.")
}

func (db *UserDB) disconnectVPN() string {
	if !db.vpnDisconnect() {
		return db.withStatusBar("No active VPN connection to disconnect.")
	}
	return db.withStatusBar("VPN disconnected successfully.")
}

func (db *UserDB) checkInstalledApps() string {
	return "The following apps are installed on the phone: " + strings.Join(db.Device.AppStatuses.Names(), ", ")
}

func (db *UserDB) canSendMMS() string {
	if db.mmsWorks() {
		return "Your messaging app can send MMS messages."
	}
	return "Your messaging app cannot send MMS messages."
}

func (db *UserDB) rebootDevice() string {
	var lines []string
	if db.Device.ActiveAPNSettings.ResetAtReboot {
		lines = append(lines, "Resetting APN settings...")
		db.Device.ActiveAPNSettings = defaultAPN()
	}
	lines = append(lines, "Restarting network services...")
	db.Device.NetworkConnectionStatus = NetSearching
	db.searchNetwork()
	return db.withStatusBar(strings.Join(lines, "\n"))
}

func (db *UserDB) checkPaymentRequest() string {
	r := db.Surroundings.PaymentRequest
	if r == nil {
		return "No payment request has been made."
	}
	return fmt.Sprintf("You have a payment request for bill %s of %s USD.", r.BillID, pyjson.FormatFloat(r.AmountDue))
}

// make_payment only marks the request paid: the bill becomes Paid at
// the next sync.
func (db *UserDB) makePayment() string {
	r := db.Surroundings.PaymentRequest
	if r == nil {
		return "You do not have a payment request."
	}
	r.Paid = true
	return fmt.Sprintf("Payment of %s USD has been made for bill %s.", pyjson.FormatFloat(r.AmountDue), r.BillID)
}

func (db *UserDB) simulateNetworkSearch() string {
	db.searchNetwork()
	return ""
}

func (db *UserDB) unseatSIMCard() string {
	db.Device.SIMCardMissing = true
	db.searchNetwork()
	return "SIM card un-seated successfully."
}

func (db *UserDB) breakAPNSettings() string {
	db.Device.ActiveAPNSettings.APNName = APNBroken
	db.searchNetwork()
	return "APN settings broken. Please call reset_apn_settings() to fix."
}

func (db *UserDB) breakAPNMMSSetting() string {
	db.Device.ActiveAPNSettings.MMSCURL = nil
	return "APN MMS setting broken. Please call reset_apn_settings() to fix."
}

func (db *UserDB) turnDataOn() string {
	db.Device.DataEnabled = true // no network search, as in tau2
	return "Data connection restored."
}

func (db *UserDB) checkStatusBar() string { return "Status Bar: " + db.statusBar() }

func onOff(b bool) string {
	if b {
		return "ON"
	}
	return "OFF"
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// pyOptStr is Python's str() of an optional str: "None" for None.
func pyOptStr(s *string) string {
	if s == nil {
		return "None"
	}
	return *s
}

// repr is Python's repr() of the details' model_dump(): a dict whose
// performance is still an enum member.
func (v *VPNDetails) repr() string {
	opt := func(s *string) string {
		if s == nil {
			return "None"
		}
		return pycompat.Repr(*s)
	}
	return fmt.Sprintf("{'server_address': %s, 'protocol': %s, 'server_performance': <PerformanceLevel.%s: %s>}",
		opt(v.ServerAddress), opt(v.Protocol), strings.ToUpper(v.ServerPerformance), pycompat.Repr(v.ServerPerformance))
}

// The phone's state changes the tools share.

func (db *UserDB) wifiOff() {
	db.Device.WifiConnected = false
	db.Device.WifiSSID = nil
	db.Device.WifiSignalStrength = SignalNone
}

// toggleAirplaneMode flips airplane mode and searches for a network.
// Turning it on drops Wi-Fi and the VPN; turning it off drops Wi-Fi too
// (it never reconnects by itself).
func (db *UserDB) flipAirplaneMode() bool {
	d := &db.Device
	wasOn := d.AirplaneMode
	d.AirplaneMode = !wasOn
	if wasOn {
		d.NetworkConnectionStatus = NetSearching
		if d.WifiEnabled {
			db.wifiOff()
		}
	} else {
		db.wifiOff()
		db.vpnDisconnect()
	}
	db.searchNetwork()
	return d.AirplaneMode
}

func (db *UserDB) flipData() bool {
	db.Device.DataEnabled = !db.Device.DataEnabled
	db.searchNetwork()
	return db.Device.DataEnabled
}

func (db *UserDB) flipRoaming() bool {
	db.Device.RoamingEnabled = !db.Device.RoamingEnabled
	db.searchNetwork()
	return db.Device.RoamingEnabled
}

func (db *UserDB) flipDataSaver() bool {
	db.Device.DataSaverMode = !db.Device.DataSaverMode
	return db.Device.DataSaverMode
}

// connectVPN connects with the environment's default details; false when
// already connected.
func (db *UserDB) vpnConnect() bool {
	d := &db.Device
	if d.VPNConnected {
		return false
	}
	v := defaultVPN()
	if db.vpnPoor {
		v.ServerPerformance = SignalPoor
	}
	d.VPNConnected = true
	d.VPNDetails = &v
	db.vpnShared = true
	return true
}

// disconnectVPN drops the VPN connection; false when there was none.
func (db *UserDB) vpnDisconnect() bool {
	d := &db.Device
	if !d.VPNConnected {
		return false
	}
	d.VPNConnected = false
	d.VPNDetails = nil
	db.vpnShared = false
	return true
}

// turnTo is an env function that toggles a setting until it has the
// wanted state, as tau2's turn_*_on/off do (toggling once, and once more
// if that went the wrong way).
func turnTo(fn string, toggle func(*UserDB) bool, want bool, msg string) domains.ToolFunc[UserDB] {
	return noArgs(fn, func(db *UserDB) string {
		if toggle(db) != want {
			toggle(db)
		}
		return msg
	})
}

func setNetworkModePreference(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "set_network_mode_preference", args, []string{"mode"}); err != nil {
		return nil, err
	}
	mode, ok := args["mode"].(string)
	if !ok {
		return setNetworkModeOther(db, args["mode"])
	}
	if oneOf("mode", mode, networkModes()) != nil {
		return db.withStatusBar(fmt.Sprintf("Failed to set network mode: '%s' is not a valid option. Please use one of: %s",
			mode, strings.Join(networkModes(), ", "))), nil
	}
	db.Device.NetworkModePreference, db.Device.modeOther = mode, nil
	db.searchNetwork()
	return db.withStatusBar("Preferred Network Mode set to: " + mode), nil
}

// setNetworkModeOther is set_network_mode_preference with a mode that is
// not a str: tau2 stores it unvalidated and searches the network (its
// search falls back to 4G for a mode it does not know), then fails reading
// the mode's .value; None alone reads as "not a valid option".
func setNetworkModeOther(db *UserDB, mode any) (any, error) {
	db.Device.NetworkModePreference, db.Device.modeOther = "", &mode
	db.searchNetwork()
	if mode == nil {
		return db.withStatusBar(fmt.Sprintf("Failed to set network mode: 'None' is not a valid option. Please use one of: %s",
			strings.Join(networkModes(), ", "))), nil
	}
	return nil, fmt.Errorf("'%s' object has no attribute 'value'", pycompat.TypeName(mode))
}

func setAPNSettings(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "set_apn_settings", args, []string{"apn_settings"}); err != nil {
		return nil, err
	}
	raw, ok := args["apn_settings"].(map[string]any)
	if !ok {
		// tau2 stores anything but a dict unvalidated, then fails
		// reading its apn_name, before any network search.
		v := args["apn_settings"]
		db.Device.apnOther = &v
		return nil, fmt.Errorf("'%s' object has no attribute 'apn_name'", pycompat.TypeName(v))
	}
	apn, err := apnFromArgs(raw)
	if err != nil {
		return nil, err
	}
	db.Device.ActiveAPNSettings, db.Device.apnOther = apn, nil
	db.searchNetwork()
	return db.withStatusBar("APN settings set to: " + apn.APNName), nil
}

// apnFromArgs validates new APN settings as pydantic does for
// APNSettings(**dict): unknown fields and wrong types fail, absent fields
// take their defaults.
func apnFromArgs(raw map[string]any) (APNSettings, error) {
	a := defaultAPN()
	for k, v := range raw {
		var err error
		switch k {
		case "apn_name":
			s, ok := v.(string)
			if !ok {
				err = fmt.Errorf("must be a string")
			} else if err = oneOf("apn_name", s, apnNames()); err == nil {
				a.APNName = s
			}
		case "reset_at_reboot":
			b, ok := v.(bool)
			if !ok {
				err = fmt.Errorf("must be a boolean")
			}
			a.ResetAtReboot = b
		case "mms_apn", "mmsc_url", "mms_proxy":
			var p *string
			if v != nil {
				s, ok := v.(string)
				if !ok {
					err = fmt.Errorf("must be a string or null")
				}
				p = &s
			}
			switch k {
			case "mms_apn":
				a.MMSAPN = p
			case "mmsc_url":
				a.MMSCURL = p
			default:
				a.MMSProxy = p
			}
		case "mms_port":
			a.MMSPort = nil
			if v != nil {
				n, e := integer(domains.Args{k: v}, k)
				if e != nil {
					err = fmt.Errorf("must be an integer or null")
				}
				port := Int(n)
				a.MMSPort = &port
			}
		default:
			err = fmt.Errorf("extra inputs are not permitted")
		}
		if err != nil {
			return APNSettings{}, fmt.Errorf("1 validation error for APNSettings\n%s\n  %w", k, err)
		}
	}
	return a, nil
}

func checkAppStatus(db *UserDB, args domains.Args) (any, error) {
	name, a, err := appArg(db, "check_app_status", args)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return appNotFound(name), nil
	}
	lines := []string{"Status for App: " + name}
	granted := grantedPermissions(&a.Permissions)
	if len(granted) == 0 {
		lines = append(lines, " - Permissions: None granted.")
	} else {
		lines = append(lines, " - Permissions Granted:")
		for _, p := range granted {
			lines = append(lines, "   - "+p)
		}
	}
	return strings.Join(lines, "\n"), nil
}

func checkAppPermissions(db *UserDB, args domains.Args) (any, error) {
	name, a, err := appArg(db, "check_app_permissions", args)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return appNotFound(name), nil
	}
	granted := grantedPermissions(&a.Permissions)
	if len(granted) == 0 {
		return fmt.Sprintf("App '%s' currently has no permissions granted.", name), nil
	}
	return fmt.Sprintf("App '%s' has permission for: %s.", name, strings.Join(granted, ", ")), nil
}

// appArg reads a tool's app_name and finds the app (nil when the phone has
// none of that name).
func appArg(db *UserDB, fn string, args domains.Args) (string, *AppStatus, error) {
	if err := pycompat.CheckKwargs(userToolsClass, fn, args, []string{"app_name"}); err != nil {
		return "", nil, err
	}
	name, err := str(args, "app_name")
	if err != nil {
		return "", nil, err
	}
	a, _ := db.Device.AppStatuses.Get(name)
	return name, a, nil
}

// appNotFound is the message, not an error, for an app the phone lacks.
func appNotFound(name string) string { return fmt.Sprintf("App '%s' not found on this phone.", name) }

func grantedPermissions(p *AppPermissions) []string {
	var out []string
	for _, name := range permissionNames() {
		if v, _ := p.field(name); *v {
			out = append(out, name)
		}
	}
	return out
}

// appPermissionArgs reads the app name and the permission (lower-cased) of
// the permission tools.
func appPermissionArgs(tool string, args domains.Args) (name, perm string, err error) {
	if err := pycompat.CheckKwargs(userToolsClass, tool, args, []string{"app_name", "permission"}); err != nil {
		return "", "", err
	}
	if name, err = str(args, "app_name"); err != nil {
		return "", "", err
	}
	if perm, err = str(args, "permission"); err != nil {
		return "", "", err
	}
	return name, strings.ToLower(perm), nil
}

func grantAppPermission(db *UserDB, args domains.Args) (any, error) {
	name, perm, err := appPermissionArgs("grant_app_permission", args)
	if err != nil {
		return nil, err
	}
	a, ok := db.Device.AppStatuses.Get(name)
	var msg string
	switch p, known := a.permission(perm); {
	case !ok:
		msg = fmt.Sprintf("Error. App '%s' not found. Cannot grant permission.", name)
	case !known:
		msg = fmt.Sprintf("Error. Permission '%s' not tracked for app '%s', available permissions: %s", perm, name, pycompat.ReprList(permissionNames()))
	default:
		*p = true
		msg = fmt.Sprintf("Success. Permission '%s' granted to app '%s'.", perm, name)
	}
	return db.withStatusBar(msg), nil
}

// permission addresses one of the app's permissions; a nil app has none.
func (a *AppStatus) permission(name string) (*bool, bool) {
	if a == nil {
		return nil, false
	}
	return a.Permissions.field(name)
}

func setUserInfo(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "set_user_info", args, []string{"name", "phone_number"}); err != nil {
		return nil, err
	}
	name, err := str(args, "name")
	if err != nil {
		return nil, err
	}
	phone, err := str(args, "phone_number")
	if err != nil {
		return nil, err
	}
	db.Surroundings.Name, db.Surroundings.PhoneNumber = &name, &phone
	return nil, nil
}

func setUserLocation(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "set_user_location", args, []string{"abroad"}); err != nil {
		return nil, err
	}
	abroad, err := boolean(args, "abroad")
	if err != nil {
		return nil, err
	}
	db.Surroundings.IsAbroad = abroad
	return nil, nil
}

func lockSIMCard(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "lock_sim_card", args, []string{"mode"}); err != nil {
		return nil, err
	}
	mode, err := str(args, "mode")
	if err != nil {
		return nil, err
	}
	switch mode {
	case "pin":
		db.Device.SIMCardStatus = SIMLockedPIN
	case "puk":
		db.Device.SIMCardStatus = SIMLockedPUK
	}
	db.searchNetwork()
	return "SIM card locked successfully in " + mode + " mode.", nil
}

func setWifiCalling(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "set_wifi_calling", args, []string{"enabled"}, "mms_over_wifi"); err != nil {
		return nil, err
	}
	enabled, err := boolean(args, "enabled")
	if err != nil {
		return nil, err
	}
	mms, err := optBool(args, "mms_over_wifi")
	if err != nil {
		return nil, err
	}
	db.Device.WifiCallingEnabled = enabled
	msg := "Wi-Fi Calling is now " + onOff(enabled) + "."
	if mms != nil {
		db.Device.WifiCallingMMSOverWifi = *mms
		msg += "\nMMS over Wi-Fi is now " + onOff(*mms) + "."
	}
	return msg, nil
}

// breakVPN connects the VPN and degrades its server, which slows mobile
// data. The details are the environment's shared default when the VPN
// connected here (or earlier with them), so later connections are slow
// too, as in tau2.
func breakVPN(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "break_vpn", args, nil); err != nil {
		return nil, err
	}
	db.vpnConnect()
	if db.Device.VPNDetails == nil {
		return nil, fmt.Errorf("'NoneType' object has no attribute 'server_performance'")
	}
	db.Device.VPNDetails.ServerPerformance = SignalPoor
	if db.vpnShared {
		db.vpnPoor = true
	}
	return "VPN connection broken.", nil
}

func removeAppPermission(db *UserDB, args domains.Args) (any, error) {
	name, perm, err := appPermissionArgs("remove_app_permission", args)
	if err != nil {
		return nil, err
	}
	a, ok := db.Device.AppStatuses.Get(name)
	if !ok {
		return out([]any{"False", fmt.Sprintf("App '%s' not found. Cannot remove permission.", name)})
	}
	p, known := a.permission(perm)
	if !known {
		return out([]any{"False", fmt.Sprintf("Permission '%s' not tracked for app '%s'.", perm, name)})
	}
	*p = false
	return out([]any{"True", fmt.Sprintf("Permission '%s' removed from app '%s'.", perm, name)})
}

// assertBool is an env assertion comparing a state of the phone with
// expected_status.
func assertBool(fn string, state func(*UserDB) bool) domains.ToolFunc[UserDB] {
	return func(db *UserDB, args domains.Args) (any, error) {
		if err := pycompat.CheckKwargs(userToolsClass, fn, args, []string{"expected_status"}); err != nil {
			return nil, err
		}
		want, err := boolean(args, "expected_status")
		if err != nil {
			return nil, err
		}
		return state(db) == want, nil
	}
}

func assertServiceStatus(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "assert_service_status", args, []string{"expected_status"}); err != nil {
		return nil, err
	}
	want, err := str(args, "expected_status")
	if err != nil {
		return nil, err
	}
	if oneOf("expected_status", want, networkStatuses()) != nil {
		return nil, fmt.Errorf("'%s' is not a valid NetworkStatus", want)
	}
	return db.Device.NetworkConnectionStatus == want, nil
}

func assertInternetSpeed(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "assert_internet_speed", args, []string{"expected_speed"}, "expected_desc"); err != nil {
		return nil, err
	}
	want, err := num(args, "expected_speed")
	if err != nil {
		return nil, err
	}
	speed, label, _ := db.speedTest()
	if v, ok := args["expected_desc"]; ok && v != nil {
		desc, err := str(args, "expected_desc")
		if err != nil {
			return nil, err
		}
		return speed >= want.f && strings.EqualFold(label, desc), nil
	}
	return speed >= want.f, nil
}

func assertInternetNotExcellent(db *UserDB, args domains.Args) (any, error) {
	if err := pycompat.CheckKwargs(userToolsClass, "assert_internet_not_excellent", args, nil); err != nil {
		return nil, err
	}
	_, label, _ := db.speedTest()
	return !strings.EqualFold(label, "excellent"), nil
}
