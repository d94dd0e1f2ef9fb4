package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
)

// itemNames is f's item rules, each as "name: field, field, …", nested
// fields in braces, then the rule's csv.headers and namespace prefixes.
func itemNames(f *File) string {
	var rules []string
	var fields func(fs []*Field) string
	fields = func(fs []*Field) string {
		var names []string
		for _, fl := range fs {
			name := fl.Name
			if fl.Fields != nil {
				name += "{" + fields(fl.Fields) + "}"
			}
			if fl.Source != nil && fl.Source.Lang == Column {
				name += "=column " + fl.Source.Src
			}
			names = append(names, name)
		}
		return strings.Join(names, ", ")
	}
	for _, r := range f.Items {
		s := r.Name + ": " + fields(r.Fields)
		if r.CSV != nil && r.CSV.Headers != nil {
			s += fmt.Sprintf(" headers %q", r.CSV.Headers)
		}
		for p, uri := range r.Namespaces {
			s += " ns " + p + "=" + uri
		}
		for _, fl := range r.Files {
			s += " file " + fl.Value
		}
		rules = append(rules, s)
	}
	return strings.Join(rules, "; ")
}

// TestNamesAreAsWritten: a name in a rules file — a mapping key (a field,
// a namespace prefix, a test's expected value) or a name given as a value
// (an item or link rule, a column, a file field, a CSV header) — is its
// text as written, whatever YAML type it looks like: field 01 is "01",
// not 1, so 1 and 01 are two fields, and 0x1F, 1_000, yes, True, ~ and
// null are names too.
func TestNamesAreAsWritten(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"integers", "items:\n  - name: y\n    fields:\n      01: h1\n      08: h1\n      1_000: h1\n      0o17: h1\n      -0: h1\n      0x1F: h1\n      +1: h1\n      017: h1\n      0b11: h1\n",
			"y: 01, 08, 1_000, 0o17, -0, 0x1F, +1, 017, 0b11"},
		{"floats", "items:\n  - name: y\n    fields:\n      1.50: h1\n      .5: h1\n      0.: h1\n      1e3: h1\n      .inf: h1\n      -.Inf: h1\n      .NaN: h1\n",
			"y: 1.50, .5, 0., 1e3, .inf, -.Inf, .NaN"},
		{"booleans and nulls", "items:\n  - name: y\n    fields:\n      yes: h1\n      True: h1\n      false: h1\n      off: h1\n      ~: h1\n      null: h1\n      Null: h1\n",
			"y: yes, True, false, off, ~, null, Null"},
		{"1 and 01 are two fields", "items:\n  - name: y\n    fields: {1: h1, 01: h2}\n", "y: 1, 01"},
		{"quoted and plain the same", "items:\n  - name: y\n    fields: {'01': h1, \"1.0\": h2, 'true': h3}\n", "y: 01, 1.0, true"},
		{"explicit key and tag", "items:\n  - name: y\n    fields:\n      ? 010\n      : h1\n      !!str 012: h1\n", "y: 010, 012"},
		{"anchor and alias as keys", "items:\n  - name: y\n    fields:\n      &k 007: h1\n      x: {fields: {*k : h1}}\n", "y: 007, x{007}"},
		{"merge keeps the names", "items:\n  - name: a\n    fields: &b {01: h1, 2.50: h2}\n  - name: y\n    fields:\n      <<: *b\n      03: h3\n",
			"a: 01, 2.50; y: 01, 2.50, 03"},
		{"nested fields", "items:\n  - name: y\n    fields:\n      v:\n        each: li\n        fields: {01: b, 1e2: i}\n", "y: v{01, 1e2}"},
		{"rule names", "items:\n  - name: 0x1F\n    fields: {t: h1}\n  - name: 1.50\n    fields: {t: h1}\n  - name: 007\n    fields: {t: h1}\n",
			"0x1F: t; 1.50: t; 007: t"},
		{"csv headers and columns", "items:\n  - name: row\n    csv: {headers: [01, 1_000, 0x1F]}\n    fields: {a: {column: 01}, b: 1_000}\n",
			`row: a=column 01, b headers ["01" "1_000" "0x1F"]`},
		{"files name fields as written", "items:\n  - name: p\n    fields: {01: a::attr(href)}\n    files: [01]\n", "p: 01 file 01"},
		{"namespace prefixes", "items:\n  - name: x\n    match: {type: xml}\n    namespaces: {01: 'urn:a'}\n    fields: {t: '01:t'}\n", "x: t ns 01=urn:a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("x.yml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := itemNames(f); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestOtherNamesAreAsWritten: link rule names, test names and the field
// names a test expects are the names as written too.
func TestOtherNamesAreAsWritten(t *testing.T) {
	src := "items:\n  - name: p\n    fields: {01: h1, 1_000: h2}\nlinks:\n  - name: 0x1F\n" +
		"tests:\n  - name: 1.50\n    page: p.jsonl\n    items:\n      fields: [01, 1_000]\n      values: {01: x, 1_000: 1_000}\n"
	f, err := Parse("x.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Links[0].Name; got != "0x1F" {
		t.Errorf("link rule name %q, want 0x1F", got)
	}
	tst := f.Tests[0]
	if tst.Name != "1.50" {
		t.Errorf("test name %q, want 1.50", tst.Name)
	}
	var got []string
	for _, s := range tst.Items[0].Fields {
		got = append(got, s.Value)
	}
	for _, v := range tst.Items[0].Values[0].Fields {
		got = append(got, v.Name+"="+string(v.JSON))
	}
	// The expected values stay values: 1_000 is the number 1000.
	if want := `01 1_000 01="x" 1_000=1000`; strings.Join(got, " ") != want {
		t.Errorf("test fields %q, want %s", got, want)
	}
}

// Values are not names: a constant is the value YAML reads, as before.
func TestValuesStayValues(t *testing.T) {
	f, err := Parse("x.yml", []byte("items:\n  - name: p\n    fields:\n      a: {value: 0x1F}\n      b: {value: 1.50}\n      c: {value: yes}\n      d: {value: True}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []process.Value{{Kind: process.Number, Text: "31"}, {Kind: process.Number, Text: "1.50"}, process.Str("yes"), {Kind: process.Bool, Text: "true"}}
	for i, fl := range f.Items[0].Fields {
		if got := fl.Source.Value; got != want[i] {
			t.Errorf("field %s: value %+v, want %+v", fl.Name, got, want[i])
		}
	}
}

func TestNameErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"same text twice", "items:\n  - name: y\n    fields: {01: h1, '01': h2}\n", `mapping key "01" already defined`},
		{"files as written", "items:\n  - name: p\n    fields: {01: a::attr(href)}\n    files: [1]\n", `files: "1" is not a field of the item (its fields: 01)`},
		{"unknown key as written", "items:\n  - name: p\n    True: 1\n    fields: {t: h1}\n", `unknown field "True" in item rule "p"`},
		{"number described as written", "items:\n  - name: p\n    fields: {t: {css: h1, all: 0x1F}}\n", "all: want true or false, got a number (0x1F)"},
		{"empty key", "items:\n  - name: p\n    fields: {'': h1}\n", `item rule "p": a field needs a name`},
		{"rule name as written", "items:\n  - name: -0\n    fields: {t: h1}\n", `name "-0": use letters, digits`},
		{"csv header twice", "items:\n  - name: r\n    csv: {headers: [sku, qty, qty]}\n", `x.yml:3:31: csv.headers: "qty" is given twice (columns 2 and 3): name every column once`},
		{"csv header twice as written", "items:\n  - name: r\n    csv: {headers: [01, '01']}\n", `csv.headers: "01" is given twice (columns 1 and 2)`},
		{"csv header blank", "items:\n  - name: r\n    csv: {headers: [sku, '', ' ']}\n", "x.yml:3:26: csv.headers: column 2 has no name: name every column"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yml", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// A merge goes by the names as written: the mapping's own 1 overrides the
// merged 1, and 01 is another field.
func TestMergeByNameAsWritten(t *testing.T) {
	f, err := Parse("x.yml", []byte("items:\n  - name: a\n    fields: &b {1: h1, 02: h4}\n  - name: y\n    fields:\n      1: h2\n      <<: *b\n      01: h3\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fl := range f.Items[1].Fields {
		got = append(got, fl.Name+"="+fl.Source.Src)
	}
	if want := "1=h2 02=h4 01=h3"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}
