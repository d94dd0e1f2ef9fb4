package cexport

import (
	"bufio"

	"github.com/crawlutils/crawlutils/internal/record"
)

// jsonExporter writes one JSON array in the shape of Scrapy's
// JsonItemExporter: "[", one item per line separated by ",", "]". The array
// is opened with the first item, so an empty export is "[]". Appending to
// an array file, the items go on after its last one.
type jsonExporter struct {
	w    *bufio.Writer
	seal func(closing string) error
	// opened says the "[" is written (or in the file appended to); items
	// says an item is.
	opened, items bool
	buf           []byte
}

func newJSONExporter(t exportTarget) *jsonExporter {
	return &jsonExporter{w: t.w, seal: t.seal, opened: t.resumed.opened, items: t.resumed.items}
}

func (e *jsonExporter) Begin() error { return nil }

func (e *jsonExporter) Write(fields []record.Field) error {
	sep := ",\n"
	switch {
	case !e.opened:
		sep = "[\n"
	case !e.items:
		sep = "\n"
	}
	e.opened, e.items = true, true
	e.buf = appendObject(append(e.buf, sep...), fields)
	_, err := e.w.Write(e.buf)
	e.buf = trimBuf(e.buf)
	return err
}

// closing ends the array as it stands.
func (e *jsonExporter) closing() string {
	switch {
	case !e.opened:
		return "[]\n"
	case !e.items:
		return "]\n"
	}
	return "\n]\n"
}

func (e *jsonExporter) Flush() error {
	if err := e.w.Flush(); err != nil {
		return err
	}
	if e.seal != nil {
		return e.seal(e.closing())
	}
	return nil
}

func (e *jsonExporter) End() error {
	if e.seal == nil {
		if _, err := e.w.WriteString(e.closing()); err != nil {
			return err
		}
	}
	return e.Flush()
}
