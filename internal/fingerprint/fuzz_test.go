package fingerprint

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/percent"
)

// FuzzCanonicalize: Canonicalize never panics, and for the URLs a crawler
// queues (http and https with a host) its output is stable under a second
// call. w3lib itself is not idempotent elsewhere, and Canonicalize matches
// w3lib rather than improve on it: "A:////" gives "a://" then "a:/", and an
// escaped "%" or ";", or a stray "%", in a path changes on the next call
// (see escapedPercent).
func FuzzCanonicalize(f *testing.F) {
	for _, g := range loadGolden(f) {
		f.Add(g.URL)
	}
	for _, u := range []string{"http://[::1]:18231/", "HTTP://U@[2001:DB8::1]:8080/a?b#!c", "http://[::1:8080]/", "https://[fe80::1%25EtH0]/", "http://[v1.x]/"} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, u string) {
		c, err := Canonicalize(u)
		if err != nil {
			return
		}
		_ = Key64("GET", c, "")
		_, _ = Scrapy("GET", u, "")
		_ = Host(c)
		p, _ := urlparse(w3libStrip(u))
		_, hostinfo, _ := cutLast(p.netloc, "@")
		host, _ := splitHostPort(hostinfo)
		if p.scheme != "http" && p.scheme != "https" || host == "" {
			return
		}
		// A URL with a host keeps it through Scrapy's request URL, so the
		// frontier can queue it (IPv6 literals lost their brackets once).
		// A host of spaces and controls is stripped away, as in w3lib.
		if sc, err := ScrapyCanonical(u); err == nil && Host(sc) == "" && !strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' }) {
			t.Fatalf("ScrapyCanonical(%q) = %q, which has no host", u, sc)
		}
		if escapedPercent(u) || !utf8.ValidString(u) {
			return
		}
		c2, err := Canonicalize(c)
		if err != nil {
			t.Fatalf("Canonicalize(%q) = %q, which fails: %v", u, c, err)
		}
		if c2 != c {
			t.Fatalf("not idempotent:\n in  %q\n 1st %q\n 2nd %q", u, c, c2)
		}
	})
}

// escapedPercent reports whether u has an escape that w3lib itself does not
// canonicalize in one call: "%25" (an escaped "%"), a "%" that is not an
// escape, or "%3B" (an escaped ";"). w3lib decodes path escapes once per
// call and keeps a stray "%", so "/100%2541" becomes "/100%41" and then
// "/100A", and "/%2%41" becomes "/%2A" and then "/*"; a decoded ";" in the
// last path segment is split off as params by the next call: "/%3B" gives
// "/;", then "/".
func escapedPercent(u string) bool {
	l := strings.ToLower(u)
	if strings.Contains(l, "%25") || strings.Contains(l, "%3b") {
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] == '%' {
			if i+2 >= len(l) {
				return true
			}
			if !percent.IsHex(l[i+1]) || !percent.IsHex(l[i+2]) {
				return true
			}
		}
	}
	return false
}

// FuzzIdentity: Identity canonicalizes every URL ScrapyCanonical does,
// and gives ScrapyCanonical's answer for a URL whose host and port are
// already written as hostname.SetHost writes them.
func FuzzIdentity(f *testing.F) {
	for _, s := range []string{"http://shop.test:80/a", "https://SHOP.test:0443/a?b#c", "http://straße.test/", "http://[::1%25eth0]:80/", "http://u:p@h:/", "http://h/a b", "ftp://h:21/", "http://a\"b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := ScrapyCanonical(s)
		if err != nil {
			return
		}
		got, err := Identity(s)
		if err != nil {
			t.Fatalf("Identity(%q): %v; ScrapyCanonical: %q", s, err, want)
		}
		if webHost(s) == s && got != want {
			t.Fatalf("Identity(%q) = %q; ScrapyCanonical: %q", s, got, want)
		}
	})
}
