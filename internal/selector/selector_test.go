package selector

import (
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
)

const testPage = `<!DOCTYPE html>
<html><head><title> Shop &amp; Co </title><meta name="description" content="Fine &quot;things&quot;"></head>
<body>
<h1>
  Hello <span>big</span> world
</h1>
<div class="product" data-id="7">
  <h3><a href="/p/1" title="First &lt;one&gt;">First</a></h3>
  <p class="price">£10.50</p>
  <ul class="tags"><li>a</li><li> </li><li>b</li></ul>
</div>
<div class="product" data-id="8">
  <h3><a href="/p/2" title="Second">Second</a></h3>
  <p class="price">£7</p>
</div>
<p id="broken">unclosed <b>bold <i>both</b> tail
</div></div>
<p id="after">after stray</p>
<!-- a comment -->
<svg><a xlink:href="/svg"><text>svg text</text></a></svg>
</body></html>`

func TestSelectors(t *testing.T) {
	d := ParseDoc(testPage, "https://shop.example/list")
	tests := []struct {
		name, sel string
		want      []string // every value (Select), blank ones included
	}{
		{"css whole text is descendants' text", "h1", []string{"\n  Hello big world\n"}},
		{"css ::text is direct text nodes only", "h1::text", []string{"\n  Hello ", " world\n"}},
		{"css space ::text is all text below", "h1 ::text", []string{"\n  Hello ", "big", " world\n"}},
		{"css ::attr", "h3 a::attr(href)", []string{"/p/1", "/p/2"}},
		{"css ::attr quoted name", `h3 a::attr("title")`, []string{"First <one>", "Second"}},
		{"css ::attr decodes entities", "meta::attr(content)", []string{`Fine "things"`}},
		{"css space ::attr includes descendants", "div.product ::attr(href)", []string{"/p/1", "/p/2"}},
		{"css ::attr on the element itself", "div.product::attr(data-id)", []string{"7", "8"}},
		{"css missing attribute", "h1::attr(id)", nil},
		{"css ::html is outer HTML", "p.price::html", []string{`<p class="price">£10.50</p>`, `<p class="price">£7</p>`}},
		{"css entities decoded in text", "title", []string{" Shop & Co "}},
		{"css group keeps document order", "p.price, h1 span", []string{"big", "£10.50", "£7"}},
		{"css group with different pseudo-elements", "h1 span::text, h3 a::attr(href)", []string{"big", "/p/1", "/p/2"}},
		{"css no match", "table td", nil},
		// As browsers do: </b> closes the <i> inside it and reopens it after.
		{"css broken html: misnested tags", "#broken i", []string{"both", " tail\n\n"}},
		{"css stray end tags are ignored", "#after", []string{"after stray"}},
		{"css pseudo-class", "ul.tags li:nth-child(3)", []string{"b"}},
		{"css svg a", "svg a::attr(xlink:href)", []string{"/svg"}},
		{"forced css", "css:title", []string{" Shop & Co "}},
		{"xpath element is its text", "//p[@class='price']", []string{"£10.50", "£7"}},
		{"xpath attribute", "//h3/a/@title", []string{"First <one>", "Second"}},
		{"xpath text nodes", "//h1/text()", []string{"\n  Hello ", " world\n"}},
		{"xpath string function", `substring-after(//p[@class="price"], "£")`, []string{"10.50"}},
		{"xpath normalize-space", "normalize-space(//h1)", []string{"Hello big world"}},
		{"xpath count is an integer", "count(//div[@class='product'])", []string{"2"}},
		{"xpath sum with a fraction", "sum(//div/@data-id) div 2", []string{"7.5"}},
		{"xpath boolean", "boolean(//h1)", []string{"true"}},
		{"xpath not", "not(//table)", []string{"true"}},
		{"xpath string() of nothing", "string(//table)", []string{""}},
		{"xpath parenthesized", "(//h3/a)[2]/@href", []string{"/p/2"}},
		{"xpath comment", "//comment()", []string{" a comment "}},
		{"xpath text() at start", "text()", nil},
		{"forced xpath", "xpath:count(//li)", []string{"3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(tt.sel)
			if err != nil {
				t.Fatalf("Compile(%q): %v", tt.sel, err)
			}
			vals, err := s.Select(d)
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			var got []string
			for _, v := range vals {
				got = append(got, v.Text)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("Select(%q) = %q, want %q", tt.sel, got, tt.want)
			}
		})
	}
}

func TestFirstSkipsBlankValues(t *testing.T) {
	d := ParseDoc(`<div class="p">
	  <span>£</span> 12.99
	</div><ul><li> </li><li>x</li></ul>`, "")
	for sel, want := range map[string]string{
		"div.p::text":        "12.99", // the first text node is only indentation
		"ul li":              "x",
		"number('abc')":      "",  // NaN is no value
		"count(//table)":     "0", // zero is one
		"boolean(//table)":   "false",
		"string(//table)":    "",
		"div.p ::text":       "£",
		"//ul/li[2]/text()":  "x",
		"div.p::attr(class)": "p",
	} {
		s, err := Compile(sel)
		if err != nil {
			t.Fatal(err)
		}
		v, ok, err := s.First(d, d.Root)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (want != "") || strings.TrimSpace(v.Text) != want {
			t.Errorf("First(%q) = %q, %v; want %q", sel, v.Text, ok, want)
		}
	}
}

func TestLooksLikeXPath(t *testing.T) {
	xpath := []string{"//a", "/html/body", "(//a)[1]", "./p", "../p", ".//p", "count(//a)",
		"normalize-space(//h1)", "substring-after(//p, 'x')", "string(.)", "concat('a', 'b')",
		"text()", "  //a", "starts-with (//a/@href, 'x')"}
	css := []string{"a", "div.x", ".price", "#id", "a[href]", "p::text", "*", "h1 ::text", "ul > li",
		"a:not(.x)", "li:nth-child(2)", "css-thing", "counter", "foo(x)", ".", "text", "@href"}
	for _, s := range xpath {
		if !looksLikeXPath(s) {
			t.Errorf("%q taken for CSS", s)
		}
	}
	for _, s := range css {
		if looksLikeXPath(s) {
			t.Errorf("%q taken for XPath", s)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ sel, want string }{
		{"p.[", `invalid CSS selector "p.[": expected identifier`},
		{"", "empty selector"},
		{"   ", "empty selector"},
		{"a,,b", "empty selector in a comma-separated group"},
		{"div::text p", "::text must end the selector"},
		{"a::attr", "::attr needs an attribute name"},
		{"a::attr()", "::attr() needs an attribute name"},
		{"a::attr(href", "::attr( is not closed"},
		{"a::before", "unsupported pseudo-element ::before"},
		{"//a[", `invalid XPath "//a[": '[' at offset 3 is not closed`},
		{"count(//a", "'(' at offset 5 is not closed"},
		{"//a]", "unexpected ']' at offset 3"},
		{`//a[@x="y]`, "string opened at offset 7 is not closed"},
		{"starts-with(1, 2)", "evaluation failed"},
		{"//a[@@]", "invalid XPath"},
		{"xpath:", "empty selector"},
		{"css:", "empty selector"},
		{"foo(1)", "prefix xpath:"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.sel)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%q) = %v, want an error containing %q", tt.sel, err, tt.want)
		}
	}
}

func TestElements(t *testing.T) {
	d := ParseDoc(testPage, "")
	for _, sel := range []string{"div.product", "//div[@class='product']"} {
		s, _ := Compile(sel)
		nodes, err := s.Elements(d, d.Root)
		if err != nil || len(nodes) != 2 {
			t.Fatalf("Elements(%q) = %d nodes, %v", sel, len(nodes), err)
		}
		// Relative to each element: CSS looks below it, XPath ./ too, and
		// XPath // still means the whole page.
		for sub, want := range map[string]string{"h3 a": "First", ".//a/@href": "/p/1", "//h1/span": "big", "::attr(data-id)": "7"} {
			ss, err := Compile(sub)
			if err != nil {
				t.Fatal(err)
			}
			v, ok, err := ss.First(d, nodes[0])
			if err != nil || !ok || v.Text != want {
				t.Errorf("under %q: First(%q) = %q %v %v, want %q", sel, sub, v.Text, ok, err, want)
			}
		}
	}
	s, _ := Compile("a::text")
	if s.SelectsElements() {
		t.Error("a::text selects elements?")
	}
	if _, err := s.Elements(d, d.Root); err == nil {
		t.Error("Elements of a::text: no error")
	}
	s, _ = Compile("//a/@href")
	if nodes, err := s.Elements(d, d.Root); err != nil || len(nodes) != 0 {
		t.Errorf("Elements of attributes = %d, %v", len(nodes), err)
	}
	s, _ = Compile("count(//a)")
	if nodes, err := s.Elements(d, d.Root); err != nil || len(nodes) != 0 {
		t.Errorf("Elements of a number = %d, %v", len(nodes), err)
	}
}

func TestFormatNumber(t *testing.T) {
	for f, want := range map[float64]string{3: "3", -2: "-2", 0.5: "0.5", 1e21: "1e+21", 123456789012: "123456789012", 1.25e-7: "1.25e-07"} {
		if got := formatNumber(f); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestRecordFields(t *testing.T) {
	d := ParseDoc(`<p>x</p>`, "https://a.example/x")
	d.Record = []byte(`{"kind":"response","url":"https://a.example/x","status":200,"fetched_at":"2024-05-01T10:00:00Z",` +
		`"request":{"url":"https://a.example/p/1","attrs":{"cat":"books","ids":[1,"two",[3]],"big":12345678901234567890,` +
		`"o":{"a": 1},"flag":true,"none":null,"sp":"  x  "}},"body":"<p>x</p>"}`)
	tests := []struct {
		sel  string
		want []string
	}{
		{"@url", []string{"https://a.example/x"}},
		{" @status", []string{"200"}},
		{"@fetched_at", []string{"2024-05-01T10:00:00Z"}},
		{"@request.url", []string{"https://a.example/p/1"}},
		{"@request.attrs.cat", []string{"books"}},
		{"@request.attrs.ids", []string{"1", "two", "[3]"}},
		{"@request.attrs.big", []string{"12345678901234567890"}},
		{"@request.attrs.o", []string{`{"a":1}`}},
		{"@request.attrs.flag", []string{"true"}},
		{"@request.attrs.none", nil},
		{"@request.attrs.sp", []string{"  x  "}},
		{"@missing", nil},
		{"@url.deeper", nil},
		{"@request.nope.x", nil},
	}
	for _, tt := range tests {
		s, err := Compile(tt.sel)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.sel, err)
		}
		vals, err := s.Select(d)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range vals {
			got = append(got, v.Text)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s = %q, want %q", tt.sel, got, tt.want)
		}
	}
	for _, bad := range []string{"@", "@ url", "@a..b", "@url[1]"} {
		if _, err := Compile(bad); err == nil || !strings.Contains(err.Error(), "record field") {
			t.Errorf("Compile(%q) = %v, want a record field error", bad, err)
		}
	}
	// No record: no value, no panic.
	s, _ := Compile("@url")
	if vals, _ := s.Select(ParseDoc("", "")); len(vals) != 0 {
		t.Errorf("@url without a record = %v", vals)
	}
	if s.SelectsElements() {
		t.Error("@url selects elements?")
	}
}

// TestXPathNodeSetsHoldEachNodeOnce: a node-set holds each node once, as
// lxml (and parsel) give it. antchfx/xpath's descendant axis walks the
// subtree of every context node, so a link inside two nested divs came
// twice from //div//a, and so did the cells of a table inside a table.
func TestXPathNodeSetsHoldEachNodeOnce(t *testing.T) {
	d := ParseDoc(`<div class="c"><div class="c"><a href="/1">one</a></div><a href="/2">two</a></div>
<table><tr><td>A</td><td><table><tr><td>B</td></tr></table></td></tr></table>`, "https://shop.example/")
	tests := []struct {
		sel  string
		want []string
	}{
		{"//div//a/@href", []string{"/1", "/2"}},
		{"//div[@class='c']//a", []string{"one", "two"}},
		{"//div//text()", []string{"one", "two"}},
		{"//table//td/text()", []string{"A", "B"}},
		{"//div/descendant-or-self::div/@class", []string{"c", "c"}},
	}
	for _, tt := range tests {
		s, err := Compile(tt.sel)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.sel, err)
		}
		vals, err := s.Select(d)
		if err != nil {
			t.Fatalf("Select(%q): %v", tt.sel, err)
		}
		var got []string
		for _, v := range vals {
			got = append(got, v.Text)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Select(%q) = %q, want %q", tt.sel, got, tt.want)
		}
	}
	s, err := Compile("//div//a")
	if err != nil {
		t.Fatal(err)
	}
	if els, err := s.Elements(d, d.Root); err != nil || len(els) != 2 {
		t.Errorf("Elements(//div//a) = %d elements (%v), want 2", len(els), err)
	}
}

// TestXPathAttributesOfOneElement: two attributes of one element are two
// nodes, whatever their names and values (htmlquery gives no attribute a
// prefix: href and xlink:href are both "href").
func TestXPathAttributesOfOneElement(t *testing.T) {
	d := ParseDoc(`<svg><a href="/x" xlink:href="/x" title="/x"></a></svg>`, "https://shop.example/")
	s, err := Compile("//a/@*")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := s.Select(d)
	if err != nil || len(vals) != 3 {
		t.Errorf("Select(//a/@*) = %v (%v), want 3 values", vals, err)
	}
}

// TestCSSGivesEachNodeOnce: as parsel's CSS (an XPath node-set), a text
// node or attribute is one value however many matches of the selector, or
// groups of it, reach it: "div ::text" with nested divs, "a::text, .x::text"
// on an <a class=x>.
func TestCSSGivesEachNodeOnce(t *testing.T) {
	d := ParseDoc(`<div class="c"><div class="c"><a class="x" href="/1">one</a></div><a href="/2">two</a></div>`, "https://shop.example/")
	tests := []struct {
		sel  string
		want []string
	}{
		{"div ::text", []string{"one", "two"}},
		{"div.c ::attr(href)", []string{"/1", "/2"}},
		{"div ::attr(class)", []string{"c", "c", "x"}},
		{"a::text, .x::text", []string{"one", "two"}},
		{"div a, a.x", []string{"one", "two"}},
		{"a.x::html, a::html", []string{`<a class="x" href="/1">one</a>`, `<a href="/2">two</a>`}},
		{"a::attr(href), .x::attr(href), a::text", []string{"/1", "one", "/2", "two"}},
		{"a.x, a.x::text", []string{"one", "one"}},             // an element's text and its text node are two values
		{"a::attr(href), a::attr(HREF)", []string{"/1", "/2"}}, // one attribute, named in two cases
	}
	for _, tt := range tests {
		s, err := Compile(tt.sel)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.sel, err)
		}
		vals, err := s.Select(d)
		if err != nil {
			t.Fatalf("Select(%q): %v", tt.sel, err)
		}
		var got []string
		for _, v := range vals {
			got = append(got, v.Text)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Select(%q) = %q, want %q", tt.sel, got, tt.want)
		}
	}
}

// TestXPathNodeSetsInDocumentOrder: a node-set comes in document order, as
// lxml gives it, however antchfx/xpath met its nodes: a union, a reverse
// axis, a parent step; an element's attributes in the order they are
// written.
func TestXPathNodeSetsInDocumentOrder(t *testing.T) {
	d := ParseDoc(`<div class="outer"><h2>One</h2><p>a</p><p>b</p><h2>Two</h2>`+
		`<div class="inner"><p>c<b>!</b></p><span title="t" data-h="/h">l</span></div></div>`, "https://shop.example/")
	tests := []struct {
		sel  string
		want []string
	}{
		{"//h2 | //p", []string{"One", "a", "b", "Two", "c!"}},
		{"//p/text() | //h2/text() | //p/text()", []string{"One", "a", "b", "Two", "c"}},
		{"//h2[2]/preceding-sibling::p", []string{"a", "b"}},
		{"//b/ancestor::div/@class", []string{"outer", "inner"}},
		{"//b/ancestor-or-self::*[@class]/@class", []string{"outer", "inner"}},
		{"//p/..//@class | //h2", []string{"outer", "One", "Two", "inner"}},
		{"//span/@data-h | //span/@title", []string{"t", "/h"}},
		{"//span/@data-h | //span", []string{"l", "/h"}},
		{`//p[.="|"] | //h2[1]`, []string{"One"}},
	}
	for _, tt := range tests {
		s, err := Compile(tt.sel)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.sel, err)
		}
		vals, err := s.Select(d)
		if err != nil {
			t.Fatalf("Select(%q): %v", tt.sel, err)
		}
		var got []string
		for _, v := range vals {
			got = append(got, v.Text)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Select(%q) = %q, want %q", tt.sel, got, tt.want)
		}
	}
	s, err := Compile("//h2[2] | //p")
	if err != nil {
		t.Fatal(err)
	}
	els, err := s.Elements(d, d.Root)
	var got []string
	for _, e := range els {
		got = append(got, htmlparse.TextContent(e))
	}
	if err != nil || strings.Join(got, "|") != "a|b|Two|c!" {
		t.Errorf("Elements(//h2[2] | //p) = %q (%v), want a, b, Two, c!", got, err)
	}
}

// TestCSSTextAsParsel: parsel's readings of ::text and ::attr() that a
// Scrapy user relies on. "X *::text" is "X ::text" (the text of X and of
// everything below it: Scrapy's idiom for all the text of an element), and
// "*::text" alone all the text below the context node; ::text of matches
// nested in one another (a menu's lists) comes in document order.
func TestCSSTextAsParsel(t *testing.T) {
	page := `<div id="d">own <p class="note">Second <b>bold</b> tail</p> more <a href="/x" title="t">l</a></div>` +
		`<ul class="menu"><li>Home</li><li>Shop<ul><li>Kites</li><li>Lamps</li></ul>more</li><li>End</li></ul>` +
		`<p id="q">x<b>y<b>z</b>w</b>v</p>`
	d := ParseDoc(page, "https://shop.example/")
	tests := []struct {
		sel  string
		want []string
	}{
		{"p.note *::text", []string{"Second ", "bold", " tail"}},
		{"#d *::text", []string{"own ", "Second ", "bold", " tail", " more ", "l"}},
		{"#d\t*::attr(title)", []string{"t"}},
		{"#d *::attr(id)", []string{"d"}},
		{"#d > *::text", []string{"Second ", " tail", "l"}},
		{"#d *:first-child::text", []string{"Second ", "bold", " tail"}},
		{"p.note *.x::text", nil},
		{"li::text", []string{"Home", "Shop", "Kites", "Lamps", "more", "End"}},
		{"#q b::text", []string{"y", "z", "w"}},
		{"#q b::text, #q::text", []string{"x", "y", "z", "w", "v"}},
	}
	for _, tt := range tests {
		s, err := Compile(tt.sel)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.sel, err)
		}
		vals, err := s.Select(d)
		if err != nil {
			t.Fatalf("Select(%q): %v", tt.sel, err)
		}
		var got []string
		for _, v := range vals {
			got = append(got, v.Text)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Select(%q) = %q, want %q", tt.sel, got, tt.want)
		}
	}
	// Relative to an element (--each), "*::text" is all the text below it,
	// its own included.
	ps, _ := Compile("p.note")
	els, _ := ps.Elements(d, d.Root)
	s, err := Compile("*::text")
	if err != nil || len(els) != 1 {
		t.Fatalf("Compile(*::text): %v, %d p.note", err, len(els))
	}
	vals, _ := s.SelectFrom(d, els[0])
	var got []string
	for _, v := range vals {
		got = append(got, v.Text)
	}
	if strings.Join(got, "|") != "Second |bold| tail" {
		t.Errorf("*::text of p.note = %q, want its own text and its b's", got)
	}
}
