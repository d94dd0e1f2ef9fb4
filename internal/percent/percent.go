// Package percent holds the hex digits and the percent-encoding steps
// that the URL canonicalizer (package fingerprint), robots.txt matching
// (package robots), link extraction (package cextract) and the JSON
// writers (package record) share, so that "%2f" means the same thing
// everywhere; and how a '%' that starts no escape is written (EscapeStray),
// which link extraction, cfetch and the records' bare URL lines share; and
// how a backslash reads in an http(s) URL (Slashes), for cfetch's
// redirects and cextract's links alike.
// Every function works on bytes and is safe for concurrent use; none
// allocates but EscapeStray and Slashes, for the string they return.
package percent

import (
	"net/url"
	"strings"
)

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

// EscapeStray writes each '%' that does not start an escape ('%' and two
// hex digits) as "%25", in the path of a URL (or reference) and in its
// fragment: net/url refuses such a '%' there ("/sale-50%-off"), where
// browsers, curl and servers take it for itself. The scheme, the
// authority (a host is no place for one) and the query (net/url takes a
// '%' there) are left as they are. s is returned as it is when it has
// none.
func EscapeStray(s string) string {
	start := 0
	if i := strings.IndexAny(s, ":/?#"); i > 0 && s[i] == ':' {
		start = i + 1 // the scheme
	}
	if strings.HasPrefix(s[start:], "//") {
		if i := strings.IndexAny(s[start+2:], "/?#"); i >= 0 {
			start += 2 + i
		} else {
			return s // the authority alone
		}
	}
	head, frag, hasFrag := strings.Cut(s[start:], "#")
	path, query, hasQuery := strings.Cut(head, "?")
	out := s[:start] + escapeStray(path)
	if hasQuery {
		out += "?" + query
	}
	if hasFrag {
		out += "#" + escapeStray(frag)
	}
	return out
}

// Slashes reads a URL or a reference resolved against an http or https
// URL as browsers do (the WHATWG URL standard) where that differs from
// RFC 3986: in an http or https URL a backslash before the query or the
// fragment is a slash (`\target` is `/target`, `\\host\` is `//host/`,
// `http:\\host\a` is `http://host/a`). A reference with another scheme
// (`mailto:a\b`) is returned as it is, and so is s when it has no
// backslash there. cfetch reads a redirect's Location so, cextract a
// link.
func Slashes(s string) string {
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	if strings.IndexByte(s[:end], '\\') < 0 || !specialRef(s) {
		return s
	}
	return strings.ReplaceAll(s[:end], "\\", "/") + s[end:]
}

// specialRef reports whether a reference resolved against an http(s) URL
// is an http(s) URL: it has no scheme, or one of those.
func specialRef(ref string) bool {
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		switch {
		case c == ':':
			if i == 0 {
				return true
			}
			scheme := strings.ToLower(ref[:i])
			return scheme == "http" || scheme == "https"
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return true // not a scheme: a relative reference
		}
	}
	return true
}

// escapeStray writes each '%' of s that starts no escape as "%25".
func escapeStray(s string) string {
	stray := func(i int) bool {
		return s[i] == '%' && (i+2 >= len(s) || !IsHex(s[i+1]) || !IsHex(s[i+2]))
	}
	first := -1
	for i := 0; i < len(s); i++ {
		if stray(i) {
			first = i
			break
		}
	}
	if first < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	b.WriteString(s[:first])
	for i := first; i < len(s); i++ {
		if stray(i) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ParseURL parses a URL (or a reference) as net/url does, but for a '%'
// that starts no escape, which it reads as itself (EscapeStray), and a
// tab or line break, which it leaves out (as the WHATWG URL standard,
// browsers and w3lib do: "http://shop.test/\na" is http://shop.test/a,
// where net/url refuses a control character), and an escaped letter,
// digit or other host character in the host, which it decodes (as
// browsers do: http://sh%6Fp.test/ is http://shop.test/; unescapeHost),
// as browsers, curl and
// w3lib's safe_url_string do: the one way every tool reads a URL it is
// given. Where net/url reads s, the URL is net/url's; the error is
// net/url's for s.
func ParseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		t := s
		if strings.ContainsAny(t, "\t\n\r") {
			t = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(t)
			if v, err2 := url.Parse(t); err2 == nil {
				return v, nil
			}
		}
		if h := unescapeHost(t); h != t {
			if v, err2 := url.Parse(h); err2 == nil {
				return v, nil
			}
			t = h
		}
		if v, err2 := url.Parse(EscapeStray(t)); err2 == nil {
			return v, nil
		}
	}
	return u, err
}

// unescapeHost decodes the escapes in s's host (a name, not an IPv6
// literal) of the ASCII characters a host name holds as themselves
// (letters, digits, "-._~" and "!$&'()*+,;="), as browsers do (the WHATWG
// URL standard percent-decodes a host before it reads it:
// http://sh%6Fp.test/ is http://shop.test/), where net/url refuses them.
// The others are left as they are: an escaped "/", ":", "@", control
// and so on is no part of a host (browsers refuse the URL, and net/url
// does), and net/url decodes the non-ASCII ones itself.
func unescapeHost(s string) string {
	i := strings.Index(s, "//")
	if i < 0 || strings.ContainsAny(s[:i], "/?#") {
		return s
	}
	start := i + 2
	end := len(s)
	if j := strings.IndexAny(s[start:], "/?#"); j >= 0 {
		end = start + j
	}
	if j := strings.LastIndexByte(s[start:end], '@'); j >= 0 {
		start += j + 1
	}
	if start < end && s[start] == '[' {
		return s
	}
	if j := strings.IndexByte(s[start:end], ':'); j >= 0 {
		end = start + j
	}
	host := s[start:end]
	if strings.IndexByte(host, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:start])
	for k := 0; k < len(host); k++ {
		if c, ok := DecodeAt(host, k); ok && c < 0x80 && hostByte(c) {
			b.WriteByte(c)
			k += 2
			continue
		}
		b.WriteByte(host[k])
	}
	b.WriteString(s[end:])
	return b.String()
}

// hostByte reports whether the ASCII byte c stands for itself in a host
// name: letters, digits, "-._~" and "!$&'()*+,;=".
func hostByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=", c) >= 0
}
