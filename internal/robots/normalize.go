package robots

import "strings"

// normalizePattern percent-normalizes a rule's path pattern (see
// normalize). '*' is kept, as is a final '$' (the anchor); any other '$'
// is a literal one and becomes %24, as it is in a target.
func normalizePattern(p string) string { return normalize(p, true) }

// normalizeTarget percent-normalizes a URL's path and query (see
// normalize). '*' and '$' become %2A and %24: a rule names them literally
// so (RFC 9309 §2.2.3), and a literal one in a rule is normalized the same.
func normalizeTarget(t string) string { return normalize(t, false) }

// normalize rewrites s so that rules and URLs compare as RFC 9309 §2.2.2
// says: octets outside printable US-ASCII (and a '%' that starts no
// escape) are percent-encoded, escapes are written in upper-case hex, and
// an escaped unreserved character (ALPHA, DIGIT, "-", ".", "_", "~") is
// decoded. Escaped reserved characters stay escaped: %2F is not '/'.
func normalize(s string, pattern bool) string {
	special := func(i int) bool {
		switch s[i] {
		case '*':
			return !pattern
		case '$':
			return !pattern || i != len(s)-1
		}
		return false
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c < 0x21 || c >= 0x7f || special(i) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			if v := unhex(s[i+1])<<4 | unhex(s[i+2]); isUnreserved(v) {
				b.WriteByte(v)
			} else {
				writeEscape(&b, v)
			}
			i += 2
		case c == '%' || c < 0x21 || c >= 0x7f || special(i):
			writeEscape(&b, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

const upperHex = "0123456789ABCDEF"

func writeEscape(b *strings.Builder, c byte) {
	b.WriteByte('%')
	b.WriteByte(upperHex[c>>4])
	b.WriteByte(upperHex[c&15])
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
