package cexport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/record"
)

// csvExporter writes items as CSV rows (Scrapy's CsvItemExporter), LF line
// endings; TSV and Markdown rows too. The header is --fields, or the header
// of the file being appended to, or the fields the --rules file declares,
// or else the fields of the first item that has any (after the declared
// ones, when a rule's fields are the feed's). Items with no fields that
// come before the header is known are written as empty rows as soon as it
// is. A field an item has and the header lacks is reported through
// notInHeader (unless --fields chose the fields) and left out of its row.
type csvExporter struct {
	w     *bufio.Writer
	comma rune
	// rows writes a row in the format (csv, tsv, markdown).
	rows    rowFormat
	csvSafe bool

	header      []string
	column      map[string]int
	writeHeader bool
	// lead, when the header is taken from the first item, are the columns
	// before that item's own (the declared fields).
	lead []string
	// notIn says where the header came from, in the report of a field it
	// lacks ("" when the user chose the fields: no report); hint says how
	// to have the field in it ({it} is it or them).
	notIn, hint string
	notInHeader func(fields []string, notIn, hint string)
	missing     []string
	pending     int // empty items waiting for the header
	row         []string
	cells       [][]byte // the CSV row being written, cells from the item
	line        []byte
}

// hintNoHeader is how to have a field in a header taken from the first item.
// "{it}" is it or them.
const hintNoHeader = "cexport --rules FILE or --fields puts {it} in the header"

func newCSVExporter(o *Options, t exportTarget) *csvExporter {
	e := &csvExporter{
		w: t.w, comma: o.delimiter, csvSafe: o.CSVSafe,
		writeHeader: !o.NoHeader && t.resumed.keep == 0,
		notInHeader: t.notInHeader,
	}
	switch o.format {
	case formatTSV:
		e.rows = rowsTSV
	case formatMD:
		e.rows = rowsMarkdown
	}
	d := o.declared
	switch {
	case len(o.header) > 0:
		e.setHeader(o.header)
	case !o.NoHeader && len(t.resumed.header) > 0:
		e.setHeader(t.resumed.header)
		e.notIn = "the header of " + t.name
		e.hint = "-O FILE starts a new file with every field in its header"
		if d != nil && t.warn != nil {
			if lacks := without(d.columns, e.column); len(lacks) > 0 {
				t.warn("the header of %s lacks fields of %s: %s; items with them are written without them (-O FILE starts a new file with every field)",
					t.name, d.file, strings.Join(lacks, ", "))
			}
		}
	case d != nil && len(d.columns) > 0 && d.open == "":
		e.setHeader(d.columns)
		e.notIn = "the header (the fields of " + d.file + ")"
		e.hint = "declare {it} in " + d.file
	case d != nil && len(d.columns) > 0:
		e.lead = d.columns
		e.notIn = "the header (the fields of " + d.file + ", then the first item's)"
		e.hint = fmt.Sprintf("declare {it} in %s (item rule %q takes its fields from the feed)", d.file, d.open)
	default:
		e.notIn = "the header (the first item's fields)"
		e.hint = hintNoHeader
	}
	return e
}

// without returns the names not in column, in order.
func without(names []string, column map[string]int) []string {
	var out []string
	for _, n := range names {
		if _, ok := column[n]; !ok {
			out = append(out, n)
		}
	}
	return out
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

// firstHeader is the header taken from the first item with fields: the
// declared fields (lead), then the item's others.
func (e *csvExporter) firstHeader(fields []record.Field) []string {
	h := slices.Clone(e.lead)
	seen := make(map[string]bool, len(h))
	for _, name := range h {
		seen[name] = true
	}
	for _, f := range fields {
		if !seen[f.Key] {
			seen[f.Key] = true
			h = append(h, f.Key)
		}
	}
	return h
}

// lacks notes the field name the header lacks, for the report after the
// row is written.
func (e *csvExporter) lacks(name string) {
	if e.notIn != "" && !slices.Contains(e.missing, name) {
		e.missing = append(e.missing, name)
	}
}

// report reports the fields of the item just written that the header
// lacks.
func (e *csvExporter) report() {
	if len(e.missing) > 0 && e.notInHeader != nil {
		e.notInHeader(e.missing, e.notIn, e.hint)
	}
	e.missing = e.missing[:0]
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
		e.setHeader(e.firstHeader(fields))
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
	defer e.report()
	if e.rows == rowsCSV {
		return e.writeCSV(fields)
	}
	clear(e.row)
	for _, f := range fields {
		i, ok := e.column[f.Key]
		if !ok {
			e.lacks(f.Key)
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
				e.lacks(f.Key)
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
// (which PostgreSQL would read as the end of data) are quoted. So is one
// starting with U+FEFF: at the start of a file, unquoted, every reader
// (Python's utf-8-sig, spreadsheets, resuming) takes it for a byte order
// mark and drops it from the first column's name.
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
	return unicode.IsSpace(r) || r == '\ufeff'

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
