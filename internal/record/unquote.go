package record

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote decodes the JSON string literal s (quotes included) as
// encoding/json decodes it: invalid UTF-8 and lone surrogates become U+FFFD.
// s must already be known to be a valid string literal, such as a Field
// value from ScanObject that starts with '"': Unquote checks its quotes and
// escapes but not the rest of the grammar (control characters, an inner
// unescaped quote). ok is false when s is not a quoted string or has a bad
// escape.
func Unquote(s []byte) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	if plainString(s) {
		return string(s), true
	}
	b, ok := appendUnquoted(make([]byte, 0, len(s)), s)
	if !ok {
		return "", false
	}
	return string(b), true
}

// plainString reports whether the content of a string literal decodes to
// itself: no escapes, valid UTF-8.
func plainString(s []byte) bool {
	return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

// appendUnquoted appends the decoded content s of a string literal (without
// its quotes) to b.
func appendUnquoted(b, s []byte) ([]byte, bool) {
	for len(s) > 0 {
		// The run up to the next escape, in one go when it is valid UTF-8.
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			k = len(s)
		}
		if run := s[:k]; utf8.Valid(run) {
			b = append(b, run...)
		} else {
			for len(run) > 0 {
				r, size := utf8.DecodeRune(run)
				if r == utf8.RuneError && size == 1 {
					b = utf8.AppendRune(b, utf8.RuneError)
				} else {
					b = append(b, run[:size]...)
				}
				run = run[size:]
			}
		}
		s = s[k:]
		if len(s) == 0 {
			break
		}
		// An escape: the one-byte ones here, the others (\u) by unescape.
		if len(s) < 2 {
			return b, false
		}
		switch s[1] {
		case '"', '\\', '/':
			b = append(b, s[1])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		default:
			r, n, ok := unescape(s)
			if !ok {
				return b, false
			}
			b = utf8.AppendRune(b, r)
			s = s[n:]
			continue
		}
		s = s[2:]
	}
	return b, true
}

// unescape decodes the escape at the start of s (s[0] == '\\'): the rune
// and how many bytes of s it takes; a surrogate pair is one rune, a lone
// surrogate U+FFFD, as encoding/json decodes them. ok is false for a bad
// escape.
func unescape(s []byte) (r rune, n int, ok bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	switch s[1] {
	case '"', '\\', '/':
		return rune(s[1]), 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
		r, ok := hex4(s, 2)
		if !ok {
			return 0, 0, false
		}
		if !utf16.IsSurrogate(r) {
			return r, 6, true
		}
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r2, ok := hex4(s, 8); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return dec, 12, true
				}
			}
		}
		return utf8.RuneError, 6, true
	}
	return 0, 0, false
}

// hex4 decodes the four hex digits of a \u escape at s[i:].
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
