package selector

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
)

// FuzzSelector: compiling any string never panics, and a selector that
// compiles runs on a page without panicking (it may report an error).
func FuzzSelector(f *testing.F) {
	for _, s := range []string{
		"h1", "h1::text", "h1 ::text", "a::attr(href)", `a::attr("title")`, "div::html", "::attr(x)", " ::text",
		"a, b::text", "p.[", "a::text p", "ul > li:nth-child(2n+1)", `a[href$=".pdf"]`, `p:contains("::text")`,
		"//a/@href", "(//a)[1]", "./p", "../p", "@href", "count(//a)", `substring-after(//p, "£")`,
		"normalize-space(//h1)", "//a[", "count(", `matches(//a, "[")`, "starts-with(1,2)", "xpath:div", "css://a",
		"sum(//p) div 0", "//*[position() mod 2 = 0]", "string-join(//li, ',')", `\`, "a::", "::", "\x00",
		"@url", "@request.attrs.k", "@request.attrs.list", "@", "@a..b", "xpath:@href",
	} {
		f.Add(s)
	}
	d := ParseDoc(testPage, "https://shop.example/list")
	d.Record = []byte(`{"kind":"response","url":"https://shop.example/list","status":200,` +
		`"request":{"url":"u","attrs":{"k":"v","list":[1,"x",{"o":null}],"n":1e400}}}`)
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Compile(src)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Compile(%q): empty error", src)
			}
			return
		}
		_, _ = s.Select(d)
		_, _, _ = s.First(d, d.Root)
		if s.SelectsElements() {
			nodes, _ := s.Elements(d, d.Root)
			for _, n := range nodes {
				_, _ = s.SelectFrom(d, n)
			}
		}
	})
}

// FuzzNodeSet: a selector's values are a node-set's, each node once, as
// in parsel. On a page whose text nodes and attribute values are made all
// different (and each element given an attribute of its own, so that its
// outer HTML is too):
//   - a CSS selector whose groups all end in ::text, ::attr(NAME) or
//     ::html gives no value twice ("div ::text" with nested divs,
//     "a::text, .x::text" on an <a class=x>);
//   - a CSS group "A, B" gives the values A and B give, no other;
//   - a CSS selector whose groups all end in ::text gives its text nodes
//     in document order ("li::text" with nested lists, "div *::text");
//   - the elements a CSS or XPath selector gives are each given once
//     ("div a, a.x", "//div//a" with nested divs), in document order
//     ("//p | //div", "//b/ancestor::*", "//td/..").
func FuzzNodeSet(f *testing.F) {
	page := `<div class="c"><div class="c"><a class="x" href="/1">one</a></div><a href="/2">two</a></div>` +
		`<table><tr><td><table><tr><td>in</td></tr></table></td></tr></table><p>a<b>b</b>c</p>` +
		`<ul><li>x<ul><li>y</li></ul>z</li></ul>`
	for _, s := range []string{
		"div ::text", "div.c ::attr(href)", "div ::attr(class)", "a::text, .x::text", "div a, a.x", "a.x::html, a::html",
		"a::attr(href), .x::attr(href), a::text", "a.x, a.x::text", "td ::text", "table td", "*::text, * ::text",
		"div ::attr(data-u), a::attr(data-u)", "//div//a", "//table//td", "//*", "//div//a | //a", "p, p b, b",
		"li::text", "div *::text", "*::text", "p b::text, p::text", "div > *::text, a::text",
		"//p | //div", "//b/ancestor::*", "//td/..", "//a/preceding::*", "//b | //b/ancestor::*/@class",
	} {
		f.Add(page, s)
	}
	f.Fuzz(func(t *testing.T, page, src string) {
		s, err := Compile(src)
		if err != nil || s.field != nil {
			return
		}
		d := ParseDoc(page, "https://shop.example/")
		n := 0
		order := map[*html.Node]int{}
		for c := d.Root; c != nil; c = htmlparse.NextNode(c, d.Root) {
			n++
			order[c] = n
			switch c.Type {
			case html.TextNode:
				c.Data = fmt.Sprintf("t%d", n)
			case html.ElementNode:
				for i := range c.Attr {
					c.Attr[i].Val += fmt.Sprintf(" u%d.%d", n, i)
				}
				c.Attr = append(c.Attr, html.Attribute{Key: "data-u", Val: fmt.Sprintf("u%d", n)})
			}
		}
		if s.SelectsElements() {
			nodes, _ := s.Elements(d, d.Root)
			seen := map[*html.Node]bool{}
			for i, e := range nodes {
				if seen[e] {
					t.Fatalf("%q: element <%s %v> given twice", src, e.Data, e.Attr)
				}
				seen[e] = true
				if i > 0 && order[e] < order[nodes[i-1]] {
					t.Fatalf("%q: element <%s %v> given after <%s %v>, which follows it", src, e.Data, e.Attr, nodes[i-1].Data, nodes[i-1].Attr)
				}
			}
		}
		if s.css == nil {
			return
		}
		values := func(s *Selector) []string {
			vals, err := s.Select(d)
			if err != nil {
				t.Fatalf("%q: %v", src, err)
			}
			var out []string
			for _, v := range vals {
				out = append(out, v.Text)
			}
			return out
		}
		got := values(s)
		nodes := true
		for _, g := range s.css.groups {
			nodes = nodes && g.pseudo != pseudoNone
		}
		texts := true
		for _, g := range s.css.groups {
			texts = texts && g.pseudo == pseudoText
		}
		if texts {
			last := 0
			for _, v := range got {
				var k int
				if _, err := fmt.Sscanf(v, "t%d", &k); err != nil {
					t.Fatalf("%q gave %q, not a text node of the page", src, v)
				}
				if k < last {
					t.Fatalf("%q gave its text nodes out of document order: %q", src, got)
				}
				last = k
			}
		}
		if nodes {
			seen := map[string]bool{}
			for _, v := range got {
				if seen[v] {
					t.Fatalf("%q gave %q twice: %q", src, v, got)
				}
				seen[v] = true
			}
		}
		if len(s.css.groups) < 2 {
			return
		}
		parts, err := splitGroups(strings.TrimPrefix(src, "css:"))
		if err != nil {
			t.Fatal(err)
		}
		union := map[string]bool{}
		for _, p := range parts {
			ps, err := Compile("css:" + p)
			if err != nil {
				t.Fatalf("%q compiles, its group %q not: %v", src, p, err)
			}
			for _, v := range values(ps) {
				union[v] = true
			}
		}
		all := map[string]bool{}
		for _, v := range got {
			all[v] = true
		}
		if !maps.Equal(all, union) {
			t.Fatalf("%q gave %q; its groups one by one %v", src, got, union)
		}
	})
}
