package cextract

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
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

// FuzzLinks: any page gives links that are absolute http(s) URLs without a
// fragment, each once, and never a panic.
func FuzzLinks(f *testing.F) {
	for _, s := range []string{
		`<a href="/a">a</a><a href="b#x">b</a><a href="b">b</a>`,
		`<base href="https://other.example/x/"><a href="../y">y</a>`,
		`<base href="javascript:x"><a href="y">y</a>`,
		`<a href="javascript:void(0)">j</a><a href="mailto:a@b">m</a><a href="#top">t</a><a href="">e</a>`,
		"<a href=\" \n/sp ace\t\">s</a><a href=\"\\\\host\\p\">b</a><a href=\"/100%\">p</a>",
		`<a href="http://[::1]:80/">v6</a><a href="https://bücher.example:443">idn</a><a href="http://a:b@c/">u</a>`,
		`<area href="/area"><svg><a xlink:href="/svg">s</a></svg>`,
		`<a href="http:foo">o</a><a href="//x.example">s</a><a href="HTTPS://X.EXAMPLE/">u</a>`,
		strings.Repeat("<div>", 600) + `<a href="/deep">d</a>`,
		strings.Repeat("<b><i>", 400) + `<a href="/fmt">d</a>`,
	} {
		f.Add(s)
	}
	var ex LinkExtractor
	f.Fuzz(func(t *testing.T, body string) {
		links, _ := ex.Links(ParseDoc(body, "https://example.com/dir/page.html?q=1"))
		seen := map[string]bool{}
		for _, l := range links {
			u, err := url.Parse(l)
			switch {
			case err != nil:
				t.Fatalf("%q does not parse: %v", l, err)
			case u.Scheme != "http" && u.Scheme != "https":
				t.Fatalf("%q is not http(s)", l)
			case u.Host == "" || u.Opaque != "":
				t.Fatalf("%q has no host", l)
			case u.Fragment != "" || strings.Contains(l, "#"):
				t.Fatalf("%q has a fragment", l)
			case seen[l]:
				t.Fatalf("%q twice", l)
			}
			seen[l] = true
		}
	})
}

// FuzzParseDoc: any body parses, whatever its nesting, and selectors run
// on the result without panicking.
func FuzzParseDoc(f *testing.F) {
	for _, s := range []string{
		"", "<p>x", strings.Repeat("<div>", 700), strings.Repeat("<table><tr><td>", 300),
		strings.Repeat("<svg>", 600), strings.Repeat("<p><b>", 500) + "</p>", "<script>" + strings.Repeat("<div>", 600),
		strings.Repeat("<div/>", 600), "<noscript>" + strings.Repeat("<span>", 600),
	} {
		f.Add(s)
	}
	sels := []*Selector{}
	for _, s := range []string{"div ::text", "//text()", "a::attr(href)", "p::html", "count(//*)"} {
		sel, err := Compile(s)
		if err != nil {
			f.Fatal(err)
		}
		sels = append(sels, sel)
	}
	f.Fuzz(func(t *testing.T, body string) {
		d := ParseDoc(body, "https://example.com/")
		if d.Root == nil {
			t.Fatal("no root")
		}
		for _, s := range sels {
			if _, err := s.Select(d); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	})
}

// FuzzClassify: the fast path reads every line as record.Parse does — the
// same verdict, kind and record — and its fields are record.Fields'.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		`{"kind":"response","url":"u","body":"a\"b\\c\u00e9\ud83d\ude00 \ud800x","status":200}`,
		`{"kind":null}`, `{"kind":1}`, `{"kind":"x","kind":"y"}`, ` {"a":[1,{"b":null}],"c":-0.5e+3} `, `{"a":01}`,
		`{"a":"\u0000"}`, "{\"a\":\"\x01\"}", `{"a":tru}`, `https://a/`, `[1]`, ``, `{"a":1,}`, "{\"k\":\"\xff\"}",
		`{"":""}`, `{"a":[]}`, `{"a":{}}`, `{"\u006bind":"item"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		env, fields, err := classify(line)
		want, werr := record.Parse(line)
		if (err == nil) != (werr == nil) {
			t.Fatalf("classify(%q) error %v, record.Parse %v", line, err, werr)
		}
		if err != nil {
			if err.Error() != werr.Error() {
				t.Fatalf("classify(%q): %v, record.Parse: %v", line, err, werr)
			}
			return
		}
		if env.Kind != want.Kind || string(env.Raw) != string(want.Raw) || env.Bare != want.Bare {
			t.Fatalf("classify(%q) = %+v, record.Parse %+v", line, env, want)
		}
		if fields == nil {
			return
		}
		wf, err := record.Fields(line)
		if err != nil || len(wf) > len(fields) {
			t.Fatalf("record.Fields(%q) = %v, %v; classify %v", line, wf, err, fields)
		}
		// record.Fields merges duplicate keys; the last value wins in both.
		last := map[string]string{}
		for _, fl := range fields {
			last[fl.Key] = string(fl.Value)
		}
		for _, fl := range wf {
			if last[fl.Key] != string(fl.Value) {
				t.Fatalf("%q: field %q = %s, record.Fields %s", line, fl.Key, last[fl.Key], fl.Value)
			}
		}
	})
}

// FuzzJSONStrings: unquote decodes as encoding/json does.
func FuzzJSONStrings(f *testing.F) {
	for _, s := range []string{"", "a", "é", "\xff", "\u2028", "<&>", "\x00\x1f\"\\", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		want := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		var back string
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if got, ok := unquote(want); !ok || got != back {
			t.Fatalf("unquote(%s) = %q, %v; want %q", want, got, ok, back)
		}
		// Raw input as a JSON string, escapes and all.
		raw := []byte(`"` + s + `"`)
		if scanString(raw, 0) != len(raw) {
			return
		}
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("scanString accepted %q: %v", raw, err)
		}
		if got, ok := unquote(raw); !ok || got != back {
			t.Fatalf("unquote(%q) = %q, %v; want %q", raw, got, ok, back)
		}
	})
}

// FuzzAppendItem: items are written exactly as record.Encode writes them.
func FuzzAppendItem(f *testing.F) {
	f.Add("product", `{"a":1}`, "https://a/é?x=<1>", "c1", "", `{"k": [1, 2.50]}`, "2024-05-01T10:00:00Z")
	f.Add("", `{}`, "", "", "app", ``, "")
	f.Add("t\"", `{"s":"\u2028"}`, "\x00", "\xff", "a", `1e400`, "x")
	f.Fuzz(func(t *testing.T, typ, data, url, crawlID, appID, attrs, fetchedAt string) {
		if !json.Valid([]byte(data)) || !strings.HasPrefix(data, "{") || strings.ContainsAny(data, " \t\r\n") {
			return
		}
		if attrs != "" && !json.Valid([]byte(attrs)) {
			return
		}
		want, err := record.Encode(&record.Item{Kind: record.KindItem, Type: typ, Data: json.RawMessage(data), URL: url,
			CrawlID: crawlID, AppID: appID, Attrs: json.RawMessage(attrs), FetchedAt: fetchedAt})
		if err != nil {
			return
		}
		var a []byte
		if attrs != "" {
			a = []byte(attrs)
		}
		if got := appendItem(nil, typ, []byte(data), url, crawlID, appID, a, fetchedAt); string(got) != string(want) {
			t.Fatalf("appendItem:\n%s\nrecord.Encode:\n%s", got, want)
		}
	})
}
