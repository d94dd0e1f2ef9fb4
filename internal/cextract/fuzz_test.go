package cextract

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/selector"
)

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
		`<a href="https:/t">o</a><a href="https:t?q=a b">s</a><a href="https:">u</a>`,
		`<a href="http://a.test:99999/x">p</a><a href="http://[::1]:65536/">p6</a><a href="http://[1.2.3.4]/">b4</a><a href="http://[fe80::1%25eth0]/">z</a>`,
		`<a href="/target?q=a b">s</a><a href="/t?q=ä&amp;r=%zz">n</a><a href="/p ä|[x]{}?q='^">c</a>`,
		"<a href=\"http://u s:p@a.test:8080/%zz/\x01?\x7f=%00&q=[]#f\">o</a><a href=\"HTTP://A.TEST./..;/x?\">h</a>",
		strings.Repeat("<div>", 600) + `<a href="/deep">d</a>`,
		strings.Repeat("<b><i>", 400) + `<a href="/fmt">d</a>`,
	} {
		f.Add(s)
	}
	var ex LinkExtractor
	f.Fuzz(func(t *testing.T, body string) {
		links, _ := ex.Links(selector.ParseDoc(body, "https://example.com/dir/page.html?q=1"))
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
			if i := strings.IndexFunc(l, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"<>\\^`{|}", r) }); i >= 0 {
				t.Fatalf("%q is not a safe URL: %q at %d", l, l[i], i)
			}
			// cqueue push (frontier.NewEntry) takes every link.
			if c, err := fingerprint.ScrapyCanonical(l); err != nil || fingerprint.Host(c) == "" {
				t.Fatalf("%q: frontier refuses it: canonical %q, %v", l, c, err)
			}
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
	sels := []*selector.Selector{}
	for _, s := range []string{"div ::text", "//text()", "a::attr(href)", "p::html", "count(//*)"} {
		sel, err := selector.Compile(s)
		if err != nil {
			f.Fatal(err)
		}
		sels = append(sels, sel)
	}
	f.Fuzz(func(t *testing.T, body string) {
		d := selector.ParseDoc(body, "https://example.com/")
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

// FuzzAppendItem: items are written exactly as record.Encode writes them.
func FuzzAppendItem(f *testing.F) {
	f.Add("product", `{"a":1}`, "https://a/é?x=<1>", "c1", "", `{"k": [1, 2.50]}`, "2024-05-01T10:00:00Z")
	f.Add("", `{}`, "", "", "app", ``, "")
	f.Add("t\"", `{"s":"\u2028"}`, "\x00", "\xff", "a", `1e400`, "x")
	f.Add("", `{"s":"\udc00\ud800x","\ud800":"\\ud800"}`, "", "", "", `["\udfff"]`, "")
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
