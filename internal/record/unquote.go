package record

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
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
	// b is the string's alone and never written again: the string is
	// made on it, not on a copy (as strings.Builder does), which saves
	// copying every response body a second time.
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// plainString reports whether the content of a string literal decodes to
// itself: no escapes, valid UTF-8.
func plainString(s []byte) bool {
	return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

// appendUnquoted appends the decoded content s of a string literal (without
// its quotes) to b.
func appendUnquoted(b, s []byte) ([]byte, bool) {
	run := 0 // s[run:i] is copied as it is when the next escape or bad byte comes
	i := 0
	for i < len(s) {
		// Plain ASCII: by table, eight bytes at a time while there are
		// eight.
		for i+8 <= len(s) && uqPlain[s[i]] && uqPlain[s[i+1]] && uqPlain[s[i+2]] && uqPlain[s[i+3]] &&
			uqPlain[s[i+4]] && uqPlain[s[i+5]] && uqPlain[s[i+6]] && uqPlain[s[i+7]] {
			i += 8
		}
		for i < len(s) && uqPlain[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		if s[i] >= utf8.RuneSelf {
			// Valid UTF-8 stays in the run; a bad byte is U+FFFD.
			if r, size := utf8.DecodeRune(s[i:]); r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(b, s[run:i]...)
			b = utf8.AppendRune(b, utf8.RuneError)
			i++
			run = i
			continue
		}
		// An escape.
		b = append(b, s[run:i]...)
		r, n, ok := unescape(s[i:])
		if !ok {
			return b, false
		}
		if r < utf8.RuneSelf {
			b = append(b, byte(r))
		} else {
			b = utf8.AppendRune(b, r)
		}
		i += n
		run = i
	}
	return append(b, s[run:]...), true
}

// uqPlain marks the bytes a string literal's content holds as they are:
// ASCII but the backslash.
var uqPlain = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c != '\\'
	}
	return t
}()

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
