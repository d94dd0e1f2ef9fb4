package hostname

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ascii"
)

// SetHost writes the host and port of u, an http or https URL as net/url
// reads it, as browsers write them (the WHATWG URL standard), the form in
// which cfetch fetches a URL and writes it in its records, and cextract
// writes a link: the host by ASCII (lower case, an internationalized name
// in punycode), an IPv6 address in lower case (its zone, an interface
// name, as written); the port as a number (":080" is ":80"), left out
// when it is empty ("host:") or the scheme's default (":80" for http,
// ":443" for https). A host whose last label is a number is an IPv4
// address, read as browsers read it (IPv4: http://127.1/, http://0x7f.1/
// and http://2130706433/ are http://127.0.0.1/). So every tool reads
// http://SHOP.test:080/ as http://shop.test/ and keys its host as one.
//
// An error says why the host is none: empty, with a character no host
// name holds (WHATWG's forbidden host code points: controls, space,
// "<>\^`{|}" and so on), an invalid IPv6 address, IPv4 address
// (http://1.2.3.4.5/, http://example.123/: browsers refuse them too) or
// internationalized name, or a port out of range (0-65535). u is left as
// it was then.
func SetHost(u *url.URL) error {
	host, port := u.Hostname(), u.Port()
	p, err := Port(u.Scheme, port)
	if err != nil {
		return err
	}
	zone := ""
	if i := strings.IndexByte(host, '%'); i >= 0 && strings.Contains(host, ":") {
		host, zone = host[:i], host[i:]
	}
	if host, err = ASCII(host); err != nil {
		return err
	}
	switch {
	case host == "":
		return errors.New("no host")
	case strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"<>\\^`{|}%", r) }):
		// net/url lets these through; WHATWG URL refuses most of them
		// and none makes a host name.
		return fmt.Errorf("invalid host %q", host)
	case strings.Contains(host, ":"):
		if _, err := netip.ParseAddr(host + zone); err != nil {
			return fmt.Errorf("invalid IPv6 host %q", host+zone)
		}
		host = "[" + host + zone + "]"
	default:
		if ip, isIPv4, ok := IPv4(host); ok {
			var buf [15]byte
			if b := ip.AppendTo(buf[:0]); string(b) != host {
				host = string(b) // 127.1, 0x7f.1: no new string for the usual 127.0.0.1
			}
		} else if isIPv4 {
			return fmt.Errorf("invalid IPv4 host %q (its last label is a number)", host)
		}
	}
	if p != "" {
		host += ":" + p
	}
	u.Host = host
	return nil
}

// Port returns port, the digits of a URL's port as net/url has read
// them, as a URL writes it: a number without leading zeros, "" when it
// is empty or the default of scheme (80 for http, 443 for https). An
// error says the port is out of range (0-65535).
func Port(scheme, port string) (string, error) {
	if port == "" {
		return "", nil
	}
	digits := strings.TrimLeft(port, "0")
	n, err := strconv.Atoi("0" + digits)
	if err != nil || len(digits) > 5 || n > 65535 {
		return "", fmt.Errorf("port %s is out of range (0-65535)", port)
	}
	switch {
	case n == 80 && ascii.Lower(scheme) == "http", n == 443 && ascii.Lower(scheme) == "https":
		return "", nil
	}
	return strconv.Itoa(n), nil
}

// Key is the politeness key of a host as SetHost writes it, without
// port and brackets: a name without its trailing dot, for shop.test. is
// the DNS name shop.test, the same server, and so the same rate and
// robots.txt (cfetch, cthrottle) and the same queue (the frontier). The
// URL keeps its dot, as browsers and Scrapy keep it (it is sent in the
// Host header, and its cookies are its own): http://shop.test./a is not
// the page http://shop.test/a.
func Key(host string) string {
	if len(host) > 1 && host[len(host)-1] == '.' {
		return host[:len(host)-1]
	}
	return host
}
