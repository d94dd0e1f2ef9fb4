package cfetch

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestCookieHeaderAsSet: a cookie goes back as the server set it. A value
// it set in double quotes (Python's http.cookies, Werkzeug and Tomcat
// quote values with a space, a comma or an '='; RFC 6265 §4.1.1 allows
// it) is sent back quoted, as browsers and Go's own client send it: the
// quotes are part of the value the server reads back.
func TestCookieHeaderAsSet(t *testing.T) {
	u, _ := url.Parse("http://shop.example/a")
	for _, tc := range []struct{ set, want string }{
		{"s=abc; Path=/", "s=abc"},
		{`q="a b"; Path=/`, `q="a b"`},
		{`t="abc"; Path=/`, `t="abc"`},
		{`e=""; Path=/`, `e=""`},
		{"n=; Path=/", "n="},
	} {
		jars := newCookieJars(4)
		jars.store("c", u, http.Header{"Set-Cookie": {tc.set}})
		if got := jars.header("c", u); got != tc.want {
			t.Errorf("Set-Cookie: %s: Cookie: %s, want %s", tc.set, got, tc.want)
		}
	}
}

// TestCookiesAsBrowsersKeepThem: what a server sets is kept and sent
// back as browsers and curl do, where Go's own parser drops it: a value
// with a '"', a '\', a space, a comma or UTF-8 in it, a cookie without a
// name; and a cookie deleted with a two-digit year (Netscape's format,
// "09-Jun-21") or Max-Age=0 is gone.
func TestCookiesAsBrowsersKeepThem(t *testing.T) {
	u, _ := url.Parse("http://shop.example/a")
	for _, tc := range []struct {
		set  []string
		want string
	}{
		{[]string{`q=a"b; Path=/`}, `q=a"b`},
		{[]string{`bs=a\b; Path=/`}, `bs=a\b`},
		{[]string{`sp=a b c`}, `sp=a b c`},
		{[]string{`cm=a,b`}, `cm=a,b`},
		{[]string{"utf=café"}, "utf=café"},
		{[]string{`json={"a":1}`}, `json={"a":1}`},
		{[]string{"token123"}, "token123"},
		{[]string{"  s = v ; Path=/"}, "s=v"},
		{[]string{"ctl=a\x01b"}, ""},
		{[]string{"old=1; Path=/", "old=; Expires=Wed, 09-Jun-21 10:18:14 GMT; Path=/"}, ""},
		{[]string{"old=1; Path=/", "old=; Expires=Thursday, 01-Jan-70 00:00:00 GMT; Path=/"}, ""},
		{[]string{"old=1", "old=2; Max-Age=0"}, ""},
		{[]string{"old=1", "old=2; Max-Age=-1"}, ""},
		{[]string{"s=1; Expires=Fri, 31 Dec 2099 23:59:59 GMT"}, "s=1"},
		{[]string{"s=1; Expires=garbage"}, "s=1"},
		{[]string{"s=1; Max-Age=99999999999999999999999"}, "s=1"},
		{[]string{"s=1; Path=/elsewhere"}, ""},
		{[]string{"s=1; Path=relative"}, "s=1"},
		{[]string{"s=1; Domain=.SHOP.example"}, "s=1"},
		{[]string{"s=1; Domain=other.example"}, ""},
	} {
		jars := newCookieJars(4)
		for _, set := range tc.set {
			jars.store("c", u, http.Header{"Set-Cookie": {set}})
		}
		if got := jars.header("c", u); got != tc.want {
			t.Errorf("Set-Cookie: %q: Cookie: %s, want %s", tc.set, got, tc.want)
		}
	}
}

// TestCookieDate holds cookieDate to RFC 6265 §5.1.1's algorithm.
func TestCookieDate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Sun, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37Z"},
		{"Sunday, 06-Nov-94 08:49:37 GMT", "1994-11-06T08:49:37Z"},
		{"Sun Nov  6 08:49:37 1994", "1994-11-06T08:49:37Z"},
		{"Wed, 09-Jun-21 10:18:14 GMT", "2021-06-09T10:18:14Z"},
		{"Thu, 01-Jan-1970 00:00:01 GMT", "1970-01-01T00:00:01Z"},
		{"Thu, 01 Jan 70 00:00:00 GMT", "1970-01-01T00:00:00Z"},
		{"Fri, 31 Dec 9999 23:59:59 GMT", "9999-12-31T23:59:59Z"},
		{"31 dec 2099 1:2:3", "2099-12-31T01:02:03Z"},
		{"12th June 2030 10:00:00am", "2030-06-12T10:00:00Z"},
		{"Sat, 29 Feb 2020 00:00:00 GMT", "2020-02-29T00:00:00Z"},
		{"Thu, 29 Feb 2021 00:00:00 GMT", ""},
		{"Wed, 09 Jun 2021 24:00:00 GMT", ""},
		{"Wed, 09 Jun 2021 10:60:00 GMT", ""},
		{"Wed, 32 Jun 2021 10:00:00 GMT", ""},
		{"Wed, 00 Jun 2021 10:00:00 GMT", ""},
		{"Mon, 01 Jan 1600 00:00:00 GMT", ""},
		{"Wed, 09 Jun 2021", ""},
		{"Wed, 09 2021 10:18:14 GMT", ""},
		{"Wed, 09 Jun 10:18:14 GMT", ""},
		{"Wed, 09 Jun 20211 10:18:14 GMT", ""},
		{"Wed, 09 Jun 2021 100:18:14 GMT", ""},
		{"2021-06-09T10:18:14Z", ""},
		{"", ""},
	} {
		got, ok := cookieDate(tc.in)
		if s := got.Format(time.RFC3339); ok != (tc.want != "") || ok && s != tc.want {
			t.Errorf("cookieDate(%q) = %s, %v; want %q", tc.in, s, ok, tc.want)
		}
	}
}

// TestCookieLimits: a jar keeps at most maxCookiesPerSite cookies of a
// site and maxCookies in all, dropping those least recently set, as
// browsers do; the Cookie header sent stays within maxCookieHeaderSize.
// A site that sets thousands of new cookies a page grows neither.
func TestCookieLimits(t *testing.T) {
	jars := newCookieJars(4)
	mine, _ := url.Parse("http://mine.example/")
	jars.store("c", mine, http.Header{"Set-Cookie": {"session=1"}})
	evil, _ := url.Parse("http://www.evil.example/a")
	for page := range 3 {
		h := http.Header{}
		for i := range 5000 {
			h.Add("Set-Cookie", fmt.Sprintf("c%d_%d=%s; Domain=evil.example", page, i, strings.Repeat("v", 100)))
		}
		jars.store("c", evil, h)
	}
	got := jars.header("c", evil)
	if len(got) > maxCookieHeaderSize {
		t.Errorf("Cookie header of %d bytes", len(got))
	}
	if n := len(jars.jarLocked("c", false).jar.Cookies(evil)); n != maxCookiesPerSite {
		t.Errorf("%d cookies kept for the site, want %d", n, maxCookiesPerSite)
	}
	if !strings.HasPrefix(got, fmt.Sprintf("c2_%d=", 5000-maxCookiesPerSite)) || strings.Contains(got, "c1_") {
		t.Errorf("the newest cookies are not those kept: %.200s", got)
	}
	if got := jars.header("c", mine); got != "session=1" {
		t.Errorf("another site's cookie: %q", got)
	}
	// In all: the oldest site's cookie goes first.
	for s := range maxCookies / maxCookiesPerSite {
		u, _ := url.Parse(fmt.Sprintf("http://s%d.example/", s))
		h := http.Header{}
		for i := range maxCookiesPerSite {
			h.Add("Set-Cookie", fmt.Sprintf("k%d=1", i))
		}
		jars.store("c", u, h)
	}
	if got := jars.header("c", mine); got != "" {
		t.Errorf("past %d cookies in all, the oldest is still kept: %q", maxCookies, got)
	}
	if jars.all.Len() != maxCookies {
		t.Errorf("%d cookies counted, want %d", jars.all.Len(), maxCookies)
	}
	// Deleted and set again: counted once.
	jars.store("c", mine, http.Header{"Set-Cookie": {"session=2", "session=3", "gone=1", "gone=; Max-Age=0"}})
	if got := jars.header("c", mine); got != "session=3" || jars.jarLocked("c", false).sites["mine.example"].Len() != 1 {
		t.Errorf("Cookie: %q", got)
	}
}
