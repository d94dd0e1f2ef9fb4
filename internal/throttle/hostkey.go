package throttle

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/hostname"
	"github.com/crawlutils/crawlutils/internal/percent"
)

// defaultPorts are the ports a host key leaves out.
var defaultPorts = map[string]string{"http": "80", "https": "443"}

// HostKey is the throttle key of a URL, the one cthrottle throttles it
// by and cfetch holds when the host asks it to slow down: its host and
// port as cfetch fetches them (hostname.SetHost: lowercased, an
// internationalized name in its ASCII form, bücher.example as
// xn--bcher-kva.example, the port a number, left out when it is the
// scheme's default, so :80 and :080 are no ports of their own), a name
// without its trailing dot (hostname.Key: shop.test. is shop.test):
// "example.com", "example.com:8080", "[::1]:8080"; and its origin
// (scheme://host[:port], where robots.txt is). Both are "" for a URL
// without a host. A host that is no valid name stays as it is,
// lowercased, with its port as written.
func HostKey(raw string) (key, origin string) {
	raw = strings.TrimSpace(raw)
	// A '%' that starts no escape ("/sale-50%-off") does not make the
	// URL any less one: cfetch sends it as "%25".
	u, err := percent.ParseURL(raw)
	if err != nil || u.Host == "" {
		return "", ""
	}
	scheme := strings.ToLower(u.Scheme)
	var host, port string
	if hostname.SetHost(u) == nil {
		host, port = hostname.Key(u.Hostname()), u.Port()
	} else {
		host, port = asciiHost(u.Hostname()), u.Port()
		if port == defaultPorts[scheme] {
			port = ""
		}
	}
	if host == "" {
		return "", ""
	}
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return host, scheme + "://" + host
}

// asciiHost is a host name lowercased, and in its ASCII form when it is
// an internationalized one (as cfetch sends it).
func asciiHost(h string) string {
	if a, err := hostname.ASCII(h); err == nil {
		return a
	}
	return strings.ToLower(h)
}

// foldKey is how a rates file's host key and a request's host key are
// compared: lowercased, an internationalized name in its ASCII form (as
// HostKey writes it), so "Bücher.test:8080" in the file matches the key
// of http://bücher.test:8080/.
func foldKey(key string) string {
	key = strings.ToLower(key)
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			host, port, err := net.SplitHostPort(key)
			if err != nil {
				return asciiHost(key)
			}
			return net.JoinHostPort(asciiHost(host), port)
		}
	}
	return key
}

// lineHostKey reads the host key of a rates file's line, "shop.test",
// "Shop.Test.:8080", "[::1]:8080", "::1" or "Bücher.test", into the key
// HostKey gives the URLs of that host (and port), so that the line
// applies to them: by the same rule (hostname.SetHost, hostname.Key),
// the port a number. What no URL's key can be is an error, rather than a
// line that silently never applies: a URL, a wildcard, a path, a host no
// URL may have, and the port 80 or 443, which a URL's key leaves out on
// its scheme (http://shop.test:80/ is keyed shop.test).
func lineHostKey(s string) (string, error) {
	if strings.Contains(s, "://") {
		if key, _ := HostKey(s); key != "" {
			return "", fmt.Errorf("%q is a URL: give its host key, %s", s, key)
		}
		return "", fmt.Errorf("%q is a URL: give its host", s)
	}
	if strings.Contains(s, "*") {
		return "", fmt.Errorf("%q: a key is one host (a line for a host applies to all its ports), not a pattern", s)
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Is6() {
		s = "[" + s + "]" // an IPv6 address without its port
	}
	in := s
	if strings.HasPrefix(s, "[") {
		// An IPv6 zone as HostKey writes it, [fe80::1%eth0]: a URL
		// escapes its '%'.
		in = strings.ReplaceAll(s, "%", "%25")
	}
	u, err := url.Parse("//" + in)
	if err != nil || u.Host != s || u.User != nil {
		return "", fmt.Errorf("%q is no host or host:port", s)
	}
	if err := hostname.SetHost(u); err != nil {
		return "", fmt.Errorf("%q: %v", s, err)
	}
	host, port := hostname.Key(u.Hostname()), u.Port()
	if port == "80" || port == "443" {
		return "", fmt.Errorf("%q: a URL on its scheme's default port is keyed without it (http://%s:%s/ is %s): give %s", s, host, port, host, host)
	}
	if host == "" {
		return "", fmt.Errorf("%q is no host or host:port", s)
	}
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return host, nil
}
