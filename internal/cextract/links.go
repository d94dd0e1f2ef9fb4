package cextract

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/idna"
)

// LinkExtractor finds the links of a page to follow, as Scrapy's
// LinkExtractor does with its default tags (a, area) and attribute (href).
// The zero value keeps every http and https link. It is safe for concurrent
// use once built.
type LinkExtractor struct {
	// Allow keeps only the links whose absolute URL matches one of these
	// (all links when empty); Deny drops the links matching any of these.
	// Scrapy's allow and deny: unanchored searches.
	Allow, Deny []*regexp.Regexp
	// AllowDomains keeps only links to these domains or their subdomains
	// (all when empty); DenyDomains drops links to these. Domains are
	// lower-case ASCII, as NormalizeDomain returns them.
	AllowDomains, DenyDomains []string
	// MaxURLLength drops links whose URL is longer (Scrapy's
	// URLLENGTH_LIMIT); 0 means no limit.
	MaxURLLength int
}

// LinkStats counts the links of a page that Links did not return, other
// than duplicates and links that are not http(s) (javascript:, mailto:, #top…).
type LinkStats struct {
	Denied  int // refused by Allow, Deny, AllowDomains or DenyDomains
	Invalid int // an href that is not a URL, or a relative one with no base
	TooLong int // longer than MaxURLLength
}

// Links returns the page's links in document order, each once: the href of
// every <a> and <area>, resolved against the page's <base href> or its URL,
// without its #fragment, http and https only; javascript:, mailto:, tel:,
// data: and fragment-only links are skipped.
func (e *LinkExtractor) Links(d *Doc) ([]string, LinkStats) {
	var st LinkStats
	var out []string
	base := d.Base()
	seen := map[string]bool{}
	for n := d.Root; n != nil; n = nextNode(n, d.Root) {
		if n.Type != html.ElementNode || n.DataAtom != atom.A && n.DataAtom != atom.Area {
			continue
		}
		href, ok := attr(n, "href")
		if !ok {
			if href, ok = attr(n, "xlink:href"); !ok {
				continue
			}
		}
		u, err := ResolveLink(base, href)
		switch {
		case errors.Is(err, errNotFollowed):
			continue
		case err != nil:
			st.Invalid++
			continue
		}
		s := u.String()
		if seen[s] {
			continue
		}
		seen[s] = true
		switch {
		case e.MaxURLLength > 0 && len(s) > e.MaxURLLength:
			st.TooLong++
		case !e.allowed(s, u.Hostname()):
			st.Denied++
		default:
			out = append(out, s)
		}
	}
	return out, st
}

func (e *LinkExtractor) allowed(s, host string) bool {
	if len(e.AllowDomains) > 0 && !domainMatch(host, e.AllowDomains) {
		return false
	}
	if domainMatch(host, e.DenyDomains) {
		return false
	}
	if len(e.Allow) > 0 && !anyMatch(e.Allow, s) {
		return false
	}
	return !anyMatch(e.Deny, s)
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// domainMatch reports whether host is one of domains or a subdomain of one.
func domainMatch(host string, domains []string) bool {
	host = strings.TrimSuffix(host, ".")
	for _, d := range domains {
		n := len(host) - len(d)
		if host == d || n > 0 && host[n-1] == '.' && host[n:] == d {
			return true
		}
	}
	return false
}

// NormalizeDomain turns a domain as a user writes it (" Example.COM.",
// ".example.com", "bücher.de") into the form domain matching uses
// ("example.com", "xn--bcher-kva.de"). A URL or anything else that is not a
// domain name is an error.
func NormalizeDomain(s string) (string, error) {
	d := strings.Trim(strings.TrimSpace(s), ".")
	if d == "" || strings.ContainsAny(d, "/:*@ \t?#") {
		return "", fmt.Errorf("want a domain name such as example.com, got %q", s)
	}
	if !isASCII(d) {
		a, err := idna.Lookup.ToASCII(d)
		if err != nil {
			return "", fmt.Errorf("%q: %v", s, err)
		}
		d = a
	}
	return strings.ToLower(d), nil
}

// errNotFollowed marks an href that is not a link to crawl (#top,
// javascript:, mailto:, …) as opposed to a broken one.
var errNotFollowed = errors.New("not an http(s) link")

// ResolveLink turns an href found on a page into the absolute URL to
// request: white space and line breaks removed, "\" read as "/", stray "%"
// escaped, resolved against base, fragment dropped, host lower-cased (IDN
// hosts in punycode), default port and empty path normalized ("http://a" is
// "http://a/"). Fragment-only and non-http(s) links give an error.
func ResolveLink(base *url.URL, href string) (*url.URL, error) {
	h := cleanHref(href)
	if h == "" || h[0] == '#' {
		return nil, errNotFollowed
	}
	if sch := schemeOf(h); sch != "" && sch != "http" && sch != "https" {
		return nil, errNotFollowed
	}
	h = slashes(h)
	ref, err := url.Parse(h)
	if err != nil {
		if ref, err = url.Parse(escapeStrayPercent(h)); err != nil {
			return nil, err
		}
	}
	u := ref
	if !ref.IsAbs() {
		if base == nil {
			return nil, errors.New("relative link and no base URL")
		}
		u = base.ResolveReference(ref)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errNotFollowed
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, errors.New("no host")
	}
	u.Fragment, u.RawFragment = "", ""
	if err := normalizeHost(u); err != nil {
		return nil, err
	}
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	// net/url accepts some hosts it then writes in a form it refuses.
	if _, err := url.Parse(u.String()); err != nil {
		return nil, err
	}
	return u, nil
}

func normalizeHost(u *url.URL) error {
	host, port := u.Hostname(), u.Port()
	if u.Scheme == "http" && port == "80" || u.Scheme == "https" && port == "443" {
		port = ""
	}
	if isASCII(host) {
		host = strings.ToLower(host)
	} else {
		a, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return err
		}
		host = a
	}
	switch {
	case host == "":
		return errors.New("no host")
	case strings.Contains(host, ":"):
		if _, err := netip.ParseAddr(host); err != nil {
			return fmt.Errorf("invalid IPv6 host %q", host)
		}
	}
	switch {
	case port != "":
		u.Host = net.JoinHostPort(host, port) // brackets an IPv6 address
	case strings.Contains(host, ":"):
		u.Host = "[" + host + "]"
	default:
		u.Host = host
	}
	return nil
}

// cleanHref removes what the URL standard strips before parsing: leading
// and trailing C0 controls and spaces, and every tab and line break.
func cleanHref(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// schemeOf returns the lower-cased scheme of an absolute URL, or "".
func schemeOf(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.ToLower(s[:i])
		default:
			return ""
		}
	}
	return ""
}

// slashes reads "\" as "/" before the query, as browsers do for http(s).
func slashes(s string) string {
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	if !strings.Contains(s[:end], `\`) {
		return s
	}
	return strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
}

// escapeStrayPercent writes "%" as "%25" where it does not start an escape,
// before the query (Go checks escapes in the path only).
func escapeStrayPercent(s string) string {
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	var b strings.Builder
	for i := 0; i < end; i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String() + s[end:]
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
