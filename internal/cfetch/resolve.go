package cfetch

import (
	"container/list"
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// dnsCacheTTL is how long a host name's addresses are used.
const dnsCacheTTL = 5 * time.Minute

// parseResolve parses a --resolve value, as curl takes it:
// HOST:PORT:ADDR[,ADDR...]. HOST may be "*" (any host on that port) or a
// bracketed IPv6 literal; each ADDR is an IP address, IPv6 with or without
// brackets. It returns the key resolveKey makes and the addresses.
func parseResolve(s string) (key string, addrs []string, err error) {
	bad := func(why string) (string, []string, error) {
		return "", nil, fmt.Errorf("%q: %s (want HOST:PORT:ADDR[,ADDR], e.g. shop.test:80:127.0.0.1)", s, why)
	}
	rest := s
	var host string
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return bad("missing ']'")
		}
		host, rest = rest[1:end], rest[end+1:]
		if _, err := netip.ParseAddr(host); err != nil || !strings.HasPrefix(rest, ":") {
			return bad("invalid IPv6 host")
		}
		rest = rest[1:]
	} else {
		var ok bool
		host, rest, ok = strings.Cut(rest, ":")
		if !ok {
			return bad("no port")
		}
	}
	if host == "" || (host != "*" && !validHostName(host) && !strings.Contains(host, ":")) {
		return bad("invalid host")
	}
	port, list, ok := strings.Cut(rest, ":")
	if !ok {
		return bad("no address")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return bad("invalid port")
	}
	for a := range strings.SplitSeq(list, ",") {
		ip, err := parseIP(strings.TrimSpace(a))
		if err != nil {
			return bad(fmt.Sprintf("invalid address %q", a))
		}
		addrs = append(addrs, ip.String())
	}
	return resolveKey(host, port), addrs, nil
}

// resolveKey is the map key of a host and port.
func resolveKey(host, port string) string {
	return strings.ToLower(strings.Trim(host, "[]")) + "\x00" + port
}

// parseIP parses an IP address, IPv6 with or without brackets, without a
// zone.
func parseIP(s string) (netip.Addr, error) {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	ip, err := netip.ParseAddr(s)
	if err == nil && ip.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("zone not allowed")
	}
	return ip, err
}

// validHostName accepts the characters of a DNS name (letters, digits,
// '-', '_', '.'), as a URL's host carries it.
func validHostName(h string) bool {
	if len(h) > 253 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// dnsCache keeps the addresses of host names for ttl, the least recently
// used dropped past max names (Scrapy's DNSCACHE_SIZE). Concurrent lookups
// of one name share one query. Failures are not cached. Safe for
// concurrent use.
type dnsCache struct {
	max     int
	ttl     time.Duration
	timeout time.Duration
	// resolve and now are the resolver and the clock; tests replace them.
	resolve func(ctx context.Context, host string) ([]string, error)
	now     func() time.Time

	mu       sync.Mutex
	m        map[string]*list.Element
	ll       list.List
	inflight map[string]*dnsCall
}

type dnsEntry struct {
	host    string
	addrs   []string
	expires time.Time
}

type dnsCall struct {
	done  chan struct{}
	addrs []string
	err   error
}

func newDNSCache(max int, ttl, timeout time.Duration) *dnsCache {
	return &dnsCache{
		max: max, ttl: ttl, timeout: timeout,
		resolve:  net.DefaultResolver.LookupHost,
		now:      time.Now,
		m:        map[string]*list.Element{},
		inflight: map[string]*dnsCall{},
	}
}

// lookup returns the addresses of host.
func (c *dnsCache) lookup(ctx context.Context, host string) ([]string, error) {
	host = strings.ToLower(host)
	c.mu.Lock()
	if el, ok := c.m[host]; ok {
		e := el.Value.(*dnsEntry)
		if c.now().Before(e.expires) {
			c.ll.MoveToFront(el)
			c.mu.Unlock()
			return e.addrs, nil
		}
		c.ll.Remove(el)
		delete(c.m, host)
	}
	call, ok := c.inflight[host]
	if !ok {
		call = &dnsCall{done: make(chan struct{})}
		c.inflight[host] = call
		go c.query(host, call)
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.addrs, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// query asks the resolver, with its own timeout (not the caller's: other
// callers may be waiting for the same answer).
func (c *dnsCache) query(host string, call *dnsCall) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	addrs, err := c.resolve(ctx, host)
	cancel()
	if err == nil && len(addrs) == 0 {
		err = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	call.addrs, call.err = addrs, err
	c.mu.Lock()
	delete(c.inflight, host)
	if err == nil {
		c.m[host] = c.ll.PushFront(&dnsEntry{host: host, addrs: addrs, expires: c.now().Add(c.ttl)})
		for c.ll.Len() > c.max {
			last := c.ll.Back()
			c.ll.Remove(last)
			delete(c.m, last.Value.(*dnsEntry).host)
		}
	}
	c.mu.Unlock()
	close(call.done)
}

// len is the number of names cached.
func (c *dnsCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
