package agentdial

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// TestLegacyIPv4Spellings: hosts that spell an IPv4 address the way
// inet_aton reads them are refused before any resolution, whatever the
// address, and the refusal names it; dotted quads, IPv6 and names are
// left to the dial-time check.
func TestLegacyIPv4Spellings(t *testing.T) {
	for _, tc := range []struct {
		host string
		want string // the address it spells; "" when it is no legacy spelling
		why  string // a piece of the refusal
	}{
		{"2130706433", "127.0.0.1", "loopback address"},
		{"0x7f000001", "127.0.0.1", "loopback address"},
		{"0X7F000001", "127.0.0.1", "loopback address"},
		{"017700000001", "127.0.0.1", "loopback address"},
		{"0177.0.0.1", "127.0.0.1", "loopback address"},
		{"0x7f.0.0.1", "127.0.0.1", "loopback address"},
		{"0x7f.1", "127.0.0.1", "loopback address"},
		{"127.1", "127.0.0.1", "loopback address"},
		{"127.0.1", "127.0.0.1", "loopback address"},
		{"127.0.0.1.", "", ""}, // canonical, fully qualified: the dial-time check has it
		{"2130706433.", "127.0.0.1", "loopback address"},
		{"10.1", "10.0.0.1", "private address"},
		{"0xa9fea9fe", "169.254.169.254", "cloud metadata service"},
		{"2852039166", "169.254.169.254", "cloud metadata service"},
		{"0251.0376.0251.0376", "169.254.169.254", "cloud metadata service"},
		{"100.0x40.0.1", "100.64.0.1", "carrier-grade NAT"},
		{"3232235777", "192.168.1.1", "private address"},
		{"0", "0.0.0.0", "unspecified address"},
		{"0x", "0.0.0.0", "unspecified address"},
		{"134744072", "8.8.8.8", "legacy spelling"}, // public, refused all the same

		{"127.0.0.1", "", ""},
		{"8.8.8.8", "", ""},
		{"::1", "", ""},
		{"localhost", "", ""},
		{"agent.example.com", "", ""},
		{"1e100.net", "", ""},
		{"0x7f.example", "", ""},
		{"4294967296", "", ""}, // beyond 32 bits: a name to the resolver
		{"256.0.0.1", "", ""},
		{"1.2.3.4.5", "", ""},
		{"08.0.0.1", "", ""}, // not octal
		{"+1", "", ""},
		{"1..1", "", ""},
		{"", "", ""},
	} {
		got, ok := LegacyIPv4(tc.host)
		if tc.want == "" {
			if ok {
				t.Errorf("%q read as %s, want no legacy spelling", tc.host, got)
			}
			if err := CheckHost(tc.host + ":80"); err != nil {
				t.Errorf("%q refused: %v", tc.host, err)
			}
			continue
		}
		if !ok || got != netip.MustParseAddr(tc.want) {
			t.Errorf("%q read as %v %v, want %s", tc.host, got, ok, tc.want)
		}
		err := CheckHost(tc.host + ":8080")
		var denied *DeniedError
		if !errors.As(err, &denied) || !errors.Is(err, ErrDenied) {
			t.Errorf("%q: %v, want a *DeniedError", tc.host, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), "write it as "+tc.want) {
			t.Errorf("%q: refusal %q does not say %q and the address", tc.host, err, tc.why)
		}
	}
}

// FuzzLegacyIPv4 reads arbitrary hosts: never a panic, never a dotted quad
// or an IPv6 address taken for a legacy spelling, and CheckHost refuses
// exactly what LegacyIPv4 reads of the host its address names (brackets
// and all: "[0]:1" names the host 0).
func FuzzLegacyIPv4(f *testing.F) {
	for _, s := range []string{"2130706433", "0x7f.1", "0177.0.0.1", "127.1", "127.0.0.1", "::1", "example.com", "0x", "00", "1.2.3.4.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		ip, ok := LegacyIPv4(host)
		if a, err := netip.ParseAddr(strings.TrimSuffix(host, ".")); err == nil && ok {
			t.Fatalf("%q (the address %s) read as the legacy spelling of %s", host, a, ip)
		}
		if ok && !ip.Is4() {
			t.Fatalf("%q read as %s, not IPv4", host, ip)
		}
		address := host + ":1"
		named, _, err := net.SplitHostPort(address)
		if err != nil {
			named = address
		}
		_, refuse := LegacyIPv4(named)
		if err := CheckHost(address); (err != nil) != refuse {
			t.Fatalf("%q: LegacyIPv4(%q) %v, CheckHost %v", address, named, refuse, err)
		}
	})
}
