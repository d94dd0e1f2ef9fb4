package fingerprint

import (
	"strings"

	"golang.org/x/net/idna"
)

// OnDomain reports whether host (lower case, IDN hosts in punycode, as
// Host returns it) is one of domains or a subdomain of one, as Scrapy's
// OffsiteMiddleware judges allowed_domains: "a.test" allows a.test and
// www.a.test, not ba.test. Domains are compared in the same form (IDN in
// punycode, lower case), in both of the forms a host can come in: IDNA
// 2003's, as Host makes it from a URL written in Unicode (ß as ss, as
// Python's codec), and UTS #46's, as browsers and cextract's links write
// it (ß kept: xn--strae-oqa). "straße.test" allows both strasse.test and
// xn--strae-oqa.test; it used to allow only the first, so every link
// cextract found on such a site was dropped as offsite.
func OnDomain(host string, domains []string) bool {
	if host == "" {
		return false
	}
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSpace(d))
		forms := []string{d}
		if c, err := ScrapyCanonical("http://" + d + "/"); err == nil {
			forms = append(forms, Host(c)) // IDNA 2003, like the host
		}
		if a, err := idna.Lookup.ToASCII(d); err == nil {
			forms = append(forms, strings.ToLower(a)) // UTS #46, as links are written
		}
		for _, f := range forms {
			if f != "" && (host == f || strings.HasSuffix(host, "."+f)) {
				return true
			}
		}
	}
	return false
}
