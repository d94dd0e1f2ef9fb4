package cextract

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/linkfind"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		ctype, body string
		want        rules.Format
	}{
		{"text/html; charset=utf-8", "{", rules.HTML},
		{"application/xhtml+xml", "<x/>", rules.HTML},
		{"application/json", "<html>", rules.JSON},
		{"application/ld+json", "", rules.JSON},
		{"application/rss+xml", "", rules.XML},
		{"text/xml", "", rules.XML},
		{"text/csv", "", rules.CSV},
		{"", "  {\"a\": 1}", rules.JSON},
		{"", "[1]", rules.JSON},
		{"", "<?xml version=\"1.0\"?><rss/>", rules.XML},
		{"", "<urlset/>", rules.XML},
		{"application/octet-stream", "<!DOCTYPE html><p>", rules.HTML},
		{"", "<p>fragment", rules.HTML},
		{"text/plain", "User-agent: *", rules.Text},
		{"text/plain", "<html><p>not a page", rules.Text},
		{"text/x-python", "<p>\nimport os", rules.Text},
		{"text/plain; charset=utf-8", "{\"a\": 1}", rules.Text},
		{"application/octet-stream", "{}", rules.JSON},
		// Two Content-Type headers (a server's default and the page's
		// own), joined in the record as cfetch writes repeated headers:
		// the last one counts, as in browsers and Scrapy.
		{"text/html, text/html; charset=windows-1251", "<p>", rules.HTML},
		{"text/plain, text/html; charset=utf-8", "x", rules.HTML},
		{"text/html; charset=utf-8, application/json", "<p>", rules.JSON},
		{"text/html, */*", "x", rules.HTML},
		{"", "# not a page", rules.Text},
		{"", "", rules.Text},
	}
	for _, tt := range tests {
		if got := detectFormat(tt.ctype, tt.body); got != tt.want {
			t.Errorf("detectFormat(%q, %q) = %s, want %s", tt.ctype, tt.body, got, tt.want)
		}
	}
}

func TestCanonicalize(t *testing.T) {
	for in, want := range map[string]string{
		"http://a.example/p?b=2&a=1&a":             "http://a.example/p?a=&a=1&b=2",
		"http://a.example/%7euser/%2fx?q=a+b#frag": "http://a.example/~user/%2Fx?q=a+b",
		"http://a.example/p?":                      "http://a.example/p",
		"http://a.example/p?x=%e9":                 "http://a.example/p?x=%E9",
		"http://a.example/a%20b":                   "http://a.example/a%20b",
		// As w3lib, and as the frontier's fingerprint: ";" separates too.
		"http://a.example/p?b=2;a=1": "http://a.example/p?a=1&b=2",
		"http://a.example":           "http://a.example/",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		canonicalizeURL(u)
		if u.String() != want {
			t.Errorf("canonicalize(%s) = %s, want %s", in, u, want)
		}
	}
}

func TestPolicy(t *testing.T) {
	req := &record.Request{MaxDepth: 2, AllowedDomains: []string{"Shop.Example"}, AllowRegex: []string{"/p/"},
		DenyRegex: []string{"logout"}, DenyExtensions: []string{".ZIP", "gz"}}
	pol := policy.Compile(req)
	cand := func(s string) *candidate {
		u, _ := url.Parse(s)
		return &candidate{url: s, u: u, denyExt: policy.DefaultExtensions}
	}
	for _, tt := range []struct {
		url   string
		depth int
		want  string
	}{
		{"https://shop.example/p/1", 2, ""},
		{"https://www.shop.example/p/1", 2, ""},
		{"https://shop.example/p/1", 3, policy.ReasonMaxDepth},
		{"https://other.example/p/1", 1, policy.ReasonOffsite},
		{"https://shop.example/about", 1, policy.ReasonNotAllowed},
		{"https://shop.example/p/logout", 1, policy.ReasonDenied},
		{"https://shop.example/p/a.zip", 1, policy.ReasonExtension},
		{"https://shop.example/p/a.tar.gz", 1, policy.ReasonExtension},
		{"https://shop.example/p/a.PDF", 1, policy.ReasonExtension}, // Scrapy's list, from the rule
		{"https://shop.example/p/a.html", 1, ""},
	} {
		if got := refusal(pol, cand(tt.url), tt.depth); got != tt.want {
			t.Errorf("%s at depth %d: %q, want %q", tt.url, tt.depth, got, tt.want)
		}
	}
	// No policy: only the rule's denied extensions.
	if got := refusal(policy.Compile(&record.Request{}), cand("https://x.example/a.jpg"), 9); got != policy.ReasonExtension {
		t.Errorf("no policy, .jpg: %q", got)
	}
	bad := policy.Compile(&record.Request{AllowRegex: []string{"("}})
	if len(bad.Bad) != 1 || !strings.Contains(bad.Bad[0], "allow_regex") {
		t.Errorf("bad regex not reported: %v", bad.Bad)
	}
}

// TestRequestEncoderKindAndSource: a follow-up's link_kind and source
// come after the inherited fields, as record.Encode writes them from
// Extra, and the record is made in one allocation, at the largest
// priority and depth too.
func TestRequestEncoderKindAndSource(t *testing.T) {
	parent := &record.Request{URL: "https://a/", CrawlID: "c", Depth: 1}
	var e requestEncoder
	e.start(parent, "https://a/page")
	for _, c := range []struct {
		kind   linkfind.Kind
		source string
	}{
		{linkfind.Navigation, "a@href"}, {linkfind.Resources, "iframe@srcdoc comment img@srcset"}, {linkfind.Forms, "form@action"},
		{linkfind.Scripts, "script js:string"}, {linkfind.Navigation, sourceSitemapAlternate},
	} {
		cand := &candidate{url: "https://a/p?q=1", kind: c.kind, source: c.source}
		got := e.encode(cand, record.MinPriority, record.MaxDepth, "")
		want, _ := record.Encode(&record.Request{Kind: record.KindRequest, URL: cand.url, Priority: record.MinPriority, Depth: record.MaxDepth,
			Referer: "https://a/page", CrawlID: "c", Extra: map[string]json.RawMessage{
				"link_kind": json.RawMessage(`"` + c.kind.String() + `"`), "source": json.RawMessage(`"` + c.source + `"`)}})
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		if n := testing.AllocsPerRun(10, func() { e.encode(cand, record.MinPriority, record.MaxDepth, "") }); n != 1 {
			t.Errorf("%s: %v allocations, want 1", c.source, n)
		}
	}
}

func TestRequestEncoderMatchesRecordEncode(t *testing.T) {
	parent := &record.Request{URL: "https://a/", CrawlID: "c", AppID: "a", SpiderID: "s", MaxDepth: 3,
		AllowedDomains: []string{"a"}, AllowRegex: []string{"x"}, DenyRegex: []string{"y"}, DenyExtensions: []string{"z"},
		Expires: 5, UserAgent: "u", Attrs: []byte(`{"k":[1,2.50]}`), Lease: "L", Priority: 7, Depth: 1}
	var e requestEncoder
	e.start(parent, "https://a/page?x=<1>&y")
	got := e.encode(&candidate{url: "https://a/é", ownExt: false}, -3, 2, "")
	want, _ := record.Encode(&record.Request{Kind: record.KindRequest, URL: "https://a/é", Priority: -3, Depth: 2,
		Referer: "https://a/page?x=<1>&y", CrawlID: "c", AppID: "a", SpiderID: "s", MaxDepth: 3, AllowedDomains: []string{"a"},
		AllowRegex: []string{"x"}, DenyRegex: []string{"y"}, DenyExtensions: []string{"z"}, Expires: 5, UserAgent: "u",
		Attrs: []byte(`{"k":[1,2.50]}`)})
	if string(got) != string(want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if own := e.encode(&candidate{url: "https://a/é", ownExt: true}, -3, 2, ""); string(own) != string(want) {
		t.Fatalf("a rule's own deny_extensions replaced the request's:\n got %s\nwant %s", own, want)
	}
	e.start(&record.Request{}, "")
	if got := string(e.encode(&candidate{url: "https://b/", ownExt: false}, 0, 0, policy.ReasonMaxDepth)); got != `{"kind":"request","url":"https://b/","reason":"max_depth"}`+"\n" {
		t.Fatalf("bare: %s", got)
	}
	// A request without deny_extensions: the children of a rule with its
	// own list carry [], where record.Encode puts it.
	e.start(&record.Request{CrawlID: "c", Expires: 5}, "")
	want, _ = record.Encode(&record.Request{Kind: record.KindRequest, URL: "https://b/x.pdf", Depth: 1, CrawlID: "c", DenyExtensions: []string{}, Expires: 5})
	if got := e.encode(&candidate{url: "https://b/x.pdf", ownExt: true}, 0, 1, ""); string(got) != string(want) {
		t.Fatalf("own deny_extensions:\n got %s\nwant %s", got, want)
	}
	if got := string(e.encode(&candidate{url: "https://b/y", ownExt: false}, 0, 1, "")); strings.Contains(got, "deny_extensions") {
		t.Fatalf("default deny_extensions: %s", got)
	}
}

func TestLinkRuleOptions(t *testing.T) {
	body := `<html><head></head><body>
<nav><a href="/n1">n</a></nav>
<div class="main"><a href="/m1">m</a><a href="/m1#x">again</a><a href="/m2" rel="Nofollow sponsored">nf</a>
<img src="/i.png" data-full="/full/1"><a href="/doc.pdf">pdf</a><a href="/p?b=2&amp;a=1">q</a></div>
</body></html>`
	f, err := rules.Parse("t.yml", []byte(`links:
  - restrict_css: div.main
    skip_nofollow: true
    canonicalize: true
  - name: images
    tags: [img]
    attrs: [data-full]
    unique: false
`))
	if err != nil {
		t.Fatal(err)
	}
	x, err := compileRules(f)
	if err != nil {
		t.Fatal(err)
	}
	resp := &record.Response{URL: "https://s.example/page", Body: body, Status: 200}
	pg, _ := newPage([]byte(`{}`), nil, resp, &record.Request{})
	var got []string
	var st LinkStats
	for _, r := range x.links {
		cands, err := r.links(pg, nil, &st)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			got = append(got, c.url+" "+c.rule.name+" "+c.kind.String()+" "+c.source)
		}
	}
	// The tags rule names what it read: a data- attribute is what kinds
	// call scripts.
	want := "https://s.example/m1 #1 navigation a@href|https://s.example/doc.pdf #1 navigation a@href|" +
		"https://s.example/p?a=1&b=2 #1 navigation a@href|https://s.example/full/1 images scripts img@data-full"
	if strings.Join(got, "|") != want || st.Nofollow != 1 {
		t.Fatalf("got %v (nofollow %d)\nwant %s", got, st.Nofollow, want)
	}
}
