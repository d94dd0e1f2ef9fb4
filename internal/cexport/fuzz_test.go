package cexport

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/record"
)

// FuzzExport: for any two JSON objects, no exporter panics; the CSV reads
// back with encoding/csv into rows of the header's width, one per item; the
// XML is well-formed per encoding/xml with one element per item; the JSON
// lines and the JSON array are valid JSON.
func FuzzExport(f *testing.F) {
	for _, s := range [][2]string{
		{`{"name":"Color TV","price":1200,"tags":["a","b"]}`, `{"name":"x","extra":{"n":[1,{"m":null}]}}`},
		{`{"1st price":1.10,"a:b":12345678901234567890,"":"<&>"}`, `{}`},
		{`{}`, `{"a":"line\r\nbreak","b":"\u0000\u0001\ufffe","c":"é,\""}`},
		{`{"a":null}`, `{"a":""}`},
		{`{"":""}`, `{"x":[[[]]]}`},
		{`{"\ud800":"\udfff","a\u00e9 b":true}`, "{\"k\":\"\xff\xfe\"}"},
		{`{"a":"\\.","b":" lead"}`, `{"b":"x","a":"y"}`},
	} {
		for d := range byte(4) {
			f.Add([]byte(s[0]), []byte(s[1]), d)
		}
	}
	f.Fuzz(func(t *testing.T, a, b []byte, delim byte) {
		var items [][]record.Field
		for _, obj := range [][]byte{a, b} {
			fields, err := record.Fields(obj)
			if err != nil {
				return
			}
			items = append(items, fields)
		}
		delimiter := []string{",", ";", `\t`, "→"}[delim%4]

		out := fuzzExport(t, Options{Format: "csv", CSVDelimiter: delimiter}, items)
		r := csv.NewReader(strings.NewReader(out))
		r.Comma, _ = parseDelimiter(delimiter)
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("CSV does not read back: %v\n%s", err, out)
		}
		if len(rows) > 0 {
			header := rows[0]
			if len(rows) != 1+len(items) {
				t.Fatalf("CSV has %d rows for %d items:\n%s", len(rows), len(items), out)
			}
			for _, row := range rows {
				if len(row) != len(header) {
					t.Fatalf("CSV row of %d columns under a header of %d:\n%s", len(row), len(header), out)
				}
			}
		} else if len(items[0]) > 0 || len(items[1]) > 0 {
			t.Fatalf("CSV is empty for items with fields")
		}

		out = fuzzExport(t, Options{Format: "xml"}, items)
		if n, err := countXMLItems(out); err != nil || n != len(items) {
			t.Fatalf("XML not well-formed (%v) or %d items:\n%s", err, n, out)
		}
		// one line per item: what resuming an export relies on
		if n := strings.Count(out, "\n"); n != 3+len(items) {
			t.Fatalf("XML of %d items has %d lines:\n%s", len(items), n, out)
		}

		out = fuzzExport(t, Options{Format: "jsonl"}, items)
		for line := range strings.Lines(out) {
			if !json.Valid([]byte(line)) {
				t.Fatalf("invalid JSON line: %q", line)
			}
		}
		out = fuzzExport(t, Options{Format: "json"}, items)
		var arr []json.RawMessage
		if err := json.Unmarshal([]byte(out), &arr); err != nil || len(arr) != len(items) {
			t.Fatalf("invalid JSON array (%v):\n%s", err, out)
		}
		if n := strings.Count(out, "\n"); n != 2+len(items) {
			t.Fatalf("JSON array of %d items has %d lines:\n%s", len(items), n, out)
		}
	})
}

func fuzzExport(t *testing.T, o Options, items [][]record.Field) string {
	t.Helper()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	e := newExporter(&o, exportTarget{w: w, warn: func(string, ...any) {}})
	if err := e.Begin(); err != nil {
		t.Fatal(err)
	}
	for _, fields := range items {
		if err := e.Write(fields); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.End(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// countXMLItems parses doc with encoding/xml and counts the <item> elements
// directly under the root.
func countXMLItems(doc string) (int, error) {
	d := xml.NewDecoder(strings.NewReader(doc))
	depth, n := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if depth != 0 {
				return n, errors.New("unclosed elements")
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 && t.Name.Local == "item" {
				n++
			}
		case xml.EndElement:
			depth--
		}
	}
}

// FuzzXMLName: every key becomes a name encoding/xml accepts, and a key is
// reported unchanged exactly when it is returned as it is.
func FuzzXMLName(f *testing.F) {
	for _, s := range []string{"name", "1st price", "a:b", "", "é", "日本", "a😀", "\xff", "-x", "·x", "x\u0301", "xml"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		name, changed := xmlName(key)
		if !xmlParses("<" + name + "></" + name + ">") {
			t.Fatalf("xmlName(%q) = %q, which encoding/xml refuses", key, name)
		}
		if changed == (name == key) {
			t.Fatalf("xmlName(%q) = %q, changed %v", key, name, changed)
		}
	})
}

// FuzzDelimiter: a delimiter parseDelimiter accepts is one encoding/csv
// can write with.
func FuzzDelimiter(f *testing.F) {
	for _, s := range []string{",", ";", `\t`, "tab", "→", `"`, "\n", "", "ab", "\xff", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDelimiter(s)
		if err != nil {
			return
		}
		w := csv.NewWriter(io.Discard)
		w.Comma = d
		if err := w.Write([]string{"a", "b"}); err != nil {
			t.Fatalf("parseDelimiter(%q) = %q, which encoding/csv refuses: %v", s, d, err)
		}
	})
}

// FuzzResumeCSV: the prefix kept when resuming is whole CSV records,
// ending with a newline, that parse without error.
func FuzzResumeCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a\n\"x\ny\",2\n\"cut", "a,b\n1,2", "\"", "a\r\nb\r\n", "a\n1,b\"c\n2\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		rp, err := resumeCSV(bytes.NewReader(data), int64(len(data)), ',')
		if err != nil {
			return // refused: the file is left as it is
		}
		n := rp.keep
		if n < 0 || n > int64(len(data)) {
			t.Fatalf("kept %d of %d bytes", n, len(data))
		}
		kept := data[:n]
		if n > 0 && kept[n-1] != '\n' {
			t.Fatalf("kept %q does not end with a newline", kept)
		}
		r := csv.NewReader(bytes.NewReader(kept))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("kept %q does not parse: %v", kept, err)
		}
		if rp.items != (len(recs) > 1) {
			t.Fatalf("kept %q: %d records, items %v", kept, len(recs), rp.items)
		}
	})
}

// FuzzResumeDocument: for any file, finding where a JSON array or an XML
// document goes on does not panic and keeps at most the file; when the file
// is a valid document, what is kept plus a new item plus the closing is
// one valid document again.
func FuzzResumeDocument(f *testing.F) {
	for _, s := range []string{
		"[\n{\"a\":1},\n{\"b\":[1,2]}\n]\n", "[]", "[\n{\"a\":[1,2]", "[1,]", "{}", "  [ ] ",
		"<?xml version=\"1.0\"?>\n<items>\n<item><a>1</a></item>\n</items>\n", "<items/>", "<items><item>x</item></items>",
		"<items>\n<item><items>x</items>", "<a><b></a>", "\x00\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []string{formatJSON, formatXML} {
			o := Options{Format: format}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			rp, err := findResumePoint(bytes.NewReader(data), int64(len(data)), &o)
			if err != nil {
				continue
			}
			if rp.keep < 0 || rp.keep > int64(len(data)) {
				t.Fatalf("%s: kept %d of %d bytes", format, rp.keep, len(data))
			}
			if format == formatJSON && !json.Valid(data) || format == formatXML && !wellFormed(data) {
				continue
			}
			var array []json.RawMessage
			if format == formatJSON && json.Unmarshal(data, &array) == nil && rp.items != (len(array) > 0) {
				t.Fatalf("%q: %d items, items %v", data, len(array), rp.items)
			}
			var out bytes.Buffer
			out.Write(data[:rp.keep])
			w := bufio.NewWriter(&out)
			e := newExporter(&o, exportTarget{w: w, resumed: rp, warn: func(string, ...any) {}})
			fields, _ := record.Fields([]byte(`{"new":1}`))
			if e.Begin() != nil || e.Write(fields) != nil || e.End() != nil {
				t.Fatal("export failed")
			}
			doc := out.Bytes()
			if format == formatJSON && !json.Valid(doc) || format == formatXML && !wellFormed(doc) {
				t.Fatalf("%s: %q appended to becomes %q", format, data, doc)
			}
		}
	})
}

// wellFormed reports whether doc is one well-formed XML document.
func wellFormed(doc []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(doc))
	roots, depth := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return roots == 1 && depth == 0
		}
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return false
			}
		}
	}
}

// FuzzCSVRow: the CSV writer writes a row byte for byte as encoding/csv's
// Writer does (but for a row of one empty field, written "", and a field
// starting with U+FEFF, quoted: encoding/csv reads the first one back).
func FuzzCSVRow(f *testing.F) {
	for _, s := range [][3]string{{"a", "b", "c"}, {"\ufeffk", "x", "\ufeff"}, {"", `\.`, " lead"}, {"q\"uote", "a,b", "line\r\nbreak"}, {"\u00a0nbsp", "é;x", "\t"}} {
		for _, comma := range []rune{',', ';', '\t', '|', 'é'} {
			f.Add(s[0], s[1], s[2], comma)
		}
	}
	f.Fuzz(func(t *testing.T, a, b, c string, comma rune) {
		if !utf8.ValidRune(comma) || comma == 0 || comma == '"' || comma == '\r' || comma == '\n' || comma == utf8.RuneError {
			return
		}
		row := []string{a, b, c}
		var want bytes.Buffer
		cw := csv.NewWriter(&want)
		cw.Comma = comma
		if err := cw.Write(row); err != nil {
			return // encoding/csv refuses it
		}
		cw.Flush()
		var got bytes.Buffer
		e := &csvExporter{w: bufio.NewWriter(&got), comma: comma}
		if err := e.writeRow(row); err != nil {
			t.Fatal(err)
		}
		e.w.Flush()
		bom := false
		for _, f := range row {
			bom = bom || strings.HasPrefix(f, "\ufeff")
		}
		if !bom && got.String() != want.String() {
			t.Fatalf("row %q, comma %q: wrote %q, encoding/csv %q", row, comma, got.String(), want.String())
		}
		if !bom {
			return
		}
		r := csv.NewReader(&got)
		r.Comma = comma
		r.FieldsPerRecord = -1
		if back, err := r.Read(); err != nil || back[0] != row[0] {
			t.Fatalf("row %q, comma %q: read back %q (%v)", row, comma, back, err)
		}
	})
}
