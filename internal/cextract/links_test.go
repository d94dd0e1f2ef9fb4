package cextract

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/selector"
)

func TestLinks(t *testing.T) {
	tests := []struct {
		name, page, url string
		ex              LinkExtractor
		want            []string
		st              LinkStats
	}{
		{
			name: "relative, absolute and scheme-relative",
			page: `<a href="b.html">1</a><a href="/root">2</a><a href="https://other.example/x">3</a><a href="//cdn.example/y">4</a>`,
			url:  "https://a.example/dir/page.html",
			want: []string{"https://a.example/dir/b.html", "https://a.example/root", "https://other.example/x", "https://cdn.example/y"},
		},
		{
			name: "dot segments",
			page: `<a href="../up.html">1</a><a href="./same.html">2</a><a href="../../../../top">3</a>`,
			url:  "https://a.example/x/y/page",
			want: []string{"https://a.example/x/up.html", "https://a.example/x/y/same.html", "https://a.example/top"},
		},
		{
			name: "base href wins over the page URL",
			page: `<head><base href="https://mirror.example/sub/"></head><a href="p.html">1</a>`,
			url:  "https://a.example/dir/page.html",
			want: []string{"https://mirror.example/sub/p.html"},
		},
		{
			name: "relative base href resolves against the page",
			page: `<base href="/other/"><base href="/ignored/"><a href="p.html">1</a>`,
			url:  "https://a.example/dir/page.html",
			want: []string{"https://a.example/other/p.html"},
		},
		{
			name: "base without href is skipped",
			page: `<base target="_blank"><a href="p.html">1</a>`,
			url:  "https://a.example/dir/",
			want: []string{"https://a.example/dir/p.html"},
		},
		{
			name: "fragments dropped, duplicates once in first order",
			page: `<a href="p#a">1</a><a href="q">2</a><a href="p#b">3</a><a href="p">4</a><a href="#top">5</a><a href="">6</a>`,
			url:  "https://a.example/",
			want: []string{"https://a.example/p", "https://a.example/q"},
		},
		{
			name: "not followed: javascript mailto tel data ftp",
			page: `<a href="javascript:void(0)">1</a><a href=" JavaScript:go()">2</a><a href="mailto:x@a.example">3</a>` +
				`<a href="tel:+123">4</a><a href="data:text/html,hi">5</a><a href="ftp://a.example/f">6</a><a href="ok">7</a>`,
			url:  "https://a.example/",
			want: []string{"https://a.example/ok"},
		},
		{
			name: "area too, but not link or img",
			page: `<map><area href="/area" shape="rect"></map><link href="/style.css"><img src="/i.png"><a>no href</a>`,
			url:  "http://a.example/",
			want: []string{"http://a.example/area"},
		},
		{
			name: "white space, tabs and newlines removed; backslashes; stray percent",
			page: "<a href=\"  /a\n/b\t.html  \">1</a><a href=\"\\x\\y?q=\\z\">2</a><a href=\"/100%/x?p=5%\">3</a>",
			url:  "https://a.example/",
			want: []string{"https://a.example/a/b.html", "https://a.example/x/y?q=%5Cz", "https://a.example/100%25/x?p=5%"},
		},
		{
			name: "host case, default port, empty path, IDN",
			page: `<a href="HTTP://A.Example:80">1</a><a href="https://b.example:443/x">2</a><a href="https://b.example:8443/x">3</a><a href="https://bücher.example/">4</a>`,
			url:  "https://a.example/",
			want: []string{"http://a.example/", "https://b.example/x", "https://b.example:8443/x", "https://xn--bcher-kva.example/"},
		},
		{
			name: "entities in href decoded",
			page: `<a href="/s?a=1&amp;b=2">1</a>`,
			url:  "https://a.example/",
			want: []string{"https://a.example/s?a=1&b=2"},
		},
		{
			name: "invalid links counted",
			page: `<a href="http://[::1">1</a><a href="http://a.example:port/">2</a><a href="http:///nohost">3</a><a href="ok">4</a>`,
			url:  "https://a.example/",
			want: []string{"https://a.example/ok"},
			st:   LinkStats{Invalid: 3},
		},
		{
			name: "links cqueue push refuses are invalid: port out of range",
			page: `<a href="http://a.test:99999/x">1</a><a href="http://a.test:65535/y">2</a><a href="http://[::1]:18231/z">3</a>` +
				`<a href="http://[::1]:99999/">4</a><a href="http://[1.2.3.4]/">5</a><a href="http://[fe80::1%25eth0]/">6</a>`,
			url:  "http://a.test/",
			want: []string{"http://a.test:65535/y", "http://[::1]:18231/z", "http://[fe80::1%25eth0]/"},
			st:   LinkStats{Invalid: 3},
		},
		{
			name: "hosts net/url accepts but no URL can carry are invalid",
			page: `<a href="http://0&quot;/">1</a><a href="http://a&lt;b/">2</a><a href="http://a{b}/">3</a><a href="http://a^b/">4</a><a href="http://a_b.example/">5</a>`,
			url:  "http://a.test/",
			want: []string{"http://a_b.example/"},
			st:   LinkStats{Invalid: 4},
		},
		{
			name: "spaces and non-ASCII percent-encoded as UTF-8, escapes kept (w3lib safe_url_string)",
			page: `<a href="/target?q=a b">1</a><a href="/target?q=ä">2</a><a href="/p ä/x?a=%41&amp;b=%zz">3</a>` +
				`<a href="/it's|[x]?q=it's|{}&lt;&quot;^">4</a><a href="/é%C3%A9?é=%C3%A9#frag ment">5</a>`,
			url: "http://a.test/",
			want: []string{"http://a.test/target?q=a%20b", "http://a.test/target?q=%C3%A4", "http://a.test/p%20%C3%A4/x?a=%41&b=%zz",
				"http://a.test/it's%7C%5Bx%5D?q=it%27s%7C%7B%7D%3C%22%5E", "http://a.test/%C3%A9%C3%A9?%C3%A9=%C3%A9"},
		},
		{
			name: "same-scheme links without slashes are relative, as browsers and urljoin read them",
			page: `<a href="http:/target">1</a><a href="http:target">2</a><a href="HTTP:?q=1">3</a><a href="https:/other">4</a><a href="https:x">5</a>`,
			url:  "http://a.test/dir/page?x=1",
			want: []string{"http://a.test/target", "http://a.test/dir/target", "http://a.test/dir/page?q=1"},
			st:   LinkStats{Invalid: 2},
		},
		{
			name: "relative links without a page URL are invalid",
			page: `<a href="rel">1</a><a href="https://abs.example/">2</a>`,
			url:  "",
			want: []string{"https://abs.example/"},
			st:   LinkStats{Invalid: 1},
		},
		{
			name: "allow and deny regexps",
			page: `<a href="/item/1">1</a><a href="/item/2?sort=x">2</a><a href="/about">3</a><a href="/cat/1">4</a>`,
			url:  "https://a.example/",
			ex:   LinkExtractor{Allow: res(`/item/`, `/cat/`), Deny: res(`sort=`)},
			want: []string{"https://a.example/item/1", "https://a.example/cat/1"},
			st:   LinkStats{Denied: 2},
		},
		{
			name: "domains and subdomains",
			page: `<a href="https://a.example/1">1</a><a href="https://www.a.example/2">2</a><a href="https://bad.a.example/3">3</a>` +
				`<a href="https://xa.example/4">4</a><a href="https://other.example/5">5</a><a href="https://WWW.A.EXAMPLE./6">6</a>`,
			url:  "https://a.example/",
			ex:   LinkExtractor{AllowDomains: domains("a.example"), DenyDomains: domains("bad.a.example")},
			want: []string{"https://a.example/1", "https://www.a.example/2", "https://www.a.example./6"},
			st:   LinkStats{Denied: 3},
		},
		{
			name: "too long",
			page: `<a href="/` + strings.Repeat("x", 100) + `">1</a><a href="/short">2</a>`,
			url:  "https://a.example/",
			ex:   LinkExtractor{MaxURLLength: 50},
			want: []string{"https://a.example/short"},
			st:   LinkStats{TooLong: 1},
		},
		{
			name: "svg links",
			page: `<svg><a xlink:href="/old"><text>o</text></a><a href="/new"><text>n</text></a></svg>`,
			url:  "https://a.example/",
			want: []string{"https://a.example/old", "https://a.example/new"},
		},
		{
			name: "attrs without tags read a and area",
			page: `<a href="/h" src="/s">1</a><img src="/img"><area src="/as">`,
			url:  "https://a.example/",
			ex:   LinkExtractor{Attrs: []string{"src"}},
			want: []string{"https://a.example/s", "https://a.example/as"},
		},
		{
			name: "links inside noscript and broken markup",
			page: `<noscript><a href="/ns">1</a></noscript><div><a href="/x">2<a href="/y">3</div></a>`,
			url:  "https://a.example/",
			want: []string{"https://a.example/ns", "https://a.example/x", "https://a.example/y"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, st := tt.ex.Links(selector.ParseDoc(tt.page, tt.url))
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("links =\n%q\nwant\n%q", got, tt.want)
			}
			if st != tt.st {
				t.Errorf("stats = %+v, want %+v", st, tt.st)
			}
		})
	}
}

func res(srcs ...string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, s := range srcs {
		out = append(out, regexp.MustCompile(s))
	}
	return out
}

func domains(list ...string) policy.Domains {
	d, _ := policy.NewDomains(list)
	return d
}

// TestResolveLinkPassesFrontier: every URL ResolveLink returns is one the
// frontier accepts (fingerprint.ScrapyCanonical succeeds and finds a host),
// so cextract never emits a request that cqueue push refuses.
func TestResolveLinkPassesFrontier(t *testing.T) {
	base, _ := url.Parse("http://a.test/dir/")
	for _, href := range []string{"http://a.test:99999/x", "http://a.test:123456/", "http://[::1]:65536/", "http://[v1.x]/", "http://a b/"} {
		if u, err := ResolveLink(base, href); err == nil {
			t.Errorf("ResolveLink(%q) = %s, want an error", href, u)
		}
	}
}

func TestResolveLinkKeepsEscapes(t *testing.T) {
	base, _ := url.Parse("https://a.example/dir/")
	for href, want := range map[string]string{
		"a%2Fb":         "https://a.example/dir/a%2Fb",
		"sp ace":        "https://a.example/dir/sp%20ace",
		"é":             "https://a.example/dir/%C3%A9",
		"?q=1":          "https://a.example/dir/?q=1",
		"https://[::1]": "https://[::1]/",
		"q?a b=ä":       "https://a.example/dir/q?a%20b=%C3%A4",
		"//[::1]:8080":  "https://[::1]:8080/",
	} {
		u, err := ResolveLink(base, href)
		if err != nil || u.String() != want {
			t.Errorf("ResolveLink(%q) = %v, %v; want %s", href, u, err, want)
		}
	}
}
