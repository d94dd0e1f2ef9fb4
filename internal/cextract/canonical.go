package cextract

import (
	"net/url"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
)

// canonicalizeURL rewrites u in canonical form for link rules with
// canonicalize: true: the project's one canonicalizer,
// fingerprint.Canonicalize (w3lib's canonicalize_url, which Scrapy's
// LinkExtractor(canonicalize=True) and its request fingerprint use): the
// fragment dropped, escapes normalized, query arguments (split on "&" and
// ";") sorted and re-encoded, blank values kept. ResolveLink has already
// lower-cased the host, written IDN hosts in punycode and dropped the
// default port. A URL it cannot canonicalize is left as it is.
func canonicalizeURL(u *url.URL) {
	s, err := fingerprint.Canonicalize(u.String())
	if err != nil {
		return
	}
	if c, err := url.Parse(s); err == nil {
		*u = *c
	}
}
