package cexport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
)

// resumeXML finds where items go on in an XML document file.
//
// The prolog is read up to the root element's start tag. A complete
// document (its root's end tag starting the last line, as cexport writes
// it) is then found from the file's end alone: the items go on before that
// end tag, which is written again after them. cexport writes each item as
// one line (line breaks in text as &#xA;), so an end tag after a line break
// is never inside an item that a crash cut short. Any other file is read
// to the end: a document cut short is cut back to its last complete item
// (or to the root's start tag); a file that is not well-formed before its
// end, or not UTF-8, is refused.
// It reads the file's first end bytes (those before the NULs at its end).
func resumeXML(f io.ReaderAt, end int64) (resumePoint, error) {
	nul := &nulStop{r: io.NewSectionReader(f, 0, end)}
	d := xml.NewDecoder(nul)
	var root string
	for root == "" {
		tok, err := d.RawToken()
		if err != nil {
			if xmlCutShort(err) {
				return resumePoint{}, nil // no root element yet: a new export
			}
			return resumePoint{}, cannotAppend("%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			root = rawName(t.Name)
		case xml.EndElement:
			return resumePoint{}, cannotAppend("not an XML document: </%s> before any element", rawName(t.Name))
		}
	}
	rootEnd := d.InputOffset()
	base, tail, err := readTail(f, end)
	if err != nil {
		return resumePoint{}, err
	}
	rp, ok := xmlClosedAtEnd(base, tail, root, rootEnd)
	if !ok {
		rp, err = scanXMLItems(d, root, rootEnd)
		if nul.hit {
			rp.closed = false // the closing goes with what follows it
		}
	}
	rp.items = err == nil && hasContent(f, rootEnd, rp.keep)
	return rp, err
}

// xmlClosedAtEnd recognizes a complete document from its last bytes
// (tail, starting at offset base): the root's end tag, at the start of the
// last line. A NUL among them (see nulStop) leaves it to the scan.
func xmlClosedAtEnd(base int64, tail []byte, root string, rootEnd int64) (resumePoint, bool) {
	t := bytes.TrimRight(tail, blanks)
	closing := "</" + root + ">"
	i := len(t) - len(closing)
	if i < 0 || string(t[i:]) != closing || !startsLine(t, i) || bytes.IndexByte(t, 0) >= 0 {
		return resumePoint{}, false
	}
	for i > 0 && (t[i-1] == ' ' || t[i-1] == '\t') {
		i-- // its indentation goes with it
	}
	keep := base + int64(i)
	if keep < rootEnd {
		return resumePoint{}, false
	}
	return resumePoint{keep: keep, closed: true, opened: true, root: root}, true
}

// scanXMLItems reads the root element's content from d (just after its
// start tag, at offset rootEnd), checking that elements nest.
func scanXMLItems(d *xml.Decoder, root string, rootEnd int64) (resumePoint, error) {
	rp := resumePoint{keep: rootEnd, opened: true, root: root}
	var open []string // elements open inside the root
	for {
		before := d.InputOffset()
		tok, err := d.RawToken()
		if err != nil {
			if xmlCutShort(err) {
				return rp, nil
			}
			return rp, cannotAppend("%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			open = append(open, rawName(t.Name))
		case xml.EndElement:
			name, want := rawName(t.Name), root
			if len(open) > 0 {
				want = open[len(open)-1]
			}
			if name != want {
				return rp, cannotAppend("element <%s> closed by </%s> at byte %d", want, name, before)
			}
			if len(open) == 0 {
				if d.InputOffset() == rootEnd {
					return rp, cannotAppend("its root element <%s/> is empty and has no end tag", root)
				}
				rp.keep, rp.closed = before, true
				return rp, xmlAfterRoot(d)
			}
			open = open[:len(open)-1]
		}
		if len(open) == 0 {
			rp.keep = d.InputOffset()
		}
	}
}

// xmlAfterRoot checks that only blanks, comments and processing
// instructions follow the root element.
func xmlAfterRoot(d *xml.Decoder) error {
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return cannotAppend("%v", err)
		}
		switch t := tok.(type) {
		case xml.Comment, xml.ProcInst:
		case xml.CharData:
			if len(bytes.Trim(t, blanks)) > 0 {
				return cannotAppend("text after the root element, at byte %d", d.InputOffset())
			}
		default:
			return cannotAppend("more after the root element, at byte %d", d.InputOffset())
		}
	}
}

// xmlCutShort reports whether err says the document ended early.
func xmlCutShort(err error) bool {
	var se *xml.SyntaxError
	return err == io.EOF || errors.As(err, &se) && se.Msg == "unexpected EOF"
}

// rawName is an element name as written, prefix included.
func rawName(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}
