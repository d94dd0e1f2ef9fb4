package cexport

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

func TestParseFieldSpec(t *testing.T) {
	for _, tc := range []struct {
		in, from, to, err string
	}{
		{in: "price", from: "price", to: "price"},
		{in: "price:cost", from: "price", to: "cost"},
		{in: `og\:title`, from: "og:title", to: "og:title"},
		{in: `og\:title:title`, from: "og:title", to: "title"},
		{in: `a\\b:c`, from: `a\b`, to: "c"},
		{in: `price\, EUR:price`, from: "price, EUR", to: "price"},
		{in: `x"y`, from: `x"y`, to: `x"y`},
		{in: `"a`, from: `"a`, to: `"a`},
		{in: "a:b:c", err: "more than one ':'"},
		{in: "a:", err: "empty field name"},
		{in: ":a", err: "empty field name"},
		{in: `a\`, err: "backslash at the end"},
	} {
		got, err := parseFieldSpec(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseFieldSpec(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got.From != tc.from || got.To != tc.to {
			t.Errorf("parseFieldSpec(%q) = %+v, %v; want %s → %s", tc.in, got, err, tc.from, tc.to)
		}
	}
}

// TestFieldsValue: --fields is split at the commas a backslash does not
// escape, and nothing else is special: a " is part of a name. It used to
// be read as a line of CSV (a pflag string slice): 'x"y' was refused
// ("bare \" in non-quoted-field"), and a comma in a name needed CSV
// quotes ('"a,b"'), which the help did not mention.
func TestFieldsValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string // the values given, in order (the flag repeated)
		want string   // FROM>TO|…, or the error
	}{
		{"plain", []string{"title,price"}, "title>title|price>price"},
		{"renamed", []string{"title:name,price:cost"}, "title>name|price>cost"},
		{"a quote in a name", []string{`x"y`}, `x"y>x"y`},
		{"quotes around a name are part of it", []string{`"a,b"`}, `"a>"a|b">b"`},
		{"a comma in a name", []string{`a\,b,c`}, "a,b>a,b|c>c"},
		{"a comma in a new name", []string{`price:price\, EUR`}, "price>price, EUR"},
		{"a colon and a backslash", []string{`og\:title:t,a\\b`}, `og:title>t|a\b>a\b`},
		{"an escaped backslash before a comma", []string{`a\\,b`}, `a\>a\|b>b`},
		{"spaces are kept", []string{"a, b"}, "a>a| b> b"},
		{"non-ASCII", []string{"Цена:price,über"}, "Цена>price|über>über"},
		{"repeated", []string{"a", `b,x"y`}, `a>a|b>b|x"y>x"y`},
		{"empty value: no fields", []string{""}, ""},
		{"an empty entry", []string{"a,,b"}, `--fields "a,,b": empty field name`},
		{"a trailing comma", []string{"a,"}, `--fields "a,": empty field name`},
		{"a backslash at the end", []string{`a\`}, `a backslash at the end`},
		{"the same name twice", []string{"a", "b:a"}, `field "a" is named twice`},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			var list []string
			v := newFieldList(&list)
			for _, s := range tc.sets {
				if err := v.Set(s); err != nil {
					t.Fatal(err)
				}
			}
			specs, err := parseFieldSpecs(list)
			var got []string
			for _, s := range specs {
				got = append(got, s.From+">"+s.To)
			}
			if err != nil {
				got = []string{err.Error()}
			}
			if g := strings.Join(got, "|"); err != nil && !strings.Contains(g, tc.want) || err == nil && g != tc.want {
				t.Errorf("%q: %s, want %s", tc.sets, g, tc.want)
			}
			// String gives a value that sets the same list again.
			var again []string
			newFieldList(&again).Set(v.String())
			if len(list) > 0 && !slices.Equal(again, list) {
				t.Errorf("String %q sets %q, not %q", v.String(), again, list)
			}
		})
	}
}

// FuzzParseFieldSpec: a spec parses or is refused without panicking; a
// parsed one names non-empty fields, and escaping its names gives a spec
// that parses to the same.
func FuzzParseFieldSpec(f *testing.F) {
	for _, s := range []string{"price", "price:cost", `og\:title:t`, `a\\b`, "a:b:c", ":", `\`, "é:ü"} {
		f.Add(s)
	}
	esc := strings.NewReplacer(`\`, `\\`, ":", `\:`, ",", `\,`)
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := parseFieldSpec(s)
		if err != nil {
			return
		}
		if fs.From == "" || fs.To == "" {
			t.Fatalf("%q: empty name in %+v", s, fs)
		}
		spec := esc.Replace(fs.From) + ":" + esc.Replace(fs.To)
		again, err := parseFieldSpec(spec)
		if err != nil || again != fs {
			t.Fatalf("%q: %+v, escaped back: %+v, %v", s, fs, again, err)
		}
		// Escaped, it is one entry of --fields, before and after another.
		if list := splitList("a," + spec + ",b"); len(list) != 3 || list[1] != spec {
			t.Fatalf("%q: --fields a,%s,b splits into %q", s, spec, list)
		}
	})
}

func TestFlatten(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `a=1`},
		{`{"a":{"b":1,"c":{"d":[1,2]}},"e":"x"}`, `a.b=1 a.c.d=[1,2] e="x"`},
		{`{"a":{}}`, `a={}`},
		{`{"a.b":1,"a":{"b":2}}`, `a.b=2`},
		{`{"a":[{"b":1}]}`, `a=[{"b":1}]`},
	} {
		fields, err := record.Fields([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, f := range flatten(fields, nil) {
			parts = append(parts, f.Key+"="+string(f.Value))
		}
		if got := strings.Join(parts, " "); got != tc.want {
			t.Errorf("flatten(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestPredicate(t *testing.T) {
	for _, tc := range []struct {
		expr, data, rec string
		keep            bool
		err             bool
	}{
		{expr: ".price > 10", data: `{"price":12}`, keep: true},
		{expr: ".price > 10", data: `{"price":10}`},
		{expr: ".price > 10", data: `{}`},
		{expr: ".missing", data: `{}`},
		{expr: "empty", data: `{"a":1}`},
		{expr: "false, 1", data: `{}`, keep: true},
		{expr: `$record.url | test("/p/")`, data: `{}`, rec: `{"kind":"item","url":"https://x/p/1","data":{}}`, keep: true},
		{expr: `.price | tonumber > 1`, data: `{"price":"abc"}`, err: true},
		{expr: `.n == 12345678901234567890`, data: `{"n":12345678901234567890}`, keep: true},
	} {
		p, err := compilePredicate(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		rec := tc.rec
		if rec == "" {
			rec = tc.data
		}
		keep, err := p.keep([]byte(tc.data), []byte(rec))
		if (err != nil) != tc.err || keep != tc.keep {
			t.Errorf("%s on %s: keep %v, err %v; want %v, err %v", tc.expr, tc.data, keep, err, tc.keep, tc.err)
		}
	}
	if _, err := compilePredicate(".price >"); err == nil {
		t.Error("a bad expression compiled")
	}
}

func TestSpreadsheetSafe(t *testing.T) {
	for in, want := range map[string]string{
		"=SUM(A1)": "'=SUM(A1)", "+1": "'+1", "-1": "'-1", "@x": "'@x", "\tx": "'\tx", "\rx": "'\rx",
		"a=b": "a=b", "": "", "'=x": "'=x",
	} {
		if got := spreadsheetSafe(in); got != want {
			t.Errorf("spreadsheetSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// hardCells are values a table format must carry through.
var hardCells = []string{"plain", "a,b", `q"uote`, "tab\there", "line\nbreak", "cr\rlf\r\n", `back\slash`, `\t literal`, "pipe|x", "é 東京", "", " lead and trail "}

// hardItems makes one item per hard cell, with a number and a nested value.
func hardItems() string {
	var b strings.Builder
	for i, c := range hardCells {
		v := string(record.AppendString(nil, c))
		b.WriteString(`{"i":` + string(rune('0'+i%10)) + `,"s":` + v + `,"o":{"k":` + v + `}}` + "\n")
	}
	return b.String()
}

// TestTableRoundTrip: CSV and TSV read back (Go's encoding/csv, Python's
// csv module, our TSV unescaping) give the values that went in.
func TestTableRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := hardItems()
	for _, format := range []string{"csv", "tsv"} {
		path := filepath.Join(dir, "items."+format)
		if code, stderr := runExport(t, []string{"-O", path, "--flatten"}, in); code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]string
		if format == "csv" {
			rows, err = csv.NewReader(bytes.NewReader(data)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
		} else {
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				var row []string
				for _, c := range strings.Split(sc.Text(), "\t") {
					row = append(row, unescapeTSV(c))
				}
				rows = append(rows, row)
			}
		}
		// encoding/csv reads a quoted \r\n as \n (as documented).
		checkRows(t, format+" (Go)", rows, format == "csv")
		py := `
import csv, sys, json
fmt = sys.argv[2]
rows = []
with open(sys.argv[1], newline='') as f:
    if fmt == 'csv':
        rows = list(csv.reader(f))
    else:
        esc = {'t': '\t', 'n': '\n', 'r': '\r'}
        for line in f.read().split('\n')[:-1]:
            row = []
            for c in line.split('\t'):
                out, i = [], 0
                while i < len(c):
                    if c[i] == '\\' and i + 1 < len(c):
                        out.append(esc.get(c[i+1], c[i+1])); i += 2
                    else:
                        out.append(c[i]); i += 1
                row.append(''.join(out))
            rows.append(row)
print(json.dumps(rows))
`
		out, err := exec.Command("python3", "-c", py, path, format).Output()
		if err != nil {
			t.Fatalf("python3: %v", err)
		}
		var pyRows [][]string
		if err := json.Unmarshal(out, &pyRows); err != nil {
			t.Fatal(err)
		}
		checkRows(t, format+" (Python)", pyRows, false)
	}
}

func checkRows(t *testing.T, what string, rows [][]string, crlf bool) {
	t.Helper()
	if len(rows) != len(hardCells)+1 || !slices.Equal(rows[0], []string{"i", "s", "o.k"}) {
		t.Fatalf("%s: %d rows, header %q", what, len(rows), rows[0])
	}
	for i, c := range hardCells {
		if crlf {
			c = strings.ReplaceAll(c, "\r\n", "\n")
		}
		if r := rows[i+1]; r[1] != c || r[2] != c {
			t.Errorf("%s: row %d = %q, want %q twice", what, i+1, r, c)
		}
	}
}

// TestMarkdownTable: one row per item, pipes and backslashes escaped and
// line breaks as <br>, so every row has the header's cells.
func TestMarkdownTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "items.md")
	if code, stderr := runExport(t, []string{"-O", path, "--fields", "s:value,i"}, hardItems()); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(hardCells)+2 || lines[0] != "| value | i |" || lines[1] != "|---|---|" {
		t.Fatalf("table:\n%s", data)
	}
	for i, c := range hardCells {
		cells := markdownCells(lines[i+2])
		want := strings.Trim(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(c), " ")
		if len(cells) != 2 || cells[0] != want && !(want == "" && cells[0] == "") {
			t.Errorf("row %q: cells %q, want %q first", lines[i+2], cells, want)
		}
	}
}

func TestBatchTemplate(t *testing.T) {
	at := time.Date(2026, 11, 27, 18, 5, 9, 123456789, time.UTC)
	for _, tc := range []struct {
		tmpl, want, err string
	}{
		{tmpl: "items-%(batch_id)05d.csv", want: "items-00007.csv"},
		{tmpl: "out/items-%(batch_id)d-%(batch_time)s.jsonl", want: "out/items-7-2026-11-27T18-05-09.123456+00-00.jsonl"},
		{tmpl: "x-%(batch_time)s.csv", want: "x-2026-11-27T18-05-09.123456+00-00.csv"},
		{tmpl: "100%%-%(batch_id)-3d.csv", want: "100%-7  .csv"},
		{tmpl: "items.csv", err: "every batch would get the same name"},
		{tmpl: "items-%(batch_id)s.csv", err: "use d"},
		{tmpl: "items-%(time)s.csv", err: "unknown placeholder"},
		{tmpl: "%(batch_id)d/items.csv", err: "not in its directory"},
		{tmpl: "items-%d.csv", err: "starts no placeholder"},
		{tmpl: "items-%(batch_id.csv", err: "not closed"},
		{tmpl: "items-%(batch_id)05", err: "without a conversion"},
		{tmpl: "items-%(batch_id)999d.csv", err: "too wide"},
	} {
		bt, err := parseBatchTemplate(tc.tmpl)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.tmpl, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.tmpl, err)
			continue
		}
		got := bt.name(7, at)
		if got != tc.want {
			t.Errorf("%q: name %q, want %q", tc.tmpl, got, tc.want)
		}
		if id, ok := bt.match(filepath.Base(got)); !ok || bt.hasID && id != 7 {
			t.Errorf("%q: match(%q) = %d, %v", tc.tmpl, got, id, ok)
		}
		if _, ok := bt.match("other.csv"); ok {
			t.Errorf("%q matches other.csv", tc.tmpl)
		}
	}
}

// FuzzBatchTemplate: a template parses or is refused without panicking; a
// parsed one names batches that it matches back, with their ids.
func FuzzBatchTemplate(f *testing.F) {
	for _, s := range []string{"items-%(batch_id)05d.csv", "%(batch_time)s.jsonl", "a%%b-%(batch_id)+4d", "d/%(batch_id)-2i.x", "%(", "%(batch_id)", "x%"} {
		f.Add(s, uint16(3))
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	f.Fuzz(func(t *testing.T, s string, id uint16) {
		bt, err := parseBatchTemplate(s)
		if err != nil {
			return
		}
		name := bt.name(int(id), at)
		got, ok := bt.match(filepath.Base(name))
		if strings.HasSuffix(name, "/") || filepath.Base(name) != name[strings.LastIndexByte(name, '/')+1:] {
			return // a name filepath cleans differently: not matched by base
		}
		if !ok || bt.hasID && got != int(id) {
			t.Fatalf("%q: batch %d named %q, matched back as %d, %v", s, id, name, got, ok)
		}
	})
}
