package cexport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/record"
)

// csvExporter writes items as CSV rows (Scrapy's CsvItemExporter), LF line
// endings. The header is --fields, or the header of the file being appended
// to, or else the fields of the first item that has any. Items with no
// fields that come before the header is known are written as empty rows as
// soon as it is.
type csvExporter struct {
	w     *bufio.Writer
	comma rune
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
	cells   [][]byte // the CSV row being written, cells from the item
	line    []byte
	warned  warnOnce
}

func newCSVExporter(o *Options, t exportTarget) *csvExporter {
	e := &csvExporter{
		w: t.w, comma: o.delimiter, csvSafe: o.CSVSafe,
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
	e.cells = make([][]byte, len(h))
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
	if e.rows == rowsCSV {
		return e.writeCSV(fields)
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

// writeRow writes one row of strings (the header, empty rows).
func (e *csvExporter) writeRow(row []string) error {
	switch e.rows {
	case rowsTSV:
		return writeTSVRow(e.w, row)
	case rowsMarkdown:
		return writeMarkdownRow(e.w, row)
	}
	cells := make([][]byte, len(row))
	for i, c := range row {
		cells[i] = []byte(c)
	}
	return e.writeCells(cells)
}

// writeCSV writes an item as a CSV row, its cells straight from the
// item's JSON (no string per cell: the hot path of a CSV export).
func (e *csvExporter) writeCSV(fields []record.Field) error {
	clear(e.cells)
	for j, f := range fields {
		i := j
		if i >= len(e.header) || e.header[i] != f.Key {
			var ok bool
			if i, ok = e.column[f.Key]; !ok {
				if e.notIn != "" {
					e.warned.do(f.Key, "field %q is not in %s; use --fields to include it", f.Key, e.notIn)
				}
				continue
			}
		}
		c := csvCellBytes(f.Value)
		if e.csvSafe && f.Value[0] == '"' && len(c) > 0 && strings.IndexByte("=+-@\t\r", c[0]) >= 0 {
			c = append([]byte{'\''}, c...)
		}
		e.cells[i] = c
	}
	return e.writeCells(e.cells)
}

// writeCells writes one CSV record as encoding/csv's Writer does (LF line
// endings), except that a record of a single empty field is written "",
// as Python's csv module does, so readers do not skip it as a blank line.
func (e *csvExporter) writeCells(cells [][]byte) error {
	b := e.line[:0]
	if len(cells) == 1 && len(cells[0]) == 0 {
		b = append(b, '"', '"')
	}
	for i, c := range cells {
		if i > 0 {
			b = utf8.AppendRune(b, e.comma)
		}
		b = appendCSVField(b, c, e.comma)
	}
	b = append(b, '\n')
	_, err := e.w.Write(b)
	e.line = trimBuf(b)
	return err
}

// appendCSVField appends field, quoted when encoding/csv would quote it.
func appendCSVField(dst, field []byte, comma rune) []byte {
	if !csvNeedsQuotes(field, comma) {
		return append(dst, field...)
	}
	dst = append(dst, '"')
	for {
		i := bytes.IndexByte(field, '"')
		if i < 0 {
			break
		}
		dst = append(dst, field[:i+1]...)
		dst = append(dst, '"')
		field = field[i+1:]
	}
	dst = append(dst, field...)
	return append(dst, '"')
}

// csvNeedsQuotes is encoding/csv's fieldNeedsQuotes: a field with the
// delimiter, a quote or a line break, one starting with a space, and \.
// (which PostgreSQL would read as the end of data) are quoted.
func csvNeedsQuotes(field []byte, comma rune) bool {
	if len(field) == 0 {
		return false
	}
	if len(field) == 2 && field[0] == '\\' && field[1] == '.' {
		return true
	}
	if comma < utf8.RuneSelf {
		for _, c := range field {
			if c == '\n' || c == '\r' || c == '"' || c == byte(comma) {
				return true
			}
		}
	} else if bytes.ContainsRune(field, comma) || bytes.ContainsAny(field, "\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRune(field)
	return unicode.IsSpace(r)
}

func (e *csvExporter) Flush() error { return e.w.Flush() }

func (e *csvExporter) End() error { return e.Flush() }

// csvCellBytes is csvCell without a string: a slice of v where it can be.
func csvCellBytes(v json.RawMessage) []byte {
	switch v[0] {
	case '"':
		if s := v[1 : len(v)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
			return s
		}
		return []byte(jsonString(v))
	case 'n':
		return nil
	case '{', '[':
		return appendCompact(nil, v)
	}
	return v
}

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
