package policy

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// FuzzDomains: NormalizeDomain and NewDomains never panic and agree on
// what is a domain name; a domain matches its normal form and, unless it
// is an IP address, its subdomains.
func FuzzDomains(f *testing.F) {
	for _, s := range []string{"a.test", " A.Test. ", "straße.test", "xn--strae-oqa.test", "bücher.example", "127.0.0.1", "[::1]", "a.test:8080", "http://a.test/", "*.a.test", "..", "xn--", "ß", "a..b"} {
		f.Add(s, "www."+s)
	}
	f.Fuzz(func(t *testing.T, domain, host string) {
		d, bad := NewDomains([]string{domain})
		d.Match(host)
		n, err := NormalizeDomain(domain)
		if (err != nil) != (len(bad) == 1) {
			t.Fatalf("NormalizeDomain(%q) error %v, NewDomains bad %q", domain, err, bad)
		}
		if err != nil || d.Empty() {
			return
		}
		if !d.Match(n) {
			t.Errorf("NewDomains(%q) does not match its normal form %q", domain, n)
		}
		if _, err := netip.ParseAddr(n); err != nil && !d.Match("www."+n) {
			t.Errorf("NewDomains(%q) does not match www.%s", domain, n)
		}
	})
}

// FuzzExtensions: Match never panics, finds only an extension of the set,
// and only one the last path segment ends with after a dot.
func FuzzExtensions(f *testing.F) {
	for _, s := range []string{"/x.pdf", "/x.TAR.GZ", "/.pdf", "/x.pdf;a=1", "/a.b/c", "/x.", "/x..pdf", "/ü.PDF"} {
		f.Add(s, "pdf tar.gz")
	}
	f.Fuzz(func(t *testing.T, path, list string) {
		e := NewExtensions(strings.Fields(list))
		ext, ok := e.Match(&url.URL{Path: path})
		if ok != (ext != "") {
			t.Fatalf("Match(%q) = %q, %v", path, ext, ok)
		}
		if !ok {
			return
		}
		if !e[ext] {
			t.Errorf("Match(%q) = %q, not in %v", path, ext, list)
		}
		seg := path[strings.LastIndexByte(path, '/')+1:]
		if i := strings.IndexByte(seg, ';'); i >= 0 {
			seg = seg[:i]
		}
		if !strings.HasSuffix(strings.ToLower(seg), "."+ext) {
			t.Errorf("Match(%q) = %q: the segment %q does not end with it", path, ext, seg)
		}
	})
}
