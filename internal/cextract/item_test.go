package cextract

import (
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/selector"
)

func TestItemRule(t *testing.T) {
	const listing = `<html><head><title>List</title></head><body>
<h1 class="t">  Books  &amp; "quotes" <b>&lt;bold&gt;</b>  </h1>
<article><h3><a title="A" href="/a">a</a></h3><p class="price">£1</p><span class="tag">x</span><span class="tag"> </span><span class="tag">y</span></article>
<article><h3><a title="B" href="/b">b</a></h3></article>
<article><p>nothing here</p></article>
</body></html>`
	tests := []struct {
		name   string
		fields []string
		each   string
		raw    bool
		want   []string
		empty  int
	}{
		{
			name:   "fields in flag order, trimmed, not HTML-escaped",
			fields: []string{"title=h1", "page=title", "n=count(//article)"},
			want:   []string{`{"title":"Books  & \"quotes\" <bold>","page":"List","n":3}`}, // inner white space kept
		},
		{
			name:   "raw keeps white space",
			fields: []string{"title=h1::text"},
			raw:    true,
			want:   []string{`{"title":"  Books  & \"quotes\" "}`},
		},
		{
			name:   "all values as an array, blanks dropped",
			fields: []string{"tags[]=span.tag", "none[]=table", "n[]=count(//h3)"},
			want:   []string{`{"tags":["x","y"],"n":[2]}`},
		},
		{
			name:   "no match is left out",
			fields: []string{"missing=table", "title=title"},
			want:   []string{`{"title":"List"}`},
		},
		{
			name:   "nothing matched: no item",
			fields: []string{"missing=table", "gone=//table/@x"},
			empty:  1,
		},
		{
			name:   "each: one item per element, fields relative, empty ones left out",
			fields: []string{"title=h3 a::attr(title)", "url=.//a/@href", "price=p.price", "tags[]=.tag"},
			each:   "article",
			want:   []string{`{"title":"A","url":"/a","price":"£1","tags":["x","y"]}`, `{"title":"B","url":"/b"}`},
			empty:  1,
		},
		{
			name:   "each by XPath, absolute XPath still sees the whole page",
			fields: []string{"title=h3 a::attr(title)", "page=//title"},
			each:   "//article[h3]",
			want:   []string{`{"title":"A","page":"List"}`, `{"title":"B","page":"List"}`},
		},
		{
			name:   "each matching nothing",
			fields: []string{"x=p"},
			each:   "table",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &ItemRule{Raw: tt.raw}
			for _, spec := range tt.fields {
				f, err := ParseField(spec)
				if err != nil {
					t.Fatal(err)
				}
				r.Fields = append(r.Fields, f)
			}
			if tt.each != "" {
				r.Each, _ = selector.Compile(tt.each)
			}
			items, empty, errs := r.Extract(selector.ParseDoc(listing, "https://a.example/"))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var got []string
			for _, it := range items {
				got = append(got, string(it))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || empty != tt.empty {
				t.Fatalf("items =\n%s\n(empty %d), want\n%s\n(empty %d)", strings.Join(got, "\n"), empty, strings.Join(tt.want, "\n"), tt.empty)
			}
		})
	}
}

func TestParseField(t *testing.T) {
	for spec, want := range map[string]Field{
		"title=h1":                   {Name: "title"},
		"all[]=li":                   {Name: "all", All: true},
		" spaced = h1":               {Name: "spaced"},
		`price=//p[@class="x"]/@y`:   {Name: "price"},
		"名前=h1":                      {Name: "名前"},
		"a.b=substring-after(p,'=')": {Name: "a.b"},
	} {
		f, err := ParseField(spec)
		if err != nil || f.Name != want.Name || f.All != want.All {
			t.Errorf("ParseField(%q) = %+v, %v", spec, f, err)
		}
	}
	for spec, msg := range map[string]string{
		"title":     "want NAME=SELECTOR",
		"=h1":       "want NAME=SELECTOR",
		"[]=h1":     "want NAME=SELECTOR",
		"price=p.[": `price: invalid CSS selector "p.["`,
		"price=":    "price: invalid CSS selector \"\": empty selector",
	} {
		if _, err := ParseField(spec); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseField(%q) = %v, want %q", spec, err, msg)
		}
	}
}

func TestFieldRuntimeErrorIsReported(t *testing.T) {
	// The pattern comes from the page, so it fails only on this page.
	f, err := ParseField(`m=//p[matches(., string(//b))]`)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := ParseField("ok=p")
	r := &ItemRule{Fields: []Field{f, g}}
	items, _, errs := r.Extract(selector.ParseDoc(`<p>x</p><b>[</b>`, ""))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "-f m: evaluation failed") {
		t.Fatalf("errs = %v", errs)
	}
	if len(items) != 1 || string(items[0]) != `{"ok":"x"}` {
		t.Fatalf("items = %s", items)
	}
}
