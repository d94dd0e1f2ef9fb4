package selector

import "testing"

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
