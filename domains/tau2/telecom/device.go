package telecom

import (
	"strconv"
	"strings"
)

// The device simulation rules (domains-spec.md 5.5): how the phone finds a
// network, whether mobile data and MMS work, how fast the connection is and
// what the status bar shows. They read the phone and the surroundings and
// change only the phone's network fields.

// simStatus is the SIM's effective status: missing when it is out of its
// slot, whatever its own status.
func (db *UserDB) simStatus() string {
	if db.Device.SIMCardMissing {
		return SIMMissing
	}
	return db.Device.SIMCardStatus
}

// searchNetwork is a network search: the phone connects with the
// technology its preference and the local signals give, unless the SIM,
// airplane mode, a broken APN or an inactive line keep it off the network.
func (db *UserDB) searchNetwork() {
	d, s := &db.Device, &db.Surroundings
	offline := func() {
		d.NetworkConnectionStatus = NetNoService
		d.NetworkTechnologyConnected = TechNone
		d.NetworkSignalStrength = SignalNone
	}
	if db.simStatus() == SIMActive {
		d.NetworkConnectionStatus = NetConnected
		tech := Tech4G // also the fallback for an unknown preference
		switch d.NetworkModePreference {
		case Mode4G5GPreferred:
			if sig, ok := s.SignalStrength[Tech5G]; ok && sig != SignalNone {
				tech = Tech5G
			}
		case Mode3GOnly:
			tech = Tech3G
		case Mode2GOnly:
			tech = Tech2G
		}
		d.NetworkTechnologyConnected = tech
		d.NetworkSignalStrength = s.signal(tech)
	} else {
		offline()
	}
	if d.AirplaneMode || d.ActiveAPNSettings.APNName == APNBroken || !s.LineActive {
		offline()
	}
}

// signal is the local signal of a technology; none where it has none.
func (s *Surroundings) signal(tech string) string {
	if sig, ok := s.SignalStrength[tech]; ok {
		return sig
	}
	return SignalNone
}

// mobileDataWorks says whether the phone can use mobile data.
func (db *UserDB) mobileDataWorks() bool {
	d, s := &db.Device, &db.Surroundings
	switch {
	case d.AirplaneMode, d.NetworkSignalStrength == SignalNone, d.NetworkConnectionStatus == NetNoService:
		return false
	case s.IsAbroad && (!d.RoamingEnabled || !s.RoamingAllowed):
		return false
	case !d.DataEnabled, s.MobileDataUsageExceeded:
		return false
	}
	return true
}

// speedTest is the simulated download speed in Mbps, rounded to two
// decimals, and its label; ok is false without a data connection.
func (db *UserDB) speedTest() (speed float64, label string, ok bool) {
	if !db.mobileDataWorks() {
		return 0, "No Connection", false
	}
	d := &db.Device
	factor := 1.0
	if d.VPNConnected && d.VPNDetails != nil && d.VPNDetails.ServerPerformance == SignalPoor {
		factor = 0.1
	}
	if d.DataSaverMode {
		factor *= 0.2
	}
	var lo, hi float64
	switch d.NetworkTechnologyConnected {
	case Tech2G:
		lo, hi = 0.1, 0.4
	case Tech3G:
		lo, hi = 1.0, 5.0
	case Tech4G:
		lo, hi = 10.0, 100.0
	case Tech5G:
		lo, hi = 50.0, 500.0
	}
	var sig float64
	switch d.NetworkSignalStrength {
	case SignalPoor:
		sig = 0.2
	case SignalFair:
		sig = 0.5
	case SignalGood:
		sig = 0.8
	case SignalExcellent:
		sig = 1.0
	}
	speed = pyRound2((lo + hi) / 2.0 * sig * factor)
	switch {
	case speed < 1:
		label = "Very Poor"
	case speed < 5:
		label = "Poor"
	case speed < 25:
		label = "Fair"
	case speed < 100:
		label = "Good"
	default:
		label = "Excellent"
	}
	return speed, label, true
}

// pyRound2 is Python's round(x, 2): the exact binary value rounded, ties to
// even (domains-spec.md 1.6).
func pyRound2(x float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// mmsWorks says whether the messaging app can send MMS.
func (db *UserDB) mmsWorks() bool {
	d := &db.Device
	if !db.mobileDataWorks() || d.NetworkTechnologyConnected == Tech2G {
		return false
	}
	if d.WifiCallingEnabled && d.WifiCallingMMSOverWifi {
		return false // the carrier does not carry MMS over Wi-Fi calling
	}
	if d.ActiveAPNSettings.MMSCURL == nil {
		return false
	}
	app, ok := d.AppStatuses.Get("messaging")
	return ok && app.Permissions.SMS && app.Permissions.Storage
}

// statusBar is the line of indicators at the top of the phone's screen.
func (db *UserDB) statusBar() string {
	d := &db.Device
	var parts []string
	if d.AirplaneMode {
		parts = append(parts, "\u2708\ufe0f Airplane Mode")
	} else {
		switch d.NetworkSignalStrength {
		case SignalPoor:
			parts = append(parts, "📶¹ Poor")
		case SignalFair:
			parts = append(parts, "📶² Fair")
		case SignalGood:
			parts = append(parts, "📶³ Good")
		case SignalExcellent:
			parts = append(parts, "📶⁴ Excellent")
		default:
			parts = append(parts, "📵 No Signal")
		}
		if d.NetworkTechnologyConnected != TechNone {
			parts = append(parts, d.NetworkTechnologyConnected)
		}
		if d.DataEnabled && d.NetworkTechnologyConnected != TechNone {
			parts = append(parts, "📱 Data Enabled")
			if d.DataSaverMode {
				parts = append(parts, "🔽 Data Saver")
			}
		} else {
			parts = append(parts, "📵 Data Disabled")
		}
	}
	if d.WifiEnabled && d.WifiConnected {
		if d.WifiSSID != nil && *d.WifiSSID != "" {
			parts = append(parts, "📡 Connected to "+*d.WifiSSID)
		} else {
			parts = append(parts, "📡 Enabled")
		}
	}
	if d.VPNConnected {
		parts = append(parts, "🔒 VPN Connected")
	}
	parts = append(parts, "🔋 "+strconv.FormatInt(int64(d.BatteryLevel), 10)+"%")
	return strings.Join(parts, " | ")
}

// withStatusBar is a write tool's message: what happened, then the status
// bar.
func (db *UserDB) withStatusBar(msg string) string {
	return msg + "\nStatus Bar: " + db.statusBar()
}
