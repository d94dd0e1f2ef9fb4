package cfetch

import (
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cextract"
	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/throttle"
)

// TestToolsAgreeOnHosts feeds the same odd URLs to every tool's reading
// of a URL's host and identity and holds them to one answer: the URL
// cfetch fetches (checkURL) and cextract writes as a link (ResolveLink),
// the host cfetch paces (hostKey), cthrottle's and cfetch's shared key
// (throttle.HostKey), the frontier's queue (frontier.NewEntry's Host),
// and the identity by which cqueue push and cdedupe know the request
// (dedupe.RequestKey, frontier.NewEntry's Key): the URL given and the URL
// fetched are one page, so a link to the one is a duplicate of the other.
func TestToolsAgreeOnHosts(t *testing.T) {
	for _, tt := range []struct {
		in, fetch      string // the URL given; what cfetch fetches
		pace, throttle string // cfetch's per-host key; cthrottle's
		queue          string // the frontier's per-host queue
	}{
		{"http://shop.test/a", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"http://SHOP.Test/a", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"HTTP://shop.test/a", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"  http://shop.test/a\t", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"http://sho\tp.test/\na\r", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"http://SHOP.test:8\n0/a", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"http://shop.test:80/a", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"http://shop.test:080/a", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"http://shop.test:/a", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"https://shop.test:443/a", "https://shop.test/a", "shop.test:443", "shop.test", "shop.test"},
		{"https://shop.test:0443/a", "https://shop.test/a", "shop.test:443", "shop.test", "shop.test"},
		{"http://shop.test:08080/a", "http://shop.test:8080/a", "shop.test:8080", "shop.test:8080", "shop.test"},
		{"http://user:pw@SHOP.test:80/a", "http://user:pw@shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"http://shop.test/a#f", "http://shop.test/a#f", "shop.test:80", "shop.test", "shop.test"},
		{"http://shop.test/a?", "http://shop.test/a?", "shop.test:80", "shop.test", "shop.test"},
		{"http://bücher.test/", "http://xn--bcher-kva.test/", "xn--bcher-kva.test:80", "xn--bcher-kva.test", "xn--bcher-kva.test"},
		{"http://BÜCHER.test:80/", "http://xn--bcher-kva.test/", "xn--bcher-kva.test:80", "xn--bcher-kva.test", "xn--bcher-kva.test"},
		{"http://XN--BCHER-KVA.test/", "http://xn--bcher-kva.test/", "xn--bcher-kva.test:80", "xn--bcher-kva.test", "xn--bcher-kva.test"},
		{"http://straße.test/", "http://xn--strae-oqa.test/", "xn--strae-oqa.test:80", "xn--strae-oqa.test", "xn--strae-oqa.test"},
		{"http://shop。test/", "http://shop.test/", "shop.test:80", "shop.test", "shop.test"},
		{"http://shop．TEST/", "http://shop.test/", "shop.test:80", "shop.test", "shop.test"},
		{"http://[::FFFF:7F00:1]:80/", "http://[::ffff:7f00:1]/", "[::ffff:7f00:1]:80", "[::ffff:7f00:1]", "::ffff:7f00:1"},
		{"http://shop.test./a", "http://shop.test./a", "shop.test:80", "shop.test", "shop.test"},
		{"http://SHOP.test.:80/a", "http://shop.test./a", "shop.test:80", "shop.test", "shop.test"},
		{"https://bücher.test.:0443/", "https://xn--bcher-kva.test./", "xn--bcher-kva.test:443", "xn--bcher-kva.test", "xn--bcher-kva.test"},
		{"http://[::1]:8080/", "http://[::1]:8080/", "[::1]:8080", "[::1]:8080", "::1"},
		// An IPv4 address as browsers read it (WHATWG URL): one host,
		// not five a trap could mint.
		{"http://127.1/a", "http://127.0.0.1/a", "127.0.0.1:80", "127.0.0.1", "127.0.0.1"},
		{"http://0x7F.1:8080/a", "http://127.0.0.1:8080/a", "127.0.0.1:8080", "127.0.0.1:8080", "127.0.0.1"},
		{"http://2130706433/a", "http://127.0.0.1/a", "127.0.0.1:80", "127.0.0.1", "127.0.0.1"},
		{"http://0177.0.0.1/a", "http://127.0.0.1/a", "127.0.0.1:80", "127.0.0.1", "127.0.0.1"},
		{"http://127.0.0.1./a", "http://127.0.0.1/a", "127.0.0.1:80", "127.0.0.1", "127.0.0.1"},
		// A host is percent-decoded before it is read (WHATWG URL).
		{"http://sh%6Fp.test/a", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"http://SH%4Fp.test:80/a", "http://shop.test/a", "shop.test:80", "shop.test", "shop.test"},
		{"http://%31%32%37.1/a", "http://127.0.0.1/a", "127.0.0.1:80", "127.0.0.1", "127.0.0.1"},
		{"http://b%C3%BCcher.%74est/", "http://xn--bcher-kva.test/", "xn--bcher-kva.test:80", "xn--bcher-kva.test", "xn--bcher-kva.test"},
	} {
		u, fe := checkURL(tt.in)
		if fe != nil {
			t.Errorf("%q: cfetch: %v", tt.in, fe)
			continue
		}
		if got := u.String(); got != tt.fetch {
			t.Errorf("%q: cfetch fetches %s; want %s", tt.in, got, tt.fetch)
		}
		if got := hostKey(u); got != tt.pace {
			t.Errorf("%q: cfetch paces %s; want %s", tt.in, got, tt.pace)
		}
		link := strings.TrimSuffix(tt.fetch, "#f")
		if l, err := cextract.ResolveLink(nil, tt.in); err != nil || l.String() != link {
			t.Errorf("%q: cextract writes the link %v, %v; want %s", tt.in, l, err, link)
		}
		for _, s := range []string{tt.in, tt.fetch} {
			if k, _ := throttle.HostKey(s); k != tt.throttle {
				t.Errorf("%q: cthrottle keys %s; want %s", s, k, tt.throttle)
			}
		}
		want, err := dedupe.RequestKey("GET", tt.fetch, "", false)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{tt.in, tt.fetch, link} {
			e, err := frontier.NewEntry(record.Request{URL: s}, frontier.KeyFast)
			if err != nil || e.Host != tt.queue || e.Key != want {
				t.Errorf("%q: cqueue push queues it on %q, key %v, %v; want %q, the key of %s, %v", s, e.Host, e.Key, err, tt.queue, tt.fetch, want)
			}
			for _, scrapy := range []bool{false, true} {
				k, err := dedupe.RequestKey("GET", s, "", scrapy)
				w, _ := dedupe.RequestKey("GET", tt.fetch, "", scrapy)
				if err != nil || k != w {
					t.Errorf("%q: cdedupe (scrapy %v) keys it %v, %v; want %v, the key of %s", s, scrapy, k, err, w, tt.fetch)
				}
			}
		}
	}
}
