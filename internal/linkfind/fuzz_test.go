package linkfind

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
)

// FuzzSrcset: candidates are never empty and never hold white space.
func FuzzSrcset(f *testing.F) {
	for _, s := range []string{"a.png 1x, b.png 2x", "a,b.png 1x", "x (a,b) 1x, y", ",,,", "data:a,b 1x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, u := range Srcset(s) {
			if u == "" || strings.ContainsAny(u, " \t\n\f\r") || !strings.Contains(s, u) {
				t.Fatalf("Srcset(%q): candidate %q", s, u)
			}
		}
	})
}

// FuzzRefresh: a URL is found only after a time, and is never empty.
func FuzzRefresh(f *testing.F) {
	for _, s := range []string{"5; url=/x", "0;URL='/q'", "3, /c", "1.5", `0; url="a`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ref, ok := Refresh(s); ok && (ref == "" || !strings.Contains(s, ref)) {
			t.Fatalf("Refresh(%q) = %q", s, ref)
		}
	})
}

// FuzzLinkHeader: every link is taken from between < and >.
func FuzzLinkHeader(f *testing.F) {
	for _, s := range []string{`</a>; rel=next, </b>; rel="prev"`, `<x>;title="a\"b,c";rel=x,<y>`, `<<>>`, `;;,,<`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range LinkHeader(s) {
			if strings.ContainsAny(l.Ref, "<>") || !strings.Contains(s, l.Ref) {
				t.Fatalf("LinkHeader(%q): ref %q", s, l.Ref)
			}
		}
	})
}

// FuzzCSS: any text tokenizes without a panic, giving non-empty URLs.
func FuzzCSS(f *testing.F) {
	for _, s := range []string{`@import "a.css"; b{c:url(d.png)}`, `a{b:url(\61 )}`, `image-set("a" 1x, url(b) 2x`, `url(`, `"\`, `@import url(x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range CSS(s) {
			if r.Ref == "" {
				t.Fatalf("CSS(%q): empty URL", s)
			}
		}
	})
}

// FuzzJSStrings: every guess looks like a URL and is valid UTF-8 when the
// code is.
func FuzzJSStrings(f *testing.F) {
	for _, s := range []string{`a = "/x.html"; b = /re"/g`, "`/t`+`${x}`", `"\u{2f}a"`, `"\x2f`, `x / "/d" / 2`, `'\u00'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, g := range JSStrings(s) {
			if !LooksLikeURL(g) {
				t.Fatalf("JSStrings(%q): %q does not look like a URL", s, g)
			}
			if utf8.ValidString(s) && !utf8.ValidString(g) {
				t.Fatalf("JSStrings(%q): %q is not UTF-8", s, g)
			}
		}
	})
}

// FuzzHTML: any page gives links with a kind, a source and a reference,
// each of the kinds asked for, and forms' references parse.
func FuzzHTML(f *testing.F) {
	for _, s := range []string{
		`<a href="/a" ping="/p"><img src=i srcset="j 1x, k 2x"></a><form><input name=q></form>`,
		`<iframe srcdoc="<iframe srcdoc='&lt;a href=x&gt;'></iframe>"></iframe>`,
		`<!--[if IE]><link rel=stylesheet href=ie.css><![endif]--><div style="background:url(b.png)" data-x='{"u":"/j"}' onclick="go('/c')">`,
		`<script>location='/s'</script><script type="application/ld+json">{"url":"/ld"}</script><style>@import "s.css"</style>`,
		`<meta http-equiv=refresh content="0;url=/m"><svg><a xlink:href="/svg"/><image href="/si.png"/></svg><object data=o><param name=movie value=m.swf></object>`,
	} {
		f.Add(s, uint8(All))
	}
	page, _ := url.Parse("https://a.test/d/p.html")
	f.Fuzz(func(t *testing.T, body string, kinds uint8) {
		k := Kind(kinds) & All
		root, _ := htmlparse.Parse(body)
		HTML(root, Options{Kinds: k, PostForms: true, URL: page, Base: page}, func(l Link) {
			if l.Kind&k == 0 || l.Source == "" || strings.TrimSpace(l.Ref) == "" || l.Base == nil {
				t.Fatalf("link %+v (kinds %v)", l, k)
			}
			if l.Kind == Forms {
				if _, err := url.Parse(l.Ref); err != nil {
					t.Fatalf("form %q: %v", l.Ref, err)
				}
			}
		})
	})
}
