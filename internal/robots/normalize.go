package robots

import (
	"strings"

	"github.com/crawlutils/crawlutils/internal/percent"
)

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
		if v, ok := percent.DecodeAt(s, i); ok {
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				percent.WriteEscape(&b, v)
			}
			i += 2
			continue
		}
		if c == '%' || c < 0x21 || c >= 0x7f || special(i) {
			percent.WriteEscape(&b, c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
