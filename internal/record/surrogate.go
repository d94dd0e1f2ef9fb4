package record

import "bytes"

// A \u escape of a UTF-16 surrogate that is not one half of a pair (a high
// surrogate \ud800–\udbff not followed by a low one \udc00–\udfff, or a
// low one on its own) encodes no character. encoding/json and our
// decoders read it as U+FFFD, Python's json reads it as a lone surrogate
// it cannot write as UTF-8, and jq 1.6 refuses the line: a record passed
// on with one would break the next step of a pipeline. So Mend replaces
// each with \ufffd, the same six bytes long, which decodes to what
// encoding/json decodes the original to.

// nextLoneSurrogate returns the index in b of the first \u escape at or
// after from that is a lone surrogate, or -1. from must not be inside an
// escape. It reads escapes as they come, so a "\u" after an escaped
// backslash ("\\ud800") is text, not an escape. b is taken to be the text
// of a JSON value (a backslash outside a string is not JSON anyway). It
// costs a bytes.IndexByte per backslash: nothing more for a line without
// escapes, little for one whose strings have some.
func nextLoneSurrogate(b []byte, from int) int {
	i := from
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			return -1
		}
		i += j
		if i+1 >= len(b) || b[i+1] != 'u' {
			i += 2 // a two-byte escape: \" \\ \n …
			continue
		}
		r, ok := hex4(b, i+2)
		if !ok {
			i += 2
			continue
		}
		n, lone := uEscape(b, i, r)
		if lone {
			return i
		}
		i += n
	}
	return -1
}

// uEscape returns the length of the \u escape at b[i:] whose four hex
// digits read r: 12 for the first of a surrogate pair (the pair), else
// 6; lone is true for a surrogate that is not one of a pair.
func uEscape(b []byte, i int, r rune) (n int, lone bool) {
	if r&0xf800 != 0xd800 { // not a surrogate (utf16.IsSurrogate, cheaper)
		return 6, false
	}
	if r < 0xdc00 && i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
		if r2, ok := hex4(b, i+8); ok && 0xdc00 <= r2 && r2 <= 0xdfff {
			return 12, false
		}
	}
	return 6, true
}

// mendSurrogates replaces each lone surrogate escape in b with \ufffd, in
// place, starting with the one at i (nextLoneSurrogate's answer).
func mendSurrogates(b []byte, i int) {
	for i >= 0 {
		copy(b[i:], `\ufffd`)
		i = nextLoneSurrogate(b, i+6)
	}
}
