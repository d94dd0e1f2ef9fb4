package cfetch

import (
	"net/http"
	"net/url"
	"strings"

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
	// The host and port as browsers write them: SHOP.Test:080 is
	// shop.test, for the record's url, the Host header, the per-host
	// limits and a redirect's "same host" test, as cextract writes links.
	if err := hostname.SetHost(u); err != nil {
		return nil, fetchErr(ErrInvalidURL, "invalid URL %q: %v", s, err)
	}
	// net/url sends the query as it is: "q=a b" would break the request
	// line and "q=ä" go out as raw bytes. Browsers and Scrapy send them
	// percent-encoded (the path net/url escapes itself).
	u.RawQuery = fingerprint.SafeQuery(u.RawQuery)
	return u, nil
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
