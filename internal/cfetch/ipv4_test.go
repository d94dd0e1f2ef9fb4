package cfetch

import (
	"net/netip"
	"testing"
)

func TestParseIPv4Loose(t *testing.T) {
	for host, want := range map[string]string{
		"2130706433":        "127.0.0.1",
		"127.1":             "127.0.0.1",
		"0x7f000001":        "127.0.0.1",
		"0x7f.1":            "127.0.0.1",
		"0177.0.0.1":        "127.0.0.1",
		"0":                 "0.0.0.0",
		"169.254.43518":     "169.254.169.254",
		"0xA9FEA9FE":        "169.254.169.254",
		"10.0.0.1":          "10.0.0.1",
		"8.8.8.8":           "8.8.8.8",
		"4294967295":        "255.255.255.255",
		"4294967296":        "",
		"256.1.1.1":         "",
		"1.2.3.4.5":         "",
		"shop.example":      "",
		"1e3":               "",
		"09.1.1.1":          "",
		"+1.1.1.1":          "",
		"127.0.0.1.example": "",
		"":                  "",
	} {
		ip, ok := parseIPv4Loose(host)
		got := ""
		if ok {
			got = ip.String()
		}
		if got != want {
			t.Errorf("parseIPv4Loose(%q) = %q, want %q", host, got, want)
		}
	}
}

// FuzzParseIPv4Loose: a dotted-quad answer agrees with netip, and any
// answer is a valid IPv4 address.
func FuzzParseIPv4Loose(f *testing.F) {
	for _, s := range []string{"127.1", "0x7f000001", "1.2.3.4", "0", "4294967295"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		ip, ok := parseIPv4Loose(host)
		if ok && !ip.Is4() {
			t.Fatalf("%q: %v is not IPv4", host, ip)
		}
		if std, err := netip.ParseAddr(host); err == nil && std.Is4() && (!ok || ip != std) {
			t.Fatalf("%q: netip says %v, we say %v %v", host, std, ip, ok)
		}
	})
}
