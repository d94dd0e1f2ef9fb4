package cfetch

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"sync"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// newTransport returns the one http.Transport of a run, with proxy as its
// proxy function. Fetcher.exchange sends each hop through it directly, not
// through an http.Client: the scheduler follows redirects, hop by hop, to
// apply politeness, robots.txt and the address policy to each (and a
// client would fail a whole exchange on a Location it cannot parse before
// it could be told not to follow it). Bodies are not decompressed by the
// transport (Fetcher decodes gzip, deflate, br and zstd itself); timeouts
// come from each request's context, plus the connect, TLS-handshake and
// response-header limits set here. Connections go through a dialer that
// knows --resolve, caches DNS answers and applies the address policy
// (private.go).
func newTransport(o *Options, proxy func(*http.Request) (*url.URL, error)) *http.Transport {
	d := newDialer(o)
	tr := &http.Transport{
		Proxy:                  proxy,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      o.HTTP2,
		TLSClientConfig:        &tls.Config{InsecureSkipVerify: o.Insecure},
		TLSHandshakeTimeout:    o.ConnectTimeout,
		ResponseHeaderTimeout:  o.HeaderTimeout, // 0: the request's --timeout alone
		ExpectContinueTimeout:  time.Second,
		DisableCompression:     true,
		MaxIdleConns:           max(100, 4*o.Concurrency),
		MaxIdleConnsPerHost:    min(o.PerHost, o.Concurrency),
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	if !o.HTTP2 {
		// A non-nil empty map turns HTTP/2 off.
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return tr
}

// proxyKey is the context key of a request's own proxy.
type proxyKey struct{}

// proxyFunc picks the proxy of a request: its own "proxy" field, else
// --proxy, else HTTP_PROXY, HTTPS_PROXY and NO_PROXY (or their lower-case
// forms) as o.Getenv read them when the run started (read again for each
// run, unlike http.ProxyFromEnvironment).
func proxyFunc(o *Options) func(*http.Request) (*url.URL, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	either := func(upper, lower string) string {
		if v := getenv(upper); v != "" {
			return v
		}
		return getenv(lower)
	}
	env := (&httpproxy.Config{
		HTTPProxy:  either("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: either("HTTPS_PROXY", "https_proxy"),
		NoProxy:    either("NO_PROXY", "no_proxy"),
		CGI:        getenv("REQUEST_METHOD") != "",
	}).ProxyFunc()
	return func(r *http.Request) (*url.URL, error) {
		if p, ok := r.Context().Value(proxyKey{}).(*url.URL); ok && p != nil {
			return p, nil
		}
		if o.Proxy != nil {
			return o.Proxy, nil
		}
		return env(r.URL)
	}
}

// latencyTrace measures one exchange the way AutoThrottle does: from the
// start of the TCP connect (or, on a reused connection, from the request
// being written) to the first response byte. It also records whether a
// connection was made at all.
type latencyTrace struct {
	mu           sync.Mutex
	connectStart time.Time
	wrote        time.Time
	firstByte    time.Time
	reused       bool
	gotConn      bool
}

func (lt *latencyTrace) withTrace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectStart: func(string, string) {
			lt.mu.Lock()
			if lt.connectStart.IsZero() {
				lt.connectStart = time.Now()
			}
			lt.mu.Unlock()
		},
		GotConn: func(info httptrace.GotConnInfo) {
			lt.mu.Lock()
			lt.reused = info.Reused
			lt.gotConn = true
			lt.mu.Unlock()
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			lt.mu.Lock()
			lt.wrote = time.Now()
			lt.mu.Unlock()
		},
		GotFirstResponseByte: func() {
			lt.mu.Lock()
			lt.firstByte = time.Now()
			lt.mu.Unlock()
		},
	})
}

// connected reports whether a connection (TLS included) was established.
func (lt *latencyTrace) connected() bool {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.gotConn
}

// latency returns the measured latency, or 0 when no response byte came.
func (lt *latencyTrace) latency() time.Duration {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.firstByte.IsZero() {
		return 0
	}
	start := lt.connectStart
	if lt.reused || start.IsZero() {
		start = lt.wrote
	}
	if start.IsZero() || lt.firstByte.Before(start) {
		return 0
	}
	return lt.firstByte.Sub(start)
}

// dialer opens TCP connections: to the addresses --resolve gives for a
// host:port, else to the host's addresses from the DNS cache, trying each
// in turn. Unless the exchange's dialPolicy (in the context) or
// --allow-private says otherwise, it connects to public addresses only,
// checked once the name is resolved (private.go).
type dialer struct {
	net      net.Dialer // connects anywhere
	checked  net.Dialer // refuses internal addresses as the socket connects
	allowAll bool       // --allow-private
	resolve  map[string][]string
	dns      *dnsCache // nil: no cache
}

func newDialer(o *Options) *dialer {
	d := &dialer{net: net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}, resolve: o.Resolve, allowAll: o.AllowPrivate}
	d.checked = d.net
	d.checked.Control = refuseInternal
	if o.DNSCacheSize > 0 {
		d.dns = newDNSCache(o.DNSCacheSize, dnsCacheTTL, o.DNSTimeout)
	}
	return d
}

// DialContext is the transport's dial function.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nd := &d.checked
	pol, _ := ctx.Value(dialPolicyKey{}).(dialPolicy)
	if d.allowAll || pol.unchecked(addr) {
		nd = &d.net
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nd.DialContext(ctx, network, addr)
	}
	addrs := d.resolved(host, port)
	if addrs != nil {
		nd = &d.net // the user's own choice
	} else {
		if _, err := parseIP(host); err == nil || d.dns == nil {
			c, err := nd.DialContext(ctx, network, addr)
			return c, nameRefusal(err, host)
		}
		if addrs, err = d.dns.lookup(ctx, host); err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Err: err}
		}
	}
	var first error
	for _, a := range addrs {
		c, err := nd.DialContext(ctx, network, net.JoinHostPort(a, port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = nameRefusal(err, host)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// nameRefusal names the host in a refusal of the address it resolved to.
func nameRefusal(err error, host string) error {
	var ie *internalAddrError
	if errors.As(err, &ie) {
		ie.host = host
	}
	return err
}

// resolved returns the --resolve addresses of host:port, or nil.
func (d *dialer) resolved(host, port string) []string {
	if len(d.resolve) == 0 {
		return nil
	}
	if a, ok := d.resolve[resolveKey(host, port)]; ok {
		return a
	}
	return d.resolve[resolveKey("*", port)]
}
