package cextract

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/sitemap"
	"github.com/crawlutils/crawlutils/internal/record"
)

// A large body is kept as it came until a rule needs it whole: a sitemap
// rule reads it as a stream, so that a 50 MB sitemap is never held decoded
// next to its record line (twice: unescaped, then copied to a string).
// A body of streamBodyFrom bytes or more is left in the record, its JSON
// string read unescaped as it is read (record.StringReader); a
// gzip-compressed body (body_base64) is kept compressed and read
// decompressed, in UTF-8 as the other bodies are (sitemap.DeclaredUTF8).

// streamBodyFrom is the size of a body's JSON string from which it is left
// in the record; smaller bodies, most pages, are decoded at once.
var streamBodyFrom = 1 << 20

// body is the text of a response, or where to read it from.
type body struct {
	text   string
	ok     bool   // text is the body
	quoted []byte // else the body's JSON string in the record (valid), or
	gz     []byte // the gzip data of a body_base64, known good
	size   int    // the length of the text; -1 until known
}

// whole returns the text, decoded at the first call.
func (b *body) whole() string {
	if !b.ok {
		var sb strings.Builder
		if b.size >= 0 {
			sb.Grow(b.size)
		} else {
			sb.Grow(len(b.quoted)) // a JSON string decodes to at most its length
		}
		io.Copy(&sb, b.open()) // the source is known good
		*b = body{text: sb.String(), ok: true, size: sb.Len()}
	}
	return b.text
}

// open returns a reader of the text.
func (b *body) open() io.Reader {
	switch {
	case b.ok:
		return strings.NewReader(b.text)
	case b.gz != nil:
		zr, err := sitemap.GunzipReader(bytes.NewReader(b.gz), sitemap.MaxSize)
		if err != nil { // checked when the page was made
			return strings.NewReader("")
		}
		// As it was served: cfetch converts text bodies to UTF-8, not
		// compressed ones.
		return sitemap.DeclaredUTF8(zr)
	}
	return record.NewStringReader(b.quoted)
}

// len returns the length of the text, counted at the first call when the
// body is still in the record.
func (b *body) len() int {
	if b.size < 0 {
		n, _ := io.Copy(io.Discard, b.open())
		b.size = int(n)
	}
	return b.size
}

// sniffSpace is what sniffFormat skips at the start of a body.
const sniffSpace = " \t\r\n\ufeff"

// head returns all sniffFormat reads of the text: its first 512 bytes
// after the leading white space and byte order marks.
func (b *body) head() string {
	const n = 512
	if b.ok {
		s := strings.TrimLeft(b.text, sniffSpace)
		return s[:min(len(s), n)]
	}
	br := bufio.NewReaderSize(b.open(), n+16)
	for {
		c, _, err := br.ReadRune()
		if err != nil {
			return ""
		}
		if !strings.ContainsRune(sniffSpace, c) {
			br.UnreadRune()
			break
		}
	}
	buf := make([]byte, n)
	k, _ := io.ReadFull(br, buf)
	return string(buf[:k])
}
