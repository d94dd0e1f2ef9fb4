package hostname

import (
	"net/netip"
	"testing"
)

// TestIPv4 holds IPv4 to what browsers answer (node's WHATWG URL, as
// Chromium and Firefox): "" is a host that ends in a number but is no
// address, "name" one that does not end in a number.
func TestIPv4(t *testing.T) {
	for host, want := range map[string]string{
		"2130706433":                 "127.0.0.1",
		"127.1":                      "127.0.0.1",
		"0x7f000001":                 "127.0.0.1",
		"0x7f.1":                     "127.0.0.1",
		"0177.0.0.1":                 "127.0.0.1",
		"127.0.0.1.":                 "127.0.0.1",
		"0":                          "0.0.0.0",
		"0x":                         "0.0.0.0",
		"0x.0x.0":                    "0.0.0.0",
		"1.0x":                       "1.0.0.0",
		"0x00000000000000000001":     "0.0.0.1",
		"00000000000000000000000001": "0.0.0.1",
		"169.254.43518":              "169.254.169.254",
		"0xA9FEA9FE":                 "169.254.169.254",
		"10.0.0.1":                   "10.0.0.1",
		"4294967295":                 "255.255.255.255",
		"4294967296":                 "",
		"0xffffffff1":                "",
		"99999999999999999999999999": "",
		"256.1.1.1":                  "",
		"1.256.1":                    "",
		"1.2.65536":                  "",
		"1.2.3.4.5":                  "",
		"example.123":                "",
		"foo.09":                     "",
		"09":                         "",
		"08.1":                       "",
		"127..1":                     "",
		"a.b.c.0x":                   "",
		"1e3":                        "name",
		"+1.1.1.1":                   "",
		"1.1.1.+1":                   "name",
		"127.0.0.1.example":          "name",
		"127.0.0.1..":                "name",
		"0x7g":                       "name",
		".":                          "name",
		"":                           "name",
		"shop.example":               "name",
	} {
		ip, isIPv4, ok := IPv4(host)
		got := "name"
		switch {
		case ok:
			got = ip.String()
		case isIPv4:
			got = ""
		}
		if got != want {
			t.Errorf("IPv4(%q) = %q; want %q", host, got, want)
		}
	}
}

// FuzzIPv4: a dotted quad netip reads is that address; any address is
// IPv4 and written as one that reads back as itself; a host that does not
// end in a number is none.
func FuzzIPv4(f *testing.F) {
	for _, s := range []string{"127.1", "0x7f000001", "1.2.3.4", "0", "4294967295", "0177.0.0.1.", "1.0x", "a.09", "0x00000000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		ip, isIPv4, ok := IPv4(host)
		if ok && (!isIPv4 || !ip.Is4()) {
			t.Fatalf("%q: %v, %v: not IPv4", host, ip, isIPv4)
		}
		if std, err := netip.ParseAddr(host); err == nil && std.Is4() && (!ok || ip != std) {
			t.Fatalf("%q: netip says %v, we say %v %v", host, std, ip, ok)
		}
		if ok {
			if again, _, ok2 := IPv4(ip.String()); !ok2 || again != ip {
				t.Fatalf("%q: %v, then %v %v", host, ip, again, ok2)
			}
		}
	})
}
