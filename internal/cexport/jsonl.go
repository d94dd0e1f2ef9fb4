package cexport

import (
	"bufio"

	"github.com/crawlutils/crawlutils/internal/record"
)

// jsonlExporter writes one compact JSON object per line (Scrapy's
// JsonLinesItemExporter).
type jsonlExporter struct {
	w   *bufio.Writer
	buf []byte
}

func (e *jsonlExporter) Begin() error { return nil }

func (e *jsonlExporter) Write(fields []record.Field) error {
	e.buf = append(appendObject(e.buf, fields), '\n')
	_, err := e.w.Write(e.buf)
	e.buf = trimBuf(e.buf)
	return err
}

func (e *jsonlExporter) Flush() error { return e.w.Flush() }

func (e *jsonlExporter) End() error { return e.w.Flush() }
