package cexport

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// exportObjects runs the exporter for o over JSON objects, one per string,
// as the run loop does, and returns the output and the warnings.
func exportObjects(t *testing.T, o Options, target exportTarget, objects ...string) (string, []string) {
	t.Helper()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var warnings []string
	target.w = bufio.NewWriter(&out)
	target.warn = func(format string, a ...any) { warnings = append(warnings, fmt.Sprintf(format, a...)) }
	target.notInHeader = func(fields []string, notIn, _ string) {
		warnings = append(warnings, fmt.Sprintf("%s not in %s", strings.Join(fields, ","), notIn))
	}
	e := newExporter(&o, target)
	if err := e.Begin(); err != nil {
		t.Fatal(err)
	}
	var proj []record.Field
	for _, obj := range objects {
		fields, err := record.Fields([]byte(obj))
		if err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
		if len(o.fields) > 0 {
			fields = project(fields, o.fields, proj)
			proj = fields
		}
		if err := e.Write(fields); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.End(); err != nil {
		t.Fatal(err)
	}
	return out.String(), warnings
}

type exportCase struct {
	name     string
	opts     Options
	in       []string
	want     string
	warnings []string
}

func runExportCases(t *testing.T, format string, tests []exportCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Format = format
			got, warnings := exportObjects(t, tt.opts, exportTarget{}, tt.in...)
			if got != tt.want {
				t.Errorf("output:\n%s\nwant:\n%s", got, tt.want)
			}
			if strings.Join(warnings, "\n") != strings.Join(tt.warnings, "\n") {
				t.Errorf("warnings:\n%q\nwant:\n%q", warnings, tt.warnings)
			}
		})
	}
}

const (
	bigNumbers  = `{"id":12345678901234567890,"price":1.10,"exp":1e400,"neg":-0.0}`
	nested      = `{"name":"TV","dims":{"w":1, "h":[2,3.50]},"tags":["a","b"],"none":null,"ok":true}`
	unicodeText = `{"title":"Crème brûlée 日本 😀","q":"\"quoted\"\u00e9","url":"https://x/?a=1&b=<2>"}`
)

func TestJSONLExporter(t *testing.T) {
	runExportCases(t, "jsonl", []exportCase{
		{name: "key order and exact numbers", in: []string{`{"z":1,"a":2,"m":3}`, bigNumbers},
			want: `{"z":1,"a":2,"m":3}` + "\n" + bigNumbers + "\n"},
		{name: "compacted, nested kept", in: []string{"{ \"a\" : [ 1 , { \"b\" : \"x y\" } ] ,\n \"c\":{}}"},
			want: `{"a":[1,{"b":"x y"}],"c":{}}` + "\n"},
		{name: "unicode and HTML characters unescaped", in: []string{unicodeText},
			want: `{"title":"Crème brûlée 日本 😀","q":"\"quoted\"\u00e9","url":"https://x/?a=1&b=<2>"}` + "\n"},
		{name: "escaped keys normalized", in: []string{`{"\u0041\t\"":1,"<k>":2}`},
			want: `{"A\t\"":1,"<k>":2}` + "\n"},
		{name: "invalid UTF-8 repaired", in: []string{"{\"a\":\"x\xffy\"}"},
			want: "{\"a\":\"x\uFFFDy\"}\n"},
		{name: "fields select and order", opts: Options{Fields: []string{"c", "missing", "a"}}, in: []string{`{"a":1,"b":2,"c":3}`},
			want: `{"c":3,"a":1}` + "\n"},
		{name: "empty object", in: []string{`{}`}, want: "{}\n"},
		{name: "no items", want: ""},
	})
}

func TestJSONExporter(t *testing.T) {
	runExportCases(t, "json", []exportCase{
		{name: "scrapy shape", in: []string{`{"a":1}`, `{"b":"x"}`, bigNumbers},
			want: "[\n" + `{"a":1}` + ",\n" + `{"b":"x"}` + ",\n" + bigNumbers + "\n]\n"},
		{name: "one item", in: []string{nested},
			want: "[\n" + `{"name":"TV","dims":{"w":1,"h":[2,3.50]},"tags":["a","b"],"none":null,"ok":true}` + "\n]\n"},
		{name: "empty input", want: "[]\n"},
	})
}

func TestCSVExporter(t *testing.T) {
	runExportCases(t, "csv", []exportCase{
		{name: "header from first item, key order", in: []string{`{"z":"1","a":"2"}`, `{"a":"3","z":"4"}`},
			want: "z,a\n1,2\n4,3\n"},
		{name: "exact numbers", in: []string{bigNumbers},
			want: "id,price,exp,neg\n12345678901234567890,1.10,1e400,-0.0\n"},
		{name: "nested values as JSON, null empty, booleans", in: []string{nested},
			want: "name,dims,tags,none,ok\n" + `TV,"{""w"":1,""h"":[2,3.50]}","[""a"",""b""]",,true` + "\n"},
		{name: "unicode and quoting", in: []string{unicodeText, `{"title":"a,b","q":"line1\nline2"," x":1}`},
			want:     "title,q,url\nCrème brûlée 日本 😀,\"\"\"quoted\"\"é\",https://x/?a=1&b=<2>\n\"a,b\",\"line1\nline2\",\n",
			warnings: []string{` x not in the header (the first item's fields)`}},
		{name: "extra fields reported with each item", in: []string{`{"a":1}`, `{"a":2,"b":3}`, `{"b":4,"c":5}`, `{"c":6}`},
			want: "a\n1\n2\n\"\"\n\"\"\n",
			warnings: []string{
				`b not in the header (the first item's fields)`,
				`b,c not in the header (the first item's fields)`,
				`c not in the header (the first item's fields)`,
			}},
		{name: "header from --fields, missing fields empty, no warnings", opts: Options{Fields: []string{"price", "title", "sku"}},
			in:   []string{`{"title":"A","price":1,"extra":true}`, `{"sku":"s1"}`},
			want: "price,title,sku\n1,A,\n,,s1\n"},
		{name: "--fields header even without items", opts: Options{Fields: []string{"a", "b"}}, want: "a,b\n"},
		{name: "no items, no header", want: ""},
		{name: "no header", opts: Options{NoHeader: true}, in: []string{`{"a":1,"b":2}`}, want: "1,2\n"},
		{name: "delimiter", opts: Options{CSVDelimiter: `\t`}, in: []string{`{"a":"x\ty","b":"p,q"}`},
			want: "a\tb\n\"x\ty\"\tp,q\n"},
		{name: "unicode delimiter", opts: Options{CSVDelimiter: "→"}, in: []string{`{"a":"1","b":"→"}`},
			want: "a→b\n1→\"→\"\n"},
		{name: "empty items before the first with fields", in: []string{`{}`, `{}`, `{"a":1,"b":2}`, `{}`},
			want: "a,b\n,\n,\n1,2\n,\n"},
		{name: "one column, empty cells quoted", in: []string{`{"a":"x"}`, `{"a":null}`, `{"a":""}`, `{"a":"y"}`},
			want: "a\nx\n\"\"\n\"\"\ny\n"},
		{name: "empty key", in: []string{`{"":1}`}, want: "\"\"\n1\n"},
		{name: "postgres end marker quoted", in: []string{`{"a":"\\.","b":1}`}, want: "a,b\n\"\\.\",1\n"},
	})
}

func TestCSVAppendHeader(t *testing.T) {
	o := Options{Format: "csv"}
	got, warnings := exportObjects(t, o, exportTarget{name: "old.csv", resumed: resumePoint{keep: 4, header: []string{"b", "a"}}},
		`{"a":1,"b":2,"c":3}`)
	if got != "2,1\n" {
		t.Errorf("output %q, want rows in the file's header order and no header", got)
	}
	want := `c not in the header of old.csv`
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
}

func TestXMLExporter(t *testing.T) {
	head := `<?xml version="1.0" encoding="utf-8"?>` + "\n"
	runExportCases(t, "xml", []exportCase{
		{name: "scrapy shape", in: []string{`{"name":"Color TV","price":1200}`, `{"name":"DVD player","price":200}`},
			want: head + "<items>\n<item><name>Color TV</name><price>1200</price></item>\n<item><name>DVD player</name><price>200</price></item>\n</items>\n"},
		{name: "lists, nested objects, null, booleans, exact numbers", in: []string{
			`{"tags":["a",["b",1]],"dims":{"w":12345678901234567890,"h":1.10,"e":{}},"none":null,"ok":false,"list":[]}`},
			want: head + "<items>\n<item><tags><value>a</value><value><value>b</value><value>1</value></value></tags>" +
				"<dims><w>12345678901234567890</w><h>1.10</h><e></e></dims><none></none><ok>false</ok><list></list></item>\n</items>\n"},
		{name: "list of objects", in: []string{`{"offers":[{"p":1},{"p":2}]}`},
			want: head + "<items>\n<item><offers><value><p>1</p></value><value><p>2</p></value></offers></item>\n</items>\n"},
		{name: "text escaped", in: []string{`{"t":"<b>&amp;\"'</b>","cr":"a\r\nb","ctl":"x\u0001y","u":"日本 😀"}`},
			want: head + "<items>\n<item><t>&lt;b&gt;&amp;amp;\"'&lt;/b&gt;</t><cr>a&#xD;&#xA;b</cr><ctl>x\uFFFDy</ctl><u>日本 😀</u></item>\n</items>\n"},
		{name: "names sanitised and warned once", in: []string{`{"1st price":1,"a:b":2,"ok-name.x":3,"":4}`, `{"1st price":5,"n":{"x y":6}}`},
			want: head + "<items>\n<item><_1st_price>1</_1st_price><a_b>2</a_b><ok-name.x>3</ok-name.x><_>4</_></item>\n" +
				"<item><_1st_price>5</_1st_price><n><x_y>6</x_y></n></item>\n</items>\n",
			warnings: []string{
				`key "1st price" is not a valid XML name; written as <_1st_price>`,
				`key "a:b" is not a valid XML name; written as <a_b>`,
				`key "" is not a valid XML name; written as <_>`,
				`key "x y" is not a valid XML name; written as <x_y>`,
			}},
		{name: "root and item names", opts: Options{XMLRoot: "products", XMLItem: "product"}, in: []string{`{"a":1}`},
			want: head + "<products>\n<product><a>1</a></product>\n</products>\n"},
		{name: "fields select and order", opts: Options{Fields: []string{"b", "a"}}, in: []string{`{"a":1,"b":2,"c":3}`},
			want: head + "<items>\n<item><b>2</b><a>1</a></item>\n</items>\n"},
		{name: "empty input", want: head + "<items>\n</items>\n"},
	})
}

func TestWarningsAreCapped(t *testing.T) {
	var objs []string
	for i := range 3 * maxWarnings {
		objs = append(objs, fmt.Sprintf(`{"a":1,"k %d":2}`, i))
	}
	_, warnings := exportObjects(t, Options{Format: "xml"}, exportTarget{}, objs...)
	if len(warnings) != maxWarnings+1 || !strings.Contains(warnings[maxWarnings], "not reporting them any more") {
		t.Fatalf("%d warnings, last %q", len(warnings), warnings[len(warnings)-1])
	}
}
