package record

import (
	"encoding/json"
	"unicode/utf8"
)

// Records are UTF-8. encoding/json reads a string with invalid UTF-8 in it
// by replacing each bad byte with U+FFFD, and writes strings the same way;
// but a record passed on unchanged (its raw line) or a raw member written
// back (attrs, item data, unknown fields) would carry the bad bytes into the
// output, which is then not JSON. So Parse mends the lines it reads and
// Encode the raw members it writes, byte for byte as encoding/json decodes
// them: what a tool decodes from the mended line is what it would have
// decoded from the original.

// replacement is U+FFFD in UTF-8.
const replacement = "\uFFFD"

// ValidUTF8 returns b when it is valid UTF-8, else a copy of b with each
// byte that does not begin a valid UTF-8 sequence replaced by U+FFFD, as
// Encode mends a raw member: for writers that copy raw JSON by hand.
func ValidUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	start := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, b[start:i]...)
			out = append(out, replacement...)
			i++
			start = i
			continue
		}
		i += size
	}
	return append(out, b[start:]...)
}

// rawUTF8 reports whether the raw JSON members of a record, the only parts
// Encode copies rather than writes itself, are valid UTF-8. It is false
// for a value of another type, whose encoding must then be checked whole.
func rawUTF8(v any) bool {
	switch r := v.(type) {
	case *Request:
		return utf8.Valid(r.Attrs) && extraUTF8(r.Extra)
	case *Response:
		return utf8.Valid(r.Request) && utf8.Valid(r.RedirectRequest) && extraUTF8(r.Extra)
	case *Item:
		return utf8.Valid(r.Data) && utf8.Valid(r.Attrs) && extraUTF8(r.Extra)
	case *Ack:
		return extraUTF8(r.Extra)
	case Request:
		return rawUTF8(&r)
	case Response:
		return rawUTF8(&r)
	case Item:
		return rawUTF8(&r)
	case Ack:
		return rawUTF8(&r)
	}
	return false
}

// extraUTF8 reports whether the values of extra are valid UTF-8 (keys are
// written as strings, mended as any string is).
func extraUTF8(extra map[string]json.RawMessage) bool {
	for _, v := range extra {
		if !utf8.Valid(v) {
			return false
		}
	}
	return true
}
