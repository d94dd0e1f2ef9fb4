package cexport

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"

	"github.com/crawlutils/crawlutils/internal/record"
)

// csvExporter writes items as CSV rows (Scrapy's CsvItemExporter), LF line
// endings. The header is --fields, or the header of the file being appended
// to, or else the fields of the first item that has any. Items with no
// fields that come before the header is known are written as empty rows as
// soon as it is.
type csvExporter struct {
	w  *bufio.Writer
	cw *csv.Writer
	// rows writes a row in the format (csv, tsv, markdown).
	rows    rowFormat
	csvSafe bool

	header      []string
	column      map[string]int
	writeHeader bool
	// notIn, when set, says where the header came from in the warning about
	// a field it lacks ("" when the user chose the fields: no warning).
	notIn   string
	pending int // empty items waiting for the header
	row     []string
	warned  warnOnce
}

func newCSVExporter(o *Options, t exportTarget) *csvExporter {
	// csv.Writer gets its own small buffer in front of ours, so the exporter
	// can write a raw line (writeRow) after flushing it into ours.
	cw := csv.NewWriter(struct{ io.Writer }{t.w})
	cw.Comma = o.delimiter
	e := &csvExporter{
		w: t.w, cw: cw, csvSafe: o.CSVSafe,
		writeHeader: !o.NoHeader && t.resumed.keep == 0,
		warned:      warnOnce{warn: t.warn, what: "fields not in the CSV header"},
	}
	switch o.format {
	case formatTSV:
		e.rows = rowsTSV
	case formatMD:
		e.rows = rowsMarkdown
	}
	switch {
	case len(o.header) > 0:
		e.setHeader(o.header)
	case !o.NoHeader && len(t.resumed.header) > 0:
		e.setHeader(t.resumed.header)
		e.notIn = "the CSV header of " + t.name
	default:
		e.notIn = "the CSV header (first item's fields)"
	}
	return e
}

func (e *csvExporter) setHeader(h []string) {
	e.header = h
	e.column = make(map[string]int, len(h))
	for i, name := range h {
		if _, dup := e.column[name]; !dup {
			e.column[name] = i
		}
	}
	e.row = make([]string, len(h))
}

// Begin writes a header given by --fields, so even an empty export has it.
func (e *csvExporter) Begin() error {
	if e.header != nil && e.writeHeader {
		e.writeHeader = false
		if err := e.writeRow(e.safeRow(e.header)); err != nil {
			return err
		}
		if e.rows == rowsMarkdown {
			return e.writeMarkdownRule()
		}
	}
	return nil
}

func (e *csvExporter) Write(fields []record.Field) error {
	if e.header == nil {
		if len(fields) == 0 {
			e.pending++
			return nil
		}
		h := make([]string, len(fields))
		for i, f := range fields {
			h[i] = f.Key
		}
		e.setHeader(h)
		if err := e.Begin(); err != nil {
			return err
		}
		for ; e.pending > 0; e.pending-- {
			clear(e.row)
			if err := e.writeRow(e.row); err != nil {
				return err
			}
		}
	}
	clear(e.row)
	for _, f := range fields {
		i, ok := e.column[f.Key]
		if !ok {
			if e.notIn != "" {
				e.warned.do(f.Key, "field %q is not in %s; use --fields to include it", f.Key, e.notIn)
			}
			continue
		}
		e.row[i] = csvCell(f.Value)
		if e.csvSafe && f.Value[0] == '"' {
			e.row[i] = spreadsheetSafe(e.row[i])
		}
	}
	return e.writeRow(e.row)
}

// safeRow is row with --csv-safe applied (for the header).
func (e *csvExporter) safeRow(row []string) []string {
	if !e.csvSafe {
		return row
	}
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = spreadsheetSafe(c)
	}
	return out
}

// spreadsheetSafe prefixes with ' a cell a spreadsheet would run as a
// formula: one starting with =, +, -, @, a tab or a CR (OWASP's CSV
// injection advice).
func spreadsheetSafe(cell string) string {
	if cell != "" && strings.IndexByte("=+-@\t\r", cell[0]) >= 0 {
		return "'" + cell
	}
	return cell
}

// writeRow writes one record. encoding/csv writes a lone empty field as an
// empty line, which CSV readers skip; it is written quoted instead, as
// Python's csv module does.
func (e *csvExporter) writeRow(row []string) error {
	switch e.rows {
	case rowsTSV:
		return writeTSVRow(e.w, row)
	case rowsMarkdown:
		return writeMarkdownRow(e.w, row)
	}
	if len(row) == 1 && row[0] == "" {
		if err := e.flushCSV(); err != nil {
			return err
		}
		_, err := e.w.WriteString("\"\"\n")
		return err
	}
	return e.cw.Write(row)
}

func (e *csvExporter) flushCSV() error {
	if e.rows != rowsCSV {
		return nil
	}
	e.cw.Flush()
	return e.cw.Error()
}

func (e *csvExporter) Flush() error {
	if err := e.flushCSV(); err != nil {
		return err
	}
	return e.w.Flush()
}

func (e *csvExporter) End() error { return e.Flush() }

// csvCell is a JSON value as a CSV cell: strings as they are, numbers as
// written, true/false, null as an empty cell, objects and arrays as compact
// JSON.
func csvCell(v json.RawMessage) string {
	switch v[0] {
	case '"':
		return jsonString(v)
	case 'n':
		return ""
	case '{', '[':
		return string(appendCompact(nil, v))
	}
	return string(v)
}
