package cfetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"github.com/crawlutils/crawlutils/internal/hostname"
	"github.com/crawlutils/crawlutils/internal/record"
)

// The address policy: crawled content may not lead cfetch into internal
// addresses (loopback, link-local — the cloud metadata service at
// 169.254.169.254 —, private, unique-local, CGNAT, unspecified, multicast
// and the like, see internalKind), unless the crawl started there.
//
// What "started there" means, from the records alone (cfetch keeps no
// state between runs, and the hops of one crawl may be fetched by
// different processes):
//
//   - A hop whose host is written as an internal address — an IP literal,
//     "localhost" (or a name under .localhost), or a name --resolve maps to
//     an internal address — may be fetched unless what led to it is not on
//     such a host too: for a redirect, the hop it was redirected from (the
//     previous hop cfetch followed, or the last of the request's
//     "redirects" when the frontier got it handed back); for a link (a
//     request with a "depth" and a "referer", as cextract writes them), the
//     page it was found on. A request that records neither is a seed, the
//     user's own. A refused hop is answered with "error":"private_address"
//     and nothing is sent.
//   - Any other hop — a host name, or a public literal — may connect to
//     public addresses only. This is checked on the addresses the name
//     resolves to, as the connection is made (dialer.DialContext), so a
//     name that answers with an internal address, at once or later (DNS
//     rebinding), is refused. A crawl of an intranet by name needs
//     --allow-private (or --resolve): cfetch cannot tell an intranet name
//     from an attacker's name that resolves to 10.0.0.1.
//
// The hosts --resolve names connect to the addresses it gives, unchecked
// once admitted (a host it maps to an internal address is admitted as one
// written so, above: a public page's link to it is refused), and so does
// a request's proxy (the user's choice; through a proxy, the
// proxy resolves names, so only the literal rule above applies).
// --allow-private turns the policy off. A robots.txt fetch is made for a
// host only when one of its requests may be fetched (refused requests are
// answered before they are queued), so it may reach what that host's
// requests may; its redirects follow the rule of redirects.

// addressPolicy applies the rules above to requests and hops. The zero
// value refuses what the rules refuse and knows no --resolve.
type addressPolicy struct {
	allowAll bool                // --allow-private
	resolve  map[string][]string // --resolve, as parseResolve keys it
}

func newAddressPolicy(o *Options) addressPolicy {
	return addressPolicy{allowAll: o.AllowPrivate, resolve: o.Resolve}
}

// request decides the first hop of a request, at u: whether it may
// connect to internal addresses, or the error that answers it.
func (p addressPolicy) request(req *record.Request, u *url.URL) (bool, *FetchError) {
	kind := p.writtenInternal(u)
	if p.allowAll || kind == "" {
		return p.allowAll, nil
	}
	var from, how string
	switch {
	case len(req.Redirects) > 0:
		from, how = req.Redirects[len(req.Redirects)-1].URL, "the URL that redirected to it"
	case req.Depth != 0 && req.Referer != "":
		from, how = req.Referer, "the page that linked to it"
	default:
		return true, nil // a seed: nothing in the record led here
	}
	if f, err := url.Parse(from); err == nil && p.writtenInternal(f) != "" {
		return true, nil
	}
	return false, fetchErr(ErrPrivateAddress, "%s is %s, and %s, %s, is not on one: not fetched (--allow-private allows it)", u.Host, kind, how, from)
}

// admit applies the policy to the first hop of a prepared job: it sets
// j.internalOK, or returns the error that answers the request.
func (f *Fetcher) admit(j *job) *FetchError {
	ok, fe := f.policy.request(&j.req, j.url)
	j.internalOK = ok
	return fe
}

// hop decides a redirect (or refresh) from one URL to the next.
func (p addressPolicy) hop(from, to *url.URL) (bool, *FetchError) {
	kind := p.writtenInternal(to)
	switch {
	case p.allowAll:
		return true, nil
	case kind == "" || p.writtenInternal(from) != "":
		return kind != "", nil
	}
	return false, fetchErr(ErrPrivateAddress, "redirect from %s to %s, which is %s: not followed (--allow-private allows it)", from.Host, to.Host, kind)
}

// robots decides a robots.txt fetch at u, made for a request that may be
// fetched.
func (p addressPolicy) robots(u *url.URL) bool {
	return p.allowAll || p.writtenInternal(u) != ""
}

// writtenInternal says what kind of internal address u's host is as
// written ("a loopback address", …), or "" when it is a name or a public
// address.
func (p addressPolicy) writtenInternal(u *url.URL) string {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if ip, err := netip.ParseAddr(host); err == nil {
		if k := internalKind(ip); k != "" {
			return article(k) + " address"
		}
		return ""
	}
	if ip, _, ok := hostname.IPv4(host); ok {
		// 2130706433, 127.1, 0x7f000001: 127.0.0.1 to a proxy or a
		// resolver that reads them as browsers do (SetHost writes a URL
		// cfetch fetches so, but not every URL judged here is one).
		if k := internalKind(ip); k != "" {
			return article(k) + " address"
		}
		return ""
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "a loopback name"
	}
	for _, a := range p.resolved(u) {
		if ip, err := netip.ParseAddr(a); err == nil && internalKind(ip) != "" {
			return "mapped by --resolve to " + article(internalKind(ip)) + " address"
		}
	}
	return ""
}

func (p addressPolicy) resolved(u *url.URL) []string {
	if len(p.resolve) == 0 {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	if a, ok := p.resolve[resolveKey(u.Hostname(), port)]; ok {
		return a
	}
	return p.resolve[resolveKey("*", port)]
}

// Special ranges netip has no method for.
var (
	sharedRange    = netip.MustParsePrefix("100.64.0.0/10") // RFC 6598, carrier-grade NAT
	thisNetwork    = netip.MustParsePrefix("0.0.0.0/8")     // RFC 1122 "this network"
	broadcast      = netip.MustParseAddr("255.255.255.255")
	siteLocal      = netip.MustParsePrefix("fec0::/10")    // deprecated, still routed by some
	v4Compatible   = netip.MustParsePrefix("::/96")        // deprecated IPv4-compatible IPv6
	nat64          = netip.MustParsePrefix("64:ff9b::/96") // RFC 6052: the IPv4 address in the last 32 bits
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour      = netip.MustParsePrefix("2002::/16") // RFC 3056: the IPv4 address in bits 16–47
	internalRanges = []struct {
		prefix netip.Prefix
		kind   string
	}{
		{sharedRange, "shared (CGNAT)"},
		{thisNetwork, "this-network"},
		{siteLocal, "site-local"},
		{v4Compatible, "IPv4-compatible"},
	}
)

// internalKind says what kind of internal address ip is — "loopback",
// "private", "link-local", … — or "" for a public unicast address. IPv6
// forms of an IPv4 address (mapped, NAT64, 6to4) are judged by the IPv4
// address they carry.
func internalKind(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate() && ip.Is4():
		return "private"
	case ip.IsPrivate():
		return "unique-local"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast():
		return "multicast"
	case ip == broadcast:
		return "broadcast"
	case nat64.Contains(ip), nat64Local.Contains(ip):
		b := ip.As16()
		return embeddedKind(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(ip):
		b := ip.As16()
		return embeddedKind(netip.AddrFrom4([4]byte(b[2:6])))
	}
	for _, r := range internalRanges {
		if r.prefix.Contains(ip) {
			return r.kind
		}
	}
	return ""
}

// embeddedKind is the kind of an IPv4 address carried in an IPv6 one.
func embeddedKind(v4 netip.Addr) string {
	if k := internalKind(v4); k != "" {
		return k + " (in IPv6)"
	}
	return ""
}

// article puts "a" or "an" before a kind of address.
func article(kind string) string {
	if strings.ContainsRune("aeiouAEIOU", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// internalAddrError is a connection refused by the policy, before it was
// made.
type internalAddrError struct {
	host string // the name that resolved to addr, or ""
	addr string
	kind string // "" when addr could not be read
}

func (e *internalAddrError) Error() string {
	if e.kind == "" {
		return fmt.Sprintf("cannot check the address %q: not connected", e.addr)
	}
	what := e.addr + " is"
	if e.host != "" && e.host != e.addr {
		what = e.host + " resolves to " + e.addr + ","
	}
	return fmt.Sprintf("%s %s address: not connected (a host name must resolve to a public address; --allow-private or --resolve allows it)", what, article(e.kind))
}

// dialPolicyKey is the context key of the dialPolicy of an exchange.
type dialPolicyKey struct{}

// dialPolicy is what the dialer may connect to for one exchange. With
// none in the context, only public addresses. The transport pools
// connections (and may hand one request's dial to another) per scheme,
// host:port as written and proxy; every hop that reaches it for one of
// those has the same internalOK (it depends on the host as written, and
// the hops the policy refuses are answered before they are sent), so a
// pooled connection never serves a hop that could not have made it.
type dialPolicy struct {
	internalOK bool   // the hop may connect to internal addresses
	proxy      string // host:port of the exchange's proxy, connected to unchecked
}

func withDialPolicy(ctx context.Context, p dialPolicy) context.Context {
	return context.WithValue(ctx, dialPolicyKey{}, p)
}

// unchecked reports whether a connection to addr may go to any address.
func (p dialPolicy) unchecked(addr string) bool {
	return p.internalOK || p.proxy != "" && strings.EqualFold(p.proxy, addr)
}

// proxyAddr is the host:port a connection to proxy goes to, as
// http.Transport dials it.
func proxyAddr(proxy *url.URL) string {
	if proxy == nil {
		return ""
	}
	port := proxy.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[proxy.Scheme]
	}
	return net.JoinHostPort(proxy.Hostname(), port)
}

// refuseInternal is the net.Dialer Control of checked connections: it
// refuses an internal address once the name is resolved, before the
// socket connects.
func refuseInternal(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &internalAddrError{addr: address}
	}
	if k := internalKind(ap.Addr()); k != "" {
		return &internalAddrError{addr: ap.Addr().String(), kind: k}
	}
	return nil
}
