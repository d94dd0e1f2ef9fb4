// Package hostname writes a host name as it goes on the wire and in the
// records: in lower case (host names are case-insensitive, RFC 3986
// §6.2.2.1), and an internationalized one in its ASCII (punycode) form,
// by UTS #46 as browsers look names up (bücher.test is xn--bcher-kva.test).
// cfetch writes the URLs it fetches so, cextract the links it finds, and
// cthrottle keys its hosts so: one rule, so that a host written two ways
// is one host everywhere (for the per-host limits, robots.txt, the crawl
// policy and the frontier's queues).
//
// SetHost is the one rule for a URL's host and port (cfetch's fetched
// URLs, cextract's links, cthrottle's keys, and through
// fingerprint.Identity the frontier's and cdedupe's keys): the host by
// ASCII, the port a number, the scheme's default left out.
package hostname

import (
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/ascii"
	"golang.org/x/net/idna"
)

// ASCII returns host (a name or an IP address, without port or brackets)
// as it goes on the wire: lower case, an internationalized name in
// punycode. An error says why a name is no valid internationalized name;
// an ASCII host never has one.
func ASCII(host string) (string, error) {
	if IsASCII(host) {
		return ascii.Lower(host), nil
	}
	return idna.Lookup.ToASCII(host)
}

// IsASCII reports whether s is all ASCII.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
