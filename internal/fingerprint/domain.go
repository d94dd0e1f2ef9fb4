package fingerprint

import "strings"

// OnDomain reports whether host (lower case, IDN hosts in punycode, as
// Host returns it) is one of domains or a subdomain of one, as Scrapy's
// OffsiteMiddleware judges allowed_domains: "a.test" allows a.test and
// www.a.test, not ba.test. Domains are compared in the same form (IDN in
// punycode, lower case).
func OnDomain(host string, domains []string) bool {
	if host == "" {
		return false
	}
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSpace(d))
		if c, err := ScrapyCanonical("http://" + d + "/"); err == nil {
			d = Host(c) // IDNA, like the host
		}
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}
