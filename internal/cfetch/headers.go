package cfetch

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/crawlutils/crawlutils/internal/record"
	"golang.org/x/net/http/httpguts"
)

// parseHeader parses a -H/--header value, "Name: value" as curl takes it.
// "Name:" with nothing after the colon is a header with an empty value.
func parseHeader(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", fmt.Errorf("%q: want \"Name: value\"", s)
	}
	name = strings.TrimSpace(name)
	value = strings.TrimSpace(value)
	if err := checkHeader(name, []string{value}); err != nil {
		return "", "", err
	}
	return http.CanonicalHeaderKey(name), value, nil
}

// checkHeader reports a header name or value that net/http would refuse to
// send.
func checkHeader(name string, values []string) error {
	if !httpguts.ValidHeaderFieldName(name) {
		return fmt.Errorf("invalid header name %q", name)
	}
	for _, v := range values {
		if !httpguts.ValidHeaderFieldValue(v) {
			return fmt.Errorf("header %q: invalid value %q (control characters are not allowed)", name, v)
		}
	}
	return nil
}

// flattenHeaders turns response headers into the record's form: lower-case
// names, repeated values joined with ", " (Set-Cookie values with "\n",
// since cookies may contain commas).
func flattenHeaders(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for name, vals := range h {
		key := strings.ToLower(name)
		sep := ", "
		if key == "set-cookie" {
			sep = "\n"
		}
		v := strings.Join(vals, sep)
		if prev, ok := out[key]; ok { // non-canonical duplicates from a raw header map
			v = prev + sep + v
		}
		out[key] = v
	}
	return out
}

// buildHeaders returns the headers for one request: the defaults, then the
// request's own (which win), with User-Agent chosen as documented: the
// request's User-Agent header, else its "useragent" field, else a -H
// User-Agent, else --user-agent.
func buildHeaders(o *Options, reqHeaders map[string]string, reqUA string) (http.Header, string, error) {
	h := make(http.Header, len(o.Headers)+len(reqHeaders)+3)
	h.Set("Accept", DefaultAccept)
	h.Set("Accept-Encoding", AcceptEncoding)
	h.Set("User-Agent", o.UserAgent)
	for name, vals := range o.Headers {
		h[name] = slices.Clone(vals)
	}
	if reqUA != "" {
		h.Set("User-Agent", reqUA)
	}
	host := ""
	for name, v := range reqHeaders {
		if err := checkHeader(name, []string{v}); err != nil {
			return nil, "", fmt.Errorf("field \"headers\": %v", err)
		}
		if strings.EqualFold(name, "Host") {
			host = v
			continue
		}
		h.Set(name, v)
	}
	return h, host, nil
}

// requestHeaders returns the headers of a request record's first hop, to
// target: buildHeaders, plus the Referer its "referer" field makes
// (refererFor), as Scrapy's RefererMiddleware sends it, unless
// --no-referer. A Referer in the request's own headers wins; one set with
// -H gives way.
func requestHeaders(o *Options, r *record.Request, target *url.URL) (http.Header, string, error) {
	h, host, err := buildHeaders(o, r.Headers, r.UserAgent)
	if err != nil || !o.Referer || r.Referer == "" {
		return h, host, err
	}
	for name := range r.Headers {
		if strings.EqualFold(name, "Referer") {
			return h, host, nil
		}
	}
	if ref := refererFor(r.Referer, target); ref != "" {
		h.Set("Referer", ref)
	}
	return h, host, nil
}

// refererFor is the Referer header of a request to target found on the
// page at referer, by Scrapy's default policy (a variant of the
// no-referrer-when-downgrade policy): the page's URL without credentials,
// fragment and default port; none from an https page to a target that is
// not https (refererDowngrade), nor from a page that is not http or https.
func refererFor(referer string, target *url.URL) string {
	u, err := url.Parse(strings.TrimSpace(referer))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || refererDowngrade(u, target) {
		return ""
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	if p := u.Port(); (p == "80" && u.Scheme == "http") || (p == "443" && u.Scheme == "https") {
		u.Host = strings.TrimSuffix(u.Host, ":"+p)
	}
	return u.String()
}

// refererDowngrade reports whether a Referer naming the page at ref would
// leave TLS for target: an https page, a target that is not https.
func refererDowngrade(ref, target *url.URL) bool {
	return ref.Scheme == "https" && target.Scheme != "https"
}
