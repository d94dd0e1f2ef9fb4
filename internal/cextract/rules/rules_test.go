package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/linkfind"
)

const example = `# rules for a shop
version: 1
name: shop
items:
  - name: product
    match:
      url: '/catalogue/[^/]+/$'
    fields:
      url: '@url'
      title: h1
      price:
        css: p.price_color::text
        process: [{replace: ['£', '']}, float]
        required: true
      tags: {css: '.tags a::text', all: true}
      rating:
        xpath: //p[contains(@class, "star-rating")]/@class
        re: 'star-rating (\w+)'
        process:
          - map: {One: 1, Two: 2, Three: 3, Four: 4, Five: 5}
      seller:
        fields:
          name: .seller .name
      variants:
        each: .variant
        fields:
          sku: {css: '::attr(data-sku)'}
          in_stock: {value: true}
  - name: feed_item
    match: {type: xml, url: '\.rss$'}
    each: item
    namespaces: {g: 'http://base.google.com/ns/1.0'}
    fields:
      title: title
  - name: row
    csv: {delimiter: ';', headers: [a, b]}
links:
  - name: pages
    match: {url: /category/}
    allow: ['page-\d+\.html$']
    restrict_css: ul.pager
    priority_step: -5
  - match: {type: json}
    select: {jq: .next}
sitemaps:
  - match: {url: 'robots\.txt$|sitemap'}
    follow: products
    lastmod_after: 2024-01-01
`

func TestParseExample(t *testing.T) {
	f, err := Parse("shop.yml", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if f.Spider != "shop" || len(f.Items) != 3 || len(f.Links) != 2 || len(f.Sitemaps) != 1 {
		t.Fatalf("%+v", f)
	}
	p := f.Items[0]
	var names []string
	for _, fl := range p.Fields {
		names = append(names, fl.Name)
	}
	if strings.Join(names, ",") != "url,title,price,tags,rating,seller,variants" {
		t.Fatalf("field order %v", names)
	}
	price := p.Fields[2]
	if price.Source.Lang != CSS || price.Source.Src != "p.price_color::text" || !price.Required || len(price.Process) != 2 || price.Line != 11 || price.Col != 7 {
		t.Fatalf("price %+v", price)
	}
	if r := p.Fields[4]; r.Source.Lang != XPath || len(r.Process) != 2 || r.Process[0].Name() != "re" {
		t.Fatalf("rating %+v", r)
	}
	if v := p.Fields[6]; v.Each == nil || len(v.Fields) != 2 || v.Fields[1].Source.Value.Text != "true" {
		t.Fatalf("variants %+v", v)
	}
	if x := f.Items[1]; x.Match.Type != XML || x.Namespaces["g"] == "" || x.Each.Src != "item" {
		t.Fatalf("feed %+v", x)
	}
	if c := f.Items[2]; c.Match.Type != CSV || c.CSV.Delimiter != ';' || len(c.CSV.Headers) != 2 {
		t.Fatalf("csv %+v", c)
	}
	if l := f.Links[0]; l.PriorityStep != -5 || !l.Unique || l.DenyExtensions != nil || len(l.RestrictCSS) != 1 {
		t.Fatalf("link %+v", l)
	}
	if l := f.Links[1]; l.Select == nil || l.Select.Source.Lang != JQ || l.PriorityStep != DefaultPriorityStep {
		t.Fatalf("json link %+v", l)
	}
	if s := f.Sitemaps[0]; len(s.Follow) != 1 || s.LastmodAfter.Value != "2024-01-01" {
		t.Fatalf("sitemap %+v", s)
	}
}

func TestParseJSON(t *testing.T) {
	f, err := Parse("r.json", []byte(`{"items": [{"name": "p", "fields": {"t": "h1", "n": {"xpath": "count(//a)", "process": ["int"]}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Items[0].Fields) != 2 || f.Items[0].Fields[1].Source.Lang != XPath {
		t.Fatalf("%+v", f.Items[0])
	}
	_, err = Parse("r.json", []byte(`{"items": [{"name": "p", "felds": {}}]}`))
	if err == nil || !strings.Contains(err.Error(), `r.json:1:26: unknown field "felds" in item rule "p" (did you mean "fields"?)`) {
		t.Fatalf("got %v", err)
	}
}

// TestParseByteOrderMark: a rules file saved with a byte order mark (a
// Windows editor) is the same rules; its errors keep their lines.
func TestParseByteOrderMark(t *testing.T) {
	f, err := Parse("r.yml", []byte("\xef\xbb\xbfitems:\r\n  - name: p\r\n    fields: {t: h1}\r\n"))
	if err != nil || len(f.Items) != 1 || f.Items[0].Name != "p" {
		t.Fatalf("%+v, %v", f, err)
	}
	_, err = Parse("r.yml", []byte("\xef\xbb\xbfitems:\n  - name: p\n    felds: {t: h1}\n"))
	if err == nil || !strings.Contains(err.Error(), `r.yml:3:5: unknown field "felds"`) {
		t.Fatalf("got %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown key with suggestion", "items:\n  - name: p\n    felds:\n      t: h1\n", `x.yml:3:5: unknown field "felds" in item rule "p"`},
		{"did you mean", "items:\n  - name: p\n    felds:\n      t: h1\n", `(did you mean "fields"?)`},
		{"empty file", "", "x.yml:1:1: the file is empty"},
		{"not a mapping", "- a\n", "x.yml:1:1: a rules file is a mapping"},
		{"syntax error", "items: [\n", "x.yml:"},
		{"no rules", "version: 1\n", "no rules: give items, links or sitemaps"},
		{"bad version", "version: 2\nitems: []\n", "x.yml:1:10: version: this cextract reads version 1, got 2"},
		{"items not a list", "items: {a: 1}\n", "x.yml:1:8: items: want a list of rules"},
		{"no name", "items:\n  - fields: {t: h1}\n", "x.yml:2:5: item rule 1: needs a name"},
		{"bad name", "items:\n  - name: 'a b'\n    fields: {t: h1}\n", `name "a b": use letters`},
		{"no fields", "items:\n  - name: p\n", `item rule "p": needs fields`},
		{"bad regex", "items:\n  - name: p\n    match: {url: '(?=x)'}\n    fields: {t: h1}\n", `x.yml:3:18: match.url "(?=x)": error parsing regexp`},
		{"bad type", "items:\n  - name: p\n    match: {type: pdf}\n    fields: {t: h1}\n", "match.type: want html, xml, json, csv or text"},
		{"two sources", "items:\n  - name: p\n    fields:\n      t: {css: h1, xpath: //h1}\n", "give one of css, xpath"},
		{"no source", "items:\n  - name: p\n    fields:\n      t: {all: true}\n", `field "t": say where its value comes from`},
		{"unknown processor", "items:\n  - name: p\n    fields:\n      t: {css: h1, process: [stripp]}\n", `x.yml:4:30: field "t": unknown processor "stripp"`},
		{"bad processor arg", "items:\n  - name: p\n    fields:\n      t: {css: h1, process: [{join: [1]}]}\n", "join takes the separator"},
		{"each without fields", "items:\n  - name: p\n    fields:\n      t: {each: li}\n", "each needs fields"},
		{"bool wanted", "items:\n  - name: p\n    fields:\n      t: {css: h1, all: yes please}\n", "all: want true or false"},
		{"duplicate key", "items:\n  - name: p\n    fields:\n      t: h1\n      t: h2\n", `x.yml:5:7: mapping key "t" already defined at [4:7]`},
		{"duplicate rule", "items:\n  - name: p\n    fields: {t: h1}\n  - name: p\n    fields: {t: h1}\n", `item rule "p" is defined twice`},
		{"csv type clash", "items:\n  - name: p\n    match: {type: json}\n    csv: {}\n", "csv options need match.type csv"},
		{"csv char", "items:\n  - name: p\n    csv: {delimiter: ';;'}\n", "csv.delimiter: want one ASCII character"},
		{"link select and tags", "links:\n  - select: .next\n    tags: [a]\n", "select picks the URLs itself"},
		{"json link needs select", "links:\n  - match: {type: json}\n", "add select"},
		{"link bad key", "links:\n  - alow: x\n", `unknown field "alow" in link rule 1 (did you mean "allow"?)`},
		{"unknown link kind", "links:\n  - kinds: [navigation, images]\n", `x.yml:2:25: link rule 1: kinds: unknown link kind "images" (want navigation, resources, forms, scripts, all)`},
		{"no link kinds", "links:\n  - kinds: []\n", "kinds: give at least one"},
		{"kinds and tags", "links:\n  - kinds: [all]\n    tags: [img]\n", "kinds picks the tags and attributes itself"},
		{"post_forms without forms", "links:\n  - kinds: [navigation]\n    post_forms: true\n", "post_forms: add forms (or all) to kinds"},
		{"sitemap date", "sitemaps:\n  - lastmod_after: soon\n", "lastmod_after: want a date"},
		{"alias to nothing", "items:\n  - name: p\n    fields: *f\n", "no anchor"},
		{"two documents", "items: []\n---\nlinks: []\n", "more than one YAML document"},
		{"files names no field", "items:\n  - name: p\n    fields: {t: h1, image_urls: {css: img::attr(src), all: true}}\n    files: [image_url]\n", `x.yml:4:13: item rule "p": files: "image_url" is not a field of the item (its fields: t, image_urls)`},
		{"files given twice", "items:\n  - name: p\n    fields: {t: h1}\n    files: [t, t]\n", `x.yml:4:16: item rule "p": files: "t" given twice`},
		{"field named files", "items:\n  - name: p\n    fields: {t: h1, files: a}\n    files: t\n", `item rule "p": field "files": the item's files go there (files:): rename the field`},
		{"files not strings", "items:\n  - name: p\n    fields: {t: h1}\n    files: {t: 1}\n", `files: want a string, got`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yml", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			for _, e := range err.(Errors) {
				if e.Line < 1 || e.Col < 1 || e.File != "x.yml" {
					t.Fatalf("error without position: %#v", e)
				}
			}
		})
	}
}

func TestItemFiles(t *testing.T) {
	f, err := Parse("x.yml", []byte("items:\n  - name: p\n    fields: {t: h1, imgs: {css: img::attr(src), all: true}, pdf: a::attr(href)}\n    files: [imgs, pdf]\n  - name: q\n    fields: {t: h1}\n    files: t\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range f.Items {
		for _, s := range r.Files {
			got = append(got, fmt.Sprintf("%s.%s@%d:%d", r.Name, s.Value, s.Line, s.Col))
		}
	}
	if want := "p.imgs@4:13 p.pdf@4:19 q.t@7:12"; strings.Join(got, " ") != want {
		t.Errorf("files: %v, want %s", got, want)
	}
}

func TestAnchorsAndMerge(t *testing.T) {
	src := `
items:
  - name: a
    fields:
      price: &price
        css: .price::text
        process: [float]
      title: &t h1
  - name: b
    fields:
      price: *price
      title: *t
      more:
        <<: *price
        all: true
`
	f, err := Parse("m.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b := f.Items[1]
	if b.Fields[0].Source.Src != ".price::text" || b.Fields[1].Source.Src != "h1" || !b.Fields[2].All || len(b.Fields[2].Process) != 1 {
		t.Fatalf("%+v %+v %+v", b.Fields[0], b.Fields[1], b.Fields[2])
	}
}

func TestAllErrorsAreReported(t *testing.T) {
	src := "items:\n  - name: p\n    felds: 1\n    fields:\n      a: {css: h1, process: [nope]}\n      b: {csss: h1}\n"
	_, err := Parse("x.yml", []byte(src))
	es, ok := err.(Errors)
	if !ok || len(es) != 3 {
		t.Fatalf("got %v", err)
	}
	if es[0].Line != 3 || es[1].Line != 5 || es[2].Line != 6 {
		t.Fatalf("not in file order: %v", err)
	}
}

// With errors, Parse still returns what it could read, for a checker to
// compile: the rules without their faulty values, and without a rule
// whose match.type it does not know.
func TestParseReturnsWhatItCouldRead(t *testing.T) {
	src := "items:\n  - name: p\n    felds: 1\n    fields:\n      a: h1\n      b: {css: h2, process: [nope]}\n" +
		"  - name: q\n    match: {type: pdf}\n    fields: {c: h3}\nlinks:\n  - alow: x\n    restrict_css: [nav]\n"
	f, err := Parse("x.yml", []byte(src))
	if len(err.(Errors)) != 4 {
		t.Fatalf("errors: %v", err)
	}
	if f == nil || len(f.Items) != 1 || len(f.Items[0].Fields) != 2 || f.Items[0].Fields[1].Process != nil || len(f.Links) != 1 || len(f.Links[0].RestrictCSS) != 1 {
		t.Fatalf("partial file: %+v", f)
	}
	if f, _ := Parse("x.yml", []byte("items: [\n")); f != nil {
		t.Fatalf("not YAML, yet a file: %+v", f)
	}
}

func TestMergeSortsAndDropsRepeats(t *testing.T) {
	a := Errors{Errorf("f", Pos{3, 1}, "c"), Errorf("f", Pos{1, 5}, "a")}
	b := Errors{Errorf("f", Pos{1, 5}, "a"), Errorf("f", Pos{1, 5}, "b"), Errorf("f", Pos{2, 1}, "x")}
	if got := Merge(a, b).Error(); got != "f:1:5: a\nf:1:5: b\nf:2:1: x\nf:3:1: c" {
		t.Fatalf("got\n%s", got)
	}
}

// match.type csv alone reads the rows with the default options.
func TestCSVRuleWithoutOptions(t *testing.T) {
	f, err := Parse("x.yml", []byte("items:\n  - name: row\n    match: {type: csv}\n    fields: {sku: sku}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := f.Items[0].CSV; o == nil || o.Delimiter != ',' || o.Quote != '"' || o.Headers != nil {
		t.Fatalf("CSV options: %+v", o)
	}
}

func TestLinkKinds(t *testing.T) {
	f, err := Parse("x.yml", []byte("links:\n  - kinds: [navigation, FORMS]\n    post_forms: true\n  - kinds: all\n  - name: plain\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Links[0].Kinds; got != linkfind.Navigation|linkfind.Forms || !f.Links[0].PostForms {
		t.Errorf("kinds = %v, post_forms %v", got, f.Links[0].PostForms)
	}
	if got := f.Links[1].Kinds; got != linkfind.All {
		t.Errorf("kinds: all = %v", got)
	}
	if got := f.Links[2].Kinds; got != 0 {
		t.Errorf("no kinds: %v, want 0 (the a and area hrefs)", got)
	}
}
