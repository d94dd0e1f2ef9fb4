package cexport

import (
	"bufio"

	"github.com/crawlutils/crawlutils/internal/record"
)

// jsonExporter writes one JSON array in the shape of Scrapy's
// JsonItemExporter: "[", one item per line separated by ",", "]". The array
// is opened with the first item, so an empty export is "[]".
type jsonExporter struct {
	w   *bufio.Writer
	n   int
	buf []byte
}

func (e *jsonExporter) Begin() error { return nil }

func (e *jsonExporter) Write(fields []record.Field) error {
	sep := ",\n"
	if e.n == 0 {
		sep = "[\n"
	}
	e.n++
	e.buf = appendObject(append(e.buf, sep...), fields)
	_, err := e.w.Write(e.buf)
	e.buf = trimBuf(e.buf)
	return err
}

func (e *jsonExporter) Flush() error { return e.w.Flush() }

func (e *jsonExporter) End() error {
	end := "\n]\n"
	if e.n == 0 {
		end = "[]\n"
	}
	if _, err := e.w.WriteString(end); err != nil {
		return err
	}
	return e.w.Flush()
}
