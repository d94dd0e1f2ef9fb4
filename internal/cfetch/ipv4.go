package cfetch

import (
	"net/netip"
	"strconv"
	"strings"
)

// parseIPv4Loose reads a host the way browsers (WHATWG URL's IPv4 parser)
// and glibc's inet_aton do: one to four parts, each decimal, octal (a
// leading 0) or hexadecimal (0x), the last filling the remaining bytes.
// "2130706433", "127.1", "0x7f000001" and "0177.0.0.1" are all 127.0.0.1
// to a proxy or resolver that takes them so, and must be judged as that
// address, not as a name.
func parseIPv4Loose(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v = v<<8 | n
	}
	rest := uint(8 * (5 - len(nums)))
	last := nums[len(nums)-1]
	if last >= 1<<rest {
		return netip.Addr{}, false
	}
	v = v<<rest | last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseIPv4Part reads one part: decimal, 0-prefixed octal or 0x hex ("0x"
// alone is 0, as in browsers); at most 32 bits.
func parseIPv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p[0] == '+' || p[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}
