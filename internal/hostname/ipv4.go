package hostname

import (
	"net/netip"
	"strings"
)

// IPv4 reads host (in ASCII, lower case, without port) as the WHATWG URL
// standard's host parser does, and so browsers and glibc's inet_aton: a
// host whose last label is a number (decimal, octal with a leading 0, or
// hexadecimal with 0x) is an IPv4 address of one to four such parts, the
// last filling the bytes left: "2130706433", "127.1", "0x7f.1" and
// "0177.0.0.1" are all 127.0.0.1, and "127.0.0.1." is too. isIPv4 says
// whether host ends in a number; when it does but is no address
// ("example.123", "1.2.3.4.5", "256.0.0.1", "09"), ok is false, and the
// host is no host at all (browsers refuse the URL).
func IPv4(host string) (addr netip.Addr, isIPv4, ok bool) {
	if !endsInNumber(host) {
		return netip.Addr{}, false, false
	}
	addr, ok = parseIPv4(host)
	return addr, true, ok
}

// tooBig stands for any part over 32 bits: no part so big makes an
// address, and a part's digits may be many ("0x00000000000000000001").
const tooBig = 1 << 33

// endsInNumber is WHATWG URL's ends-in-a-number checker: the last label
// (a single trailing dot left out) is all decimal digits, or an IPv4
// number.
func endsInNumber(host string) bool {
	s := strings.TrimSuffix(host, ".")
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last == "" {
		return false
	}
	digits := true
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			digits = false
			break
		}
	}
	if digits {
		return true
	}
	_, ok := ipv4Number(last)
	return ok
}

// parseIPv4 is WHATWG URL's IPv4 parser, on a host that ends in a number.
func parseIPv4(host string) (netip.Addr, bool) {
	s := strings.TrimSuffix(host, ".")
	var parts [4]uint64
	n := 0
	for {
		label, rest, more := strings.Cut(s, ".")
		if n == len(parts) {
			return netip.Addr{}, false
		}
		v, ok := ipv4Number(label)
		if !ok {
			return netip.Addr{}, false
		}
		parts[n] = v
		n++
		if !more {
			break
		}
		s = rest
	}
	var v uint64
	for _, p := range parts[:n-1] {
		if p > 255 {
			return netip.Addr{}, false
		}
		v = v<<8 | p
	}
	bits := uint(8 * (5 - n))
	last := parts[n-1]
	if last >= 1<<bits {
		return netip.Addr{}, false
	}
	v = v<<bits | last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4Number is WHATWG URL's IPv4 number parser: decimal, octal after a
// leading 0, hexadecimal after 0x or 0X ("0x" alone is 0); no sign. A
// value over 32 bits is tooBig.
func ipv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		p, base = p[2:], 16
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	var n uint64
	for i := 0; i < len(p); i++ {
		c := p[i]
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		if n = n*base + d; n > tooBig {
			n = tooBig
		}
	}
	return n, true
}
