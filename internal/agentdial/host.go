package agentdial

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// CheckHost refuses, before any resolution, a dial address ("host:port")
// whose host spells an IPv4 address in one of the legacy forms that
// inet_aton and some resolvers and proxies accept: one to four parts,
// each decimal, octal (a leading 0) or hexadecimal (0x), the last filling
// the remaining bytes, as in "2130706433", "0x7f.1", "0177.0.0.1" or
// "127.1" (all 127.0.0.1). Where such a host leads depends on who resolves
// it, so the guard does not let it through, whatever address it spells;
// no agent needs it. A dotted-quad IPv4 address, an IPv6 address and a
// name are left to the dial-time check (Control). A refusal is a
// *DeniedError.
func CheckHost(address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, ok := LegacyIPv4(host)
	if !ok {
		return nil
	}
	why := fmt.Sprintf("%q is a legacy spelling of the IPv4 address %s; write it as %s", host, ip, ip)
	if r := deniedReason(ip); r != "" {
		why = fmt.Sprintf("%s, a %s", why, r)
	}
	return &DeniedError{Address: address, Reason: why}
}

// maxLegacyHost bounds the host LegacyIPv4 reads: four parts of eleven
// characters ("0xffffffff" and a dot) at most.
const maxLegacyHost = 64

// LegacyIPv4 reads host as inet_aton would, and returns the IPv4 address
// it spells when it spells one other than in the dotted-quad form
// (ok false for "127.0.0.1", a name, or anything else).
func LegacyIPv4(host string) (ip netip.Addr, ok bool) {
	host = strings.TrimSuffix(host, ".") // a fully qualified spelling
	if host == "" || len(host) > maxLegacyHost {
		return netip.Addr{}, false
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		return netip.Addr{}, false // the canonical form
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := legacyNumber(p)
		if !ok {
			return netip.Addr{}, false
		}
		bits := uint(8)
		if i == len(parts)-1 {
			bits = uint(8 * (5 - len(parts))) // the last part fills the rest
		}
		if n >= 1<<bits {
			return netip.Addr{}, false
		}
		v = v<<bits | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// legacyNumber reads one part of a legacy IPv4 spelling: decimal, octal
// with a leading 0, or hexadecimal with 0x (an empty "0x" is 0).
func legacyNumber(p string) (uint64, bool) {
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if p == "" || strings.ContainsAny(p, "+-_") {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}
