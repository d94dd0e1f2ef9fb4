package policy

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"golang.org/x/net/idna"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/hostname"
)

// Domains matches hosts against a list of domains as Scrapy's
// url_is_from_any_domain and OffsiteMiddleware do: a host matches a domain
// when it is the domain or a subdomain of it ("a.test" matches a.test and
// www.a.test, not ba.test), compared without the port, in lower case,
// without a trailing dot. An IP address matches only itself.
//
// IDN domains and hosts are compared in ASCII (punycode), in both the
// forms a name has: UTS #46's, as browsers, w3lib and cextract's links
// write it (ß kept: straße.test is xn--strae-oqa.test), and IDNA 2003's,
// as a URL written in Unicode is queued (ß as ss: strasse.test). So
// "straße.test", "xn--strae-oqa.test" and a Unicode host match each other
// whichever way each was written, and no link is lost to the form.
//
// The zero value matches nothing.
type Domains struct {
	names []string     // ASCII forms, lower case
	ips   []netip.Addr // IP literals, matched exactly
}

// NewDomains compiles a list of domains as users write them (see
// NormalizeDomain). The entries that are not domain names are left out and
// returned in bad, as Scrapy ignores them (with a warning): a list of
// nothing but bad entries matches nothing.
func NewDomains(list []string) (d Domains, bad []string) {
	for _, s := range list {
		n, err := NormalizeDomain(s)
		if err != nil {
			bad = append(bad, s)
			continue
		}
		if ip, err := netip.ParseAddr(n); err == nil {
			d.ips = append(d.ips, ip)
			continue
		}
		for _, f := range nameForms(strings.Trim(strings.TrimSpace(s), ".")) {
			if !slices.Contains(d.names, f) {
				d.names = append(d.names, f)
			}
		}
	}
	return d, bad
}

// Empty reports whether d matches nothing.
func (d Domains) Empty() bool { return len(d.names) == 0 && len(d.ips) == 0 }

// Match reports whether host (a URL's host name, without port; brackets
// around an IPv6 address are allowed) is one of d's domains or a subdomain
// of one.
func (d Domains) Match(host string) bool {
	host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	if host == "" {
		return false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		for _, a := range d.ips {
			if a.Unmap() == ip {
				return true
			}
		}
		return false
	}
	if lower := strings.ToLower(host); hostname.IsASCII(lower) && !strings.Contains(lower, "xn--") {
		return d.matchName(lower)
	}
	for _, h := range nameForms(host) {
		if d.matchName(h) {
			return true
		}
	}
	return false
}

// matchName reports whether host, in ASCII and lower case, is one of the
// names or a subdomain of one.
func (d Domains) matchName(host string) bool {
	for _, f := range d.names {
		if host == f || strings.HasSuffix(host, f) && host[len(host)-len(f)-1] == '.' {
			return true
		}
	}
	return false
}

// NormalizeDomain turns a domain as a user writes it (" Example.COM.",
// ".example.com", "bücher.de", "127.0.0.1", "[::1]") into the form it is
// matched in: lower case, no leading or trailing dots, IDN in UTS #46
// punycode ("xn--bcher-kva.de"), an IP address in its usual form. A URL, a
// port, a wildcard or anything else that is not a domain name is an error.
func NormalizeDomain(s string) (string, error) {
	d := strings.Trim(strings.TrimSpace(s), ".")
	if ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(d, "["), "]")); err == nil && ip.Zone() == "" {
		return ip.Unmap().String(), nil
	}
	if d == "" || strings.ContainsAny(d, "/\\:*@ \t\r\n?#[]%") {
		return "", fmt.Errorf("want a domain name such as example.com, got %q", s)
	}
	if hostname.IsASCII(d) {
		return strings.ToLower(d), nil
	}
	forms := nameForms(d)
	if len(forms) == 0 {
		return "", fmt.Errorf("%q: not a valid internationalized domain name", s)
	}
	return forms[0], nil
}

// nameForms is name in ASCII: itself in lower case when it is ASCII, else
// its UTS #46 form and, when it differs, its IDNA 2003 form (either left
// out when name is not valid in it). An ASCII name with punycode labels
// ("xn--…") has the forms of the name they spell too, so a hand-written
// xn--strae-oqa.test meets strasse.test.
func nameForms(name string) []string {
	if hostname.IsASCII(name) {
		name = strings.ToLower(name)
		if !strings.Contains(name, "xn--") {
			return []string{name}
		}
		forms := []string{name}
		if u, err := idna.Lookup.ToUnicode(name); err == nil && !hostname.IsASCII(u) {
			for _, f := range nameForms(u) {
				if !slices.Contains(forms, f) {
					forms = append(forms, f)
				}
			}
		}
		return forms
	}
	var forms []string
	if a, err := hostname.ASCII(name); err == nil && a != "" && hostname.IsASCII(a) {
		forms = append(forms, strings.TrimSuffix(a, "."))
	}
	if c, err := fingerprint.ScrapyCanonical("http://" + name + "/"); err == nil {
		if h := strings.TrimSuffix(fingerprint.Host(c), "."); h != "" && hostname.IsASCII(h) && !slices.Contains(forms, h) {
			forms = append(forms, h)
		}
	}
	return forms
}
