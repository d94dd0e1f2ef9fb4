// Package percent holds the hex digits and the percent-encoding steps
// that the URL canonicalizer (package fingerprint), robots.txt matching
// (package robots), link extraction (package cextract) and the JSON
// writers (package record) share, so that "%2f" means the same thing
// everywhere. Every function works on bytes, allocates nothing and is
// safe for concurrent use.
package percent

import "strings"

// Hex digits, indexed by value.
const (
	UpperHex = "0123456789ABCDEF"
	LowerHex = "0123456789abcdef"
)

// IsHex reports whether c is a hex digit, either case.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Unhex returns the value of the hex digit c, and false when c is not one.
func Unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// DecodeAt returns the byte that the escape "%XY" at s[i] stands for, and
// false when s[i:] does not start with '%' and two hex digits.
func DecodeAt(s string, i int) (byte, bool) {
	if i < 0 || i+2 >= len(s) || s[i] != '%' {
		return 0, false
	}
	h, ok1 := Unhex(s[i+1])
	l, ok2 := Unhex(s[i+2])
	return h<<4 | l, ok1 && ok2
}

// WriteEscape writes c as "%XY", upper-case hex as RFC 3986 recommends.
func WriteEscape(b *strings.Builder, c byte) {
	b.WriteByte('%')
	b.WriteByte(UpperHex[c>>4])
	b.WriteByte(UpperHex[c&15])
}

// AppendEscape appends c as "%XY", upper-case hex.
func AppendEscape(b []byte, c byte) []byte {
	return append(b, '%', UpperHex[c>>4], UpperHex[c&15])
}
