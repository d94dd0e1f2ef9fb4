package record

import (
	"bytes"
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
// decoded from the original. The same goes for an escaped lone surrogate
// (see surrogate.go).

// replacement is U+FFFD in UTF-8.
const replacement = "\uFFFD"

// Mend returns b when it is valid UTF-8 without a lone surrogate escape
// ("\ud800" not followed by a low surrogate, or "\udc00" alone), else a
// copy of b with each byte that does not begin a valid UTF-8 sequence
// replaced by U+FFFD and each lone surrogate escape by \ufffd, as Parse
// mends a line and Encode a raw member: for writers that copy raw JSON by
// hand. b is JSON text, or what should be.
func Mend(b []byte) []byte {
	out, copied := validUTF8(b)
	i := nextLoneSurrogate(out, 0)
	if i < 0 {
		return out
	}
	if !copied {
		out = bytes.Clone(out)
	}
	mendSurrogates(out, i)
	return out
}

// validText reports whether Mend would return b as it is.
func validText(b []byte) bool {
	return utf8.Valid(b) && nextLoneSurrogate(b, 0) < 0
}

// validUTF8 returns b when it is valid UTF-8, else a copy (copied true)
// with each byte that does not begin a valid UTF-8 sequence replaced by
// U+FFFD.
func validUTF8(b []byte) (out []byte, copied bool) {
	if utf8.Valid(b) {
		return b, false
	}
	out = make([]byte, 0, len(b)+16)
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
	return append(out, b[start:]...), true
}

// rawValid reports whether the raw JSON members of a record, the only parts
// Encode copies rather than writes itself, need no mending (validText). It
// is false for a value of another type, whose encoding must then be
// checked whole.
func rawValid(v any) bool {
	switch r := v.(type) {
	case *Request:
		return validText(r.Attrs) && extraValid(r.Extra)
	case *Response:
		return validText(r.Request) && validText(r.RedirectRequest) && extraValid(r.Extra)
	case *Item:
		return validText(r.Data) && validText(r.Attrs) && extraValid(r.Extra)
	case *Ack:
		return extraValid(r.Extra)
	case Request:
		return rawValid(&r)
	case Response:
		return rawValid(&r)
	case Item:
		return rawValid(&r)
	case Ack:
		return rawValid(&r)
	}
	return false
}

// extraValid reports whether the values of extra need no mending (keys are
// written as strings, mended as any string is).
func extraValid(extra map[string]json.RawMessage) bool {
	for _, v := range extra {
		if !validText(v) {
			return false
		}
	}
	return true
}
