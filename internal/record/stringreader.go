package record

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// ErrBadString is what a StringReader reads where Unquote says !ok: the
// literal is not quoted, or has a bad escape.
var ErrBadString = errors.New("not a valid JSON string literal")

// StringReader reads the decoded content of a JSON string literal, as
// Unquote decodes it, without making a copy of it whole: for a large
// string, such as the body of a 50 MB sitemap, that is read once as a
// stream. The literal must already be known to be valid, as for Unquote.
type StringReader struct {
	s    []byte // the content not yet decoded, escaped
	pend []byte // decoded bytes that did not fit the caller's buffer
	buf  [utf8.UTFMax]byte
	err  error
}

// NewStringReader returns a reader of the decoded content of the string
// literal lit (quotes included); lit is read, never copied.
func NewStringReader(lit []byte) *StringReader {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return &StringReader{err: ErrBadString}
	}
	return &StringReader{s: lit[1 : len(lit)-1]}
}

// Read reads decoded bytes into p.
func (r *StringReader) Read(p []byte) (int, error) {
	n := copy(p, r.pend)
	r.pend = r.pend[n:]
	for n < len(p) && len(r.s) > 0 && r.err == nil {
		if r.s[0] == '\\' {
			c, size, ok := unescape(r.s)
			if !ok {
				r.err = ErrBadString
				break
			}
			r.s = r.s[size:]
			n += r.put(p[n:], utf8.AppendRune(r.buf[:0], c))
			continue
		}
		// The run up to the next escape or the end of p, not splitting
		// a rune, in one go when it is valid UTF-8.
		end := min(len(r.s), len(p)-n)
		if k := bytes.IndexByte(r.s[:end], '\\'); k >= 0 {
			end = k
		} else if end < len(r.s) {
			end = runeStart(r.s, end)
		}
		if run := r.s[:end]; end > 0 && utf8.Valid(run) {
			n += copy(p[n:], run)
			r.s = r.s[end:]
			continue
		}
		// Invalid UTF-8 in the run, or a rune larger than the room left:
		// rune by rune, a bad byte read as U+FFFD.
		for done := 0; (done < end || done == 0) && n < len(p); {
			c, size := utf8.DecodeRune(r.s)
			if c == utf8.RuneError && size == 1 {
				n += r.put(p[n:], utf8.AppendRune(r.buf[:0], c))
			} else {
				n += r.put(p[n:], r.s[:size])
			}
			r.s = r.s[size:]
			done += size
		}
	}
	switch {
	case n > 0:
		return n, nil
	case r.err != nil:
		return 0, r.err
	case len(r.s) == 0 && len(r.pend) == 0:
		return 0, io.EOF
	}
	return 0, nil
}

// put copies b into dst and keeps what does not fit for the next Read. b
// is at most one rune.
func (r *StringReader) put(dst, b []byte) int {
	n := copy(dst, b)
	r.pend = r.buf[:copy(r.buf[:], b[n:])] // b may be r.buf itself
	return n
}

// runeStart moves a cut of s at i back to the start of the rune it splits,
// if it splits one that could be valid.
func runeStart(s []byte, i int) int {
	for j := i; j > 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	return i
}
