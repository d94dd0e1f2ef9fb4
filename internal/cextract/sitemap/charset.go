package sitemap

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"io"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/transform"
)

// declaredHead is how much of a document DeclaredUTF8 reads for its XML
// declaration, as cfetch looks for one in a text body.
const declaredHead = 1024

// DeclaredUTF8 reads an XML document as its server sent it (a gzip-compressed
// sitemap or feed, which cfetch passes on undecoded) in UTF-8: converted from
// the encoding its XML declaration names (<?xml version="1.0"
// encoding="ISO-8859-1"?>; a WHATWG label, as cfetch reads a declaration),
// as lxml reads it. A document without a declaration, or that declares UTF-8
// or an encoding not known, is read as it is.
func DeclaredUTF8(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, declaredHead)
	head, _ := br.Peek(declaredHead)
	label := declaredEncoding(head)
	if label == "" {
		return br
	}
	enc, err := htmlindex.Get(label)
	if err != nil || enc == encoding.Replacement {
		return br
	}
	if name, _ := htmlindex.Name(enc); name == "utf-8" {
		return br
	}
	return transform.NewReader(br, enc.NewDecoder())
}

// declaredEncoding is the encoding the XML declaration at the start of head
// names, as encoding/xml reads the declaration, or "" (none, or UTF-8).
func declaredEncoding(head []byte) string {
	var label string
	dec := xml.NewDecoder(bytes.NewReader(head))
	dec.Strict = false
	dec.CharsetReader = func(l string, r io.Reader) (io.Reader, error) {
		label = l
		return r, nil
	}
	for label == "" {
		tok, err := dec.RawToken()
		if _, start := tok.(xml.StartElement); err != nil || start {
			break
		}
	}
	return label
}
