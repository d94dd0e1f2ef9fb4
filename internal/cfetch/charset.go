package cfetch

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/crawlutils/crawlutils/internal/ascii"
)

// Where a body's charset came from (the record's encoding_source).
const (
	SourceHeader  = "header"  // Content-Type charset parameter
	SourceBOM     = "bom"     // byte order mark
	SourceMeta    = "meta"    // <meta charset>, <meta http-equiv>, or <?xml encoding?>
	SourceSniff   = "sniff"   // detected from the bytes
	SourceDefault = "default" // nothing to go on: UTF-8 if valid, else windows-1252
)

// charsetDecision is the charset a text body is decoded from.
type charsetDecision struct {
	enc      encoding.Encoding
	name     string // canonical lower-case name: utf-8, shift_jis, windows-1252, …
	source   string
	skip     int // length of a BOM to drop
	warnings []string
}

const (
	// prescanLen is how much of a body is searched for <meta charset>
	// wherever it is, as browsers do; past it, only while the <head> lasts.
	prescanLen = 1024
	// headScanLen bounds the search in a long <head>.
	headScanLen = 1 << 20
	// sniffLen is how much of an undeclared body detection looks at.
	sniffLen = 64 << 10
)

// decideCharset picks the charset of a text body, in the order browsers use:
// a byte order mark, the Content-Type charset, a declaration (in the first
// 1024 bytes, or, in HTML, later in a long <head>), then detection. An XML
// document (isXML) is read as XML parsers read it: its XML declaration
// comes before any <meta>. An unknown declared charset is a warning, never
// a failure.
func decideCharset(data []byte, headerCharset string, isHTML, isXML bool) charsetDecision {
	var d charsetDecision
	for _, b := range boms {
		if bytes.HasPrefix(data, b.bom) {
			d.enc, d.name = lookupCharset(b.name)
			d.source, d.skip = SourceBOM, len(b.bom)
			return d
		}
	}
	if headerCharset != "" {
		if enc, name := lookupCharset(headerCharset); enc != nil {
			d.enc, d.name, d.source = enc, name, SourceHeader
			return d
		}
		d.warnings = append(d.warnings, fmt.Sprintf("unknown charset %q", headerCharset))
	}
	label, unknown := declaredCharset(data, isHTML, isXML)
	for _, u := range unknown {
		d.warnings = append(d.warnings, fmt.Sprintf("unknown charset %q", u))
	}
	if label != "" {
		enc, name := lookupCharset(label)
		switch {
		case strings.HasPrefix(name, "utf-16"):
			// A document that can declare its charset in ASCII is not UTF-16.
			enc, name = unicode.UTF8, "utf-8"
		case name == "x-user-defined":
			// As the HTML standard's prescan says: only a header may
			// ask for the charset that maps bytes to private-use letters.
			enc, name = charmap.Windows1252, "windows-1252"
		}
		d.enc, d.name, d.source = enc, name, SourceMeta
		return d
	}
	d.enc, d.name, d.source = sniffCharset(data, isHTML)
	return d
}

// declaredCharset returns the charset a body declares in its markup, a
// <meta> (see prescanCharset) or an XML declaration, and the unknown labels
// it met. An XML document's declaration comes first, as XML parsers read
// it; in HTML the <meta> does, as in Chrome.
func declaredCharset(data []byte, isHTML, isXML bool) (label string, unknown []string) {
	head := data[:min(len(data), prescanLen)]
	decl := xmlDeclEncoding(head)
	if decl != "" {
		if enc, _ := lookupCharset(decl); enc == nil {
			unknown, decl = append(unknown, decl), ""
		}
	}
	if isXML && decl != "" {
		return decl, unknown
	}
	if !isHTML || isXML {
		data = head // only HTML is searched past the first 1024 bytes
	}
	label, metaUnknown := prescanCharset(data)
	unknown = append(unknown, metaUnknown...)
	if label == "" {
		label = decl
	}
	return label, unknown
}

var boms = []struct {
	bom  []byte
	name string
}{
	{[]byte{0xef, 0xbb, 0xbf}, "utf-8"},
	{[]byte{0xfe, 0xff}, "utf-16be"},
	{[]byte{0xff, 0xfe}, "utf-16le"},
}

// lookupCharset returns the encoding for a WHATWG label and its canonical
// name, or nil for unknown labels and for the "replacement" encoding (which
// would turn the whole body into one U+FFFD). The encoding of gbk (and of
// gb2312, which means gbk) decodes as gb18030, as the Encoding Standard's
// gbk decoder does: x/text's GBK does not read four-byte sequences.
func lookupCharset(label string) (encoding.Encoding, string) {
	enc, err := htmlindex.Get(label)
	if err != nil || enc == encoding.Replacement {
		return nil, ""
	}
	name, err := htmlindex.Name(enc)
	if err != nil {
		return nil, ""
	}
	if enc == simplifiedchinese.GBK {
		enc = simplifiedchinese.GB18030
	}
	return enc, strings.ToLower(name)
}

func hasHighBit(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// utf8Text returns data, less its BOM, when it needs no conversion: valid
// UTF-8 decided as UTF-8, or ASCII in a single-byte charset that extends
// ASCII (windows-1252 declared on an English page). The text is data
// itself, not a copy.
func utf8Text(d charsetDecision, data []byte) ([]byte, bool) {
	data = data[d.skip:]
	switch {
	case d.name == "utf-8" || d.enc == nil:
		return data, utf8.Valid(data)
	case !hasHighBit(data) && extendsASCII(d.enc):
		return data, true
	}
	return nil, false
}

// extendsASCII reports whether enc is a single-byte charset that decodes
// the bytes below 0x80 to themselves.
func extendsASCII(enc encoding.Encoding) bool {
	cm, ok := enc.(*charmap.Charmap)
	if !ok {
		return false
	}
	for b := range utf8.RuneSelf {
		if cm.DecodeByte(byte(b)) != rune(b) {
			return false
		}
	}
	return true
}

// decodeText converts data from the decided charset to UTF-8 (data itself
// when utf8Text says it needs no conversion); invalid bytes become
// U+FFFD. The text is made in one buffer of decodedSize bytes unless the
// estimate is short.
func decodeText(d charsetDecision, data []byte) []byte {
	if text, ok := utf8Text(d, data); ok {
		return text
	}
	size := decodedSize(d, data)
	data = data[d.skip:]
	enc := d.enc
	if d.name == "utf-8" || enc == nil {
		enc = unicode.UTF8
	}
	out, _, err := transform.Append(enc.NewDecoder(), make([]byte, 0, size), data)
	if err != nil {
		return []byte(strings.ToValidUTF8(string(data), "\uFFFD"))
	}
	return out
}

// decodedSize is the length of decodeText's result: exact for a
// single-byte charset, else an estimate (one and a half times the bytes:
// two bytes of UTF-16 or of a CJK charset become at most three).
func decodedSize(d charsetDecision, data []byte) int {
	data = data[d.skip:]
	cm, ok := d.enc.(*charmap.Charmap)
	if !ok || d.name == "utf-8" {
		return len(data) + len(data)/2
	}
	var extra [256]int // bytes added by each byte value
	for b := utf8.RuneSelf; b < 256; b++ {
		extra[b] = utf8.RuneLen(cm.DecodeByte(byte(b))) - 1
	}
	n := len(data)
	for _, b := range data {
		n += extra[b]
	}
	return n
}

// prescanCharset finds the charset declared by a <meta charset> or
// <meta http-equiv="Content-Type" content="…; charset=…"> as the HTML
// standard's prescan does: anywhere in the first 1024 bytes, and past them
// while only elements of a <head> have come (title, script, style, link,
// meta, base, noscript, object), as Chrome does and as Firefox does by
// reloading the page. It returns the first known label, and the unknown
// labels it met before it.
func prescanCharset(data []byte) (label string, unknown []string) {
	data = data[:min(len(data), headScanLen)]
	if !bytes.Contains(data, []byte("<")) {
		return "", nil
	}
	z := html.NewTokenizer(bytes.NewReader(data))
	consumed, inHead := 0, true
	for {
		if !inHead && consumed >= prescanLen {
			return "", unknown
		}
		tt := z.Next()
		consumed += len(z.Raw())
		switch tt {
		case html.ErrorToken:
			return "", unknown
		case html.EndTagToken:
			name, _ := z.TagName()
			inHead = inHead && headElement(string(name), true)
			continue
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" {
				inHead = inHead && headElement(string(name), false)
				continue
			}
			var charset, content string
			var pragma, seenCharset, seenContent bool
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "http-equiv":
					pragma = pragma || strings.EqualFold(string(v), "content-type")
				case "content":
					if !seenContent {
						content, seenContent = string(v), true
					}
				case "charset":
					if !seenCharset {
						charset, seenCharset = string(v), true
					}
				}
			}
			got := strings.TrimSpace(charset)
			if !seenCharset {
				if !pragma || !seenContent {
					continue
				}
				got = charsetFromContent(content)
			}
			if got == "" {
				continue
			}
			if enc, _ := lookupCharset(got); enc == nil {
				unknown = append(unknown, got)
				continue
			}
			return got, unknown
		}
	}
}

// headElement reports whether a tag leaves a document in its <head> for
// prescanCharset: the elements a <head> holds, and the start tags of <html>
// and <head> themselves.
func headElement(name string, end bool) bool {
	switch name {
	case "title", "script", "style", "link", "meta", "base", "noscript", "object":
		return true
	case "html", "head":
		return !end
	}
	return false
}

// charsetFromContent extracts charset=… from a meta content attribute
// ("text/html; charset=shift_jis").
func charsetFromContent(s string) string {
	for {
		i := strings.Index(ascii.Lower(s), "charset")
		if i < 0 {
			return ""
		}
		s = strings.TrimLeft(s[i+len("charset"):], " \t\n\f\r")
		if !strings.HasPrefix(s, "=") {
			continue
		}
		s = strings.TrimLeft(s[1:], " \t\n\f\r")
		if s == "" {
			return ""
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return ""
			}
			return s[1 : 1+end]
		}
		if end := strings.IndexAny(s, "; \t\n\f\r"); end >= 0 {
			return s[:end]
		}
		return s
	}
}

// xmlDeclEncoding returns the encoding of an XML declaration at the start
// of head (<?xml version="1.0" encoding="Shift_JIS"?>), or "".
func xmlDeclEncoding(head []byte) string {
	s := bytes.TrimLeft(head, " \t\r\n")
	if !bytes.HasPrefix(s, []byte("<?xml")) {
		return ""
	}
	end := bytes.Index(s, []byte("?>"))
	if end < 0 {
		return ""
	}
	decl := string(s[len("<?xml"):end])
	i := strings.Index(decl, "encoding")
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if !strings.HasPrefix(rest, "=") {
		return ""
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
		return ""
	}
	q := rest[0]
	closing := strings.IndexByte(rest[1:], q)
	if closing < 0 {
		return ""
	}
	return strings.TrimSpace(rest[1 : 1+closing])
}
