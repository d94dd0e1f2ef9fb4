package cexport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/crawlutils/crawlutils/internal/record"
)

// xmlExporter writes items in the shape of Scrapy's XmlItemExporter:
//
//	<?xml version="1.0" encoding="utf-8"?>
//	<items>
//	<item><name>Color TV</name><tags><value>a</value><value>b</value></tags></item>
//	</items>
//
// Objects become nested elements, array members <value> elements, null an
// empty element. Keys that are not XML names are made into one (xmlName)
// and reported once each. Each item is one line. Appending to a document
// file, the items go on before the root's end tag.
type xmlExporter struct {
	w          *bufio.Writer
	seal       func(closing string) error
	root, item string
	// opened says the prolog and the root's start tag are written (or in
	// the file appended to).
	opened bool
	names  map[string]string // key → element name, for the keys seen first
	warned *warnOnce
	buf    []byte
}

// maxNames bounds the key → element name cache.
const maxNames = 4096

func newXMLExporter(o *Options, t exportTarget) *xmlExporter {
	e := &xmlExporter{
		w: t.w, seal: t.seal, root: o.XMLRoot, item: o.XMLItem,
		opened: t.resumed.opened,
		names:  map[string]string{},
		warned: t.xmlNames,
	}
	if e.warned == nil {
		e.warned = &warnOnce{}
	}
	if e.warned.warn == nil {
		e.warned.warn, e.warned.what = t.warn, "keys that are not XML names"
	}
	if r := t.resumed.root; r != "" && r != e.root {
		if t.warn != nil {
			t.warn("%s: its root element is <%s>, not <%s> (--xml-root): the items go on in <%s>", t.name, r, e.root, r)
		}
		e.root = r
	}
	return e
}

func (e *xmlExporter) Begin() error {
	if e.opened {
		return nil
	}
	e.opened = true
	_, err := fmt.Fprintf(e.w, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<%s>\n", e.root)
	return err
}

func (e *xmlExporter) Write(fields []record.Field) error {
	b := append(e.buf, '<')
	b = append(b, e.item...)
	b = append(b, '>')
	for _, f := range fields {
		b = e.appendElement(b, e.elementName(f.Key), f.Value)
	}
	b = append(b, "</"...)
	b = append(b, e.item...)
	b = append(b, ">\n"...)
	_, err := e.w.Write(b)
	e.buf = trimBuf(b)
	return err
}

func (e *xmlExporter) closing() string { return "</" + e.root + ">\n" }

func (e *xmlExporter) Flush() error {
	if err := e.w.Flush(); err != nil {
		return err
	}
	if e.seal != nil {
		return e.seal(e.closing())
	}
	return nil
}

func (e *xmlExporter) End() error {
	if e.seal == nil {
		if _, err := e.w.WriteString(e.closing()); err != nil {
			return err
		}
	}
	return e.Flush()
}

// elementName is xmlName with a cache and a warning the first time a key
// had to be changed.
func (e *xmlExporter) elementName(key string) string {
	if n, ok := e.names[key]; ok {
		return n
	}
	n, changed := xmlName(key)
	if changed {
		e.warned.do(key, "key %q is not a valid XML name; written as <%s>", key, n)
	}
	if len(e.names) < maxNames {
		e.names[key] = n
	}
	return n
}

// appendElement appends <name>value</name>. Scalars are written directly;
// objects and arrays are walked with a json.Decoder (one pass, numbers
// kept as written).
func (e *xmlExporter) appendElement(b []byte, name string, v json.RawMessage) []byte {
	switch v[0] {
	case '{', '[':
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		b, _ = e.appendDecoded(b, name, dec)
		return b
	case '"':
		b = appendStart(b, name)
		b = appendXMLText(b, jsonString(v))
		return appendEnd(b, name)
	case 'n':
		return appendEnd(appendStart(b, name), name)
	}
	// number, true, false: ASCII, nothing to escape
	return appendEnd(append(appendStart(b, name), v...), name)
}

// appendDecoded appends the next value of dec as element name. The value
// is known to be valid JSON; an error (which cannot happen) ends the walk.
func (e *xmlExporter) appendDecoded(b []byte, name string, dec *json.Decoder) ([]byte, error) {
	tok, err := dec.Token()
	if err != nil {
		return b, err
	}
	b = appendStart(b, name)
	switch t := tok.(type) {
	case json.Delim: // '{' or '['
		for dec.More() {
			child := "value"
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return b, err
				}
				child = e.elementName(k.(string))
			}
			if b, err = e.appendDecoded(b, child, dec); err != nil {
				return b, err
			}
		}
		if _, err := dec.Token(); err != nil { // '}' or ']'
			return b, err
		}
	case string:
		b = appendXMLText(b, t)
	case json.Number:
		b = append(b, t...)
	case bool:
		b = fmt.Append(b, t)
	case nil:
	}
	return appendEnd(b, name), nil
}

func appendStart(b []byte, name string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	return append(b, '>')
}

func appendEnd(b []byte, name string) []byte {
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}
