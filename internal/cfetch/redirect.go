package cfetch

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ascii"
	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/hostname"
	"github.com/crawlutils/crawlutils/internal/percent"
)

// isRedirect reports whether status is a redirect cfetch follows.
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redirectMethod returns the method of the request that follows a redirect,
// and whether the body is kept: 303 turns anything but HEAD into a body-less
// GET, 301 and 302 turn POST into GET (as browsers and Scrapy do), 307 and
// 308 keep both.
func redirectMethod(status int, method string) (string, bool) {
	switch {
	case status == http.StatusSeeOther && method != http.MethodHead:
		return http.MethodGet, false
	case (status == http.StatusMovedPermanently || status == http.StatusFound) && method == http.MethodPost:
		return http.MethodGet, false
	}
	return method, true
}

// checkURL parses an absolute http or https URL, with the error a response
// record should carry when it is not one.
func checkURL(s string) (*url.URL, *FetchError) {
	u, err := percent.ParseURL(strings.TrimSpace(s))
	if err != nil {
		return nil, fetchErr(ErrInvalidURL, "invalid URL: %s", strings.TrimPrefix(err.Error(), "parse "))
	}
	switch {
	case u.Scheme == "":
		return nil, fetchErr(ErrUnsupportedScheme, "relative URL %q (want an absolute http or https URL)", s)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fetchErr(ErrUnsupportedScheme, "unsupported URL scheme %q (want http or https)", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return nil, fetchErr(ErrInvalidURL, "invalid URL %q: no host", s)
	}
	if p := u.Port(); p != "" && !portInRange(p) {
		// net/url takes any digits; the dial would fail, as a network
		// error, retried.
		return nil, fetchErr(ErrInvalidURL, "invalid URL %q: port %s is out of range (0-65535)", s, p)
	}
	if err := canonicalHost(u); err != nil {
		return nil, fetchErr(ErrInvalidURL, "invalid URL %q: host: %v", s, err)
	}
	// net/url sends the query as it is: "q=a b" would break the request
	// line and "q=ä" go out as raw bytes. Browsers and Scrapy send them
	// percent-encoded (the path net/url escapes itself).
	u.RawQuery = fingerprint.SafeQuery(u.RawQuery)
	return u, nil
}

// portInRange reports whether port, digits as net/url has checked, is a
// port number, leading zeros allowed (as browsers read ":080").
func portInRange(port string) bool {
	digits := strings.TrimLeft(port, "0")
	if len(digits) > 5 {
		return false
	}
	n, err := strconv.Atoi("0" + digits)
	return err == nil && n <= 65535
}

// canonicalHost writes u's host as it goes on the wire and in records, and
// as cextract writes links: in lower case (host names are case-insensitive,
// RFC 3986 §6.2.2.1, so SHOP.Test is shop.test for the record's url, the
// Host header, the per-host limits and a redirect's "same host" test), an
// internationalized name in its ASCII (punycode) form, bücher.test as
// xn--bcher-kva.test, not b%C3%BCcher.test. An IPv6 zone (an interface
// name) is kept as written. net/url has already lower-cased the scheme.
func canonicalHost(u *url.URL) error {
	host := u.Hostname()
	if hostname.IsASCII(host) {
		h := u.Host
		if i := strings.IndexByte(h, '%'); i >= 0 && strings.HasPrefix(h, "[") {
			u.Host = ascii.Lower(h[:i]) + h[i:]
		} else {
			u.Host = ascii.Lower(h)
		}
		return nil
	}
	a, err := hostname.ASCII(host)
	if err != nil {
		return err
	}
	if p := u.Port(); p != "" {
		a += ":" + p
	}
	u.Host = a
	return nil
}

// resolveLocation resolves a redirect's Location against the URL it came
// from as browsers do (percent.Slashes: `\target` is `/target`).
func resolveLocation(base *url.URL, loc string) (*url.URL, error) {
	ref, err := percent.ParseURL(percent.Slashes(strings.TrimSpace(loc))) // "/sale-50%-off" as browsers send it
	if err != nil {
		return nil, err
	}
	return base.ResolveReference(ref), nil
}

// chainKey identifies a URL within one redirect chain (fragments are not
// sent, so they do not make a URL different).
func chainKey(u *url.URL) string {
	if u.Fragment == "" && u.RawFragment == "" {
		return u.String()
	}
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// sensitiveHeaders are not sent on to another host after a redirect.
var sensitiveHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2", "Www-Authenticate"}

// bodyHeaders describe a request body and go when a redirect drops it.
var bodyHeaders = []string{"Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location"}
