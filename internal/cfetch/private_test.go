package cfetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// The tests of the address policy (private.go). The fault server runs on
// 127.0.0.1, so a crawl that starts there may go on there; a request that
// a public page (or a redirect from one) leads to 127.0.0.1 must be
// refused without a byte sent, robots.txt included.

// publicPage is a referer on a public host.
const publicPage = "http://public.example/page"

// TestLinksIntoInternalAddressesAreRefused: a link found on a public page
// may not lead into loopback, link-local or private addresses; one found
// on a page of a crawl that started there may.
func TestLinksIntoInternalAddressesAreRefused(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	t.Cleanup(s.Close)
	port := s.URL[strings.LastIndexByte(s.URL, ':')+1:]
	refused := []struct{ name, rec string }{ // the name says what each is
		{"link from a public page", `{"url":"` + s.URL + `/ok?a","depth":1,"referer":"` + publicPage + `"}`},
		{"localhost", `{"url":"http://localhost:` + port + `/ok?c","depth":1,"referer":"` + publicPage + `"}`},
		{"IPv6 loopback", `{"url":"http://[::1]:` + port + `/ok?d","depth":1,"referer":"` + publicPage + `"}`},
		{"IPv4-mapped IPv6 loopback", `{"url":"http://[::ffff:127.0.0.1]:` + port + `/ok?e","depth":1,"referer":"` + publicPage + `"}`},
		{"cloud metadata", `{"url":"http://169.254.169.254/latest/meta-data/","depth":1,"referer":"` + publicPage + `"}`},
		{"private range", `{"url":"http://10.1.2.3/","depth":1,"referer":"` + publicPage + `"}`},
		{"CGNAT range", `{"url":"http://100.64.0.1/","depth":1,"referer":"` + publicPage + `"}`},
		{"unspecified", `{"url":"http://0.0.0.0:` + port + `/ok?f","depth":1,"referer":"` + publicPage + `"}`},
		{"a redirect handed back from a public URL", `{"url":"` + s.URL + `/ok?g","redirects":[{"url":"` + publicPage + `","status":302}]}`},
	}
	var in strings.Builder
	for _, r := range refused {
		in.WriteString(r.rec + "\n")
	}
	start := time.Now()
	// A connection tried to an unroutable address (100.64.0.1) would
	// wait the whole --connect-timeout: 60 s, far over the bound below,
	// which allows a machine busy enough to take 10 times the usual.
	res := runCfetch(t, in.String(), append(append([]string{}, fast...), "--connect-timeout", "60s")...)
	if len(res.resps) != len(refused) {
		t.Fatalf("%d responses for %d requests:\n%s", len(res.resps), len(refused), strings.Join(res.lines, "\n"))
	}
	for _, r := range res.resps {
		if r.Error != "private_address" || r.Status != 0 || !strings.Contains(r.ErrorDetail, "--allow-private") {
			t.Errorf("%s: error %q (%s) status %d, want private_address\nrequest %s", r.URL, r.Error, r.ErrorDetail, r.Status, r.Request)
		}
	}
	if res.code != 0 || res.stderr != "" {
		t.Errorf("exit %d, stderr %q: a refusal is data, not bad input", res.code, res.stderr)
	}
	if n := s.totalHits(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("refusals took %v: something tried to connect", d)
	}

	allowed := []struct{ name, rec string }{
		{"a seed", `{"url":"` + s.URL + `/ok?1"}`},
		{"a seed with a referer", `{"url":"` + s.URL + `/ok?2","referer":"` + publicPage + `"}`},
		{"a request with a depth and nothing that led to it", `{"url":"` + s.URL + `/ok?b","depth":2}`},
		{"a link from a page on 127.0.0.1", `{"url":"` + s.URL + `/ok?3","depth":1,"referer":"` + s.URL + `/"}`},
		{"a link from a page on localhost", `{"url":"` + s.URL + `/ok?4","depth":3,"referer":"http://localhost:` + port + `/"}`},
		{"a redirect handed back from 127.0.0.1", `{"url":"` + s.URL + `/ok?5","redirects":[{"url":"` + s.URL + `/r","status":301}]}`},
		{"localhost as a seed", `{"url":"http://localhost:` + port + `/ok?6"}`},
	}
	in.Reset()
	for _, r := range allowed {
		in.WriteString(r.rec + "\n")
	}
	res = runCfetch(t, in.String(), fast...)
	for _, r := range res.resps {
		if r.Error != "" || r.Status != 200 {
			t.Errorf("%s: error %q (%s) status %d, want 200\nrequest %s", r.URL, r.Error, r.ErrorDetail, r.Status, r.Request)
		}
	}
	if len(res.resps) != len(allowed) {
		t.Errorf("%d responses for %d requests", len(res.resps), len(allowed))
	}
}

// TestAllowPrivate: --allow-private lets any request reach internal
// addresses; a host --resolve maps to loopback is reached from its own
// pages, and refused from a public one (it used to be fetched).
func TestAllowPrivate(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	t.Cleanup(s.Close)
	port := s.URL[strings.LastIndexByte(s.URL, ':')+1:]
	link := `{"url":"` + s.URL + `/ok","depth":1,"referer":"` + publicPage + `"}` + "\n"
	if r := runCfetch(t, link, append([]string{"--allow-private"}, fast...)...).one(t); r.Status != 200 {
		t.Errorf("--allow-private: error %q (%s) status %d", r.Error, r.ErrorDetail, r.Status)
	}
	// A host --resolve maps to loopback is reached from its own pages,
	// never from a public one (docs/cfetch.md, Internal addresses).
	resolve := append([]string{"--resolve", "shop.test:" + port + ":127.0.0.1"}, fast...)
	mapped := `{"url":"http://shop.test:` + port + `/ok","depth":1,"referer":"http://shop.test:` + port + `/"}` + "\n"
	if r := runCfetch(t, mapped, resolve...).one(t); r.Status != 200 {
		t.Errorf("--resolve, linked from its own page: error %q (%s) status %d", r.Error, r.ErrorDetail, r.Status)
	}
	fromPublic := `{"url":"http://shop.test:` + port + `/ok","depth":1,"referer":"` + publicPage + `"}` + "\n"
	if r := runCfetch(t, fromPublic, resolve...).one(t); r.Error != ErrPrivateAddress {
		t.Errorf("--resolve, linked from a public page: error %q (%s) status %d, want %s", r.Error, r.ErrorDetail, r.Status, ErrPrivateAddress)
	}
}

// TestRedirectsIntoInternalAddressesAreRefused: a redirect (or a meta
// refresh) from a public URL to an internal one is refused; the fault
// server, used as the proxy, plays the public site (the proxy's own
// address is the user's choice and is not checked).
func TestRedirectsIntoInternalAddressesAreRefused(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	t.Cleanup(s.Close)
	target := s.URL + "/ok"
	in := "http://public.example/redirect-to/302?to=" + target + "\nhttp://public.example/ok\n"
	res := runCfetch(t, in, append([]string{"--proxy", s.URL, "--no-robots"}, fast...)...)
	if len(res.resps) != 2 {
		t.Fatalf("%d responses:\n%s", len(res.resps), strings.Join(res.lines, "\n"))
	}
	for _, r := range res.resps {
		switch {
		case strings.HasSuffix(r.URL, "public.example/ok"):
			if r.Status != 200 {
				t.Errorf("through the proxy: error %q (%s) status %d", r.Error, r.ErrorDetail, r.Status)
			}
		default:
			if r.Error != "private_address" || r.URL != target || len(r.Redirects) != 1 || r.Redirects[0].Status != 302 {
				t.Errorf("redirect into 127.0.0.1: url %s error %q (%s) redirects %v", r.URL, r.Error, r.ErrorDetail, r.Redirects)
			}
		}
	}
	if n := s.hits("127.0.0.1 /ok"); n != 0 {
		t.Errorf("the redirect was followed: %d requests to 127.0.0.1", n)
	}
}

// TestRobotsRedirectIntoInternalAddressIsNotFollowed: the robots.txt of a
// public host cannot send cfetch into an internal address either; the
// redirect is not followed (a robots.txt that cannot be had: allow all).
func TestRobotsRedirectIntoInternalAddressIsNotFollowed(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	t.Cleanup(s.Close)
	s.setRobots("public.example", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.URL+"/robots.txt", http.StatusMovedPermanently)
	})
	s.setRobots("127.0.0.1", robotsText("User-agent: *\nDisallow: /\n"))
	r := runCfetch(t, "http://public.example/ok\n", append([]string{"--proxy", s.URL}, fast...)...).one(t)
	if r.Status != 200 {
		t.Errorf("error %q (%s) status %d, want 200", r.Error, r.ErrorDetail, r.Status)
	}
	if n := s.hits("127.0.0.1 /robots.txt"); n != 0 {
		t.Errorf("the robots.txt redirect was followed into 127.0.0.1")
	}
}

// TestDialerRefusesInternalAddresses: the check is made on the addresses
// a name resolves to, when connecting, so that a name that answers with a
// public address first and an internal one later (DNS rebinding) is
// refused too.
func TestDialerRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	o := DefaultOptions()
	d := newDialer(&o)
	d.dns.resolve = func(_ context.Context, host string) ([]string, error) {
		if host == "rebind.test" {
			return []string{"127.0.0.1"}, nil
		}
		return nil, errors.New("no such host")
	}
	c, err := d.DialContext(t.Context(), "tcp", "rebind.test:"+port)
	if err == nil {
		c.Close()
		t.Fatal("connected to 127.0.0.1 for rebind.test")
	}
	if fe := classify(err, phaseHeaders); fe.Code != "private_address" || !strings.Contains(fe.Detail, "127.0.0.1") {
		t.Errorf("classify(%v) = %v", err, fe)
	}

	// Without the DNS cache, the system resolver's answer is checked as
	// the socket connects.
	o.DNSCacheSize = 0
	d = newDialer(&o)
	for _, addr := range []string{"localhost:" + port, "127.0.0.1:" + port} {
		c, err := d.DialContext(t.Context(), "tcp", addr)
		if err == nil {
			c.Close()
			t.Errorf("%s: connected", addr)
			continue
		}
		if fe := classify(err, phaseHeaders); fe.Code != "private_address" {
			t.Errorf("%s: classify(%v) = %v", addr, err, fe)
		}
	}
}

// totalHits is the number of requests the server has answered.
func (s *faultServer) totalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for key, c := range s.calls {
		if strings.Contains(key, " /") {
			n += c
		}
	}
	return n
}

func TestInternalKind(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1":              "loopback",
		"127.255.0.9":            "loopback",
		"::1":                    "loopback",
		"::ffff:127.0.0.1":       "loopback",
		"10.1.2.3":               "private",
		"172.16.0.1":             "private",
		"172.31.255.255":         "private",
		"192.168.1.1":            "private",
		"::ffff:192.168.1.1":     "private",
		"fd00::1":                "unique-local",
		"fc00::1":                "unique-local",
		"169.254.169.254":        "link-local",
		"::ffff:169.254.169.254": "link-local",
		"fe80::1":                "link-local",
		"fe80::1%eth0":           "link-local",
		"100.64.0.1":             "shared (CGNAT)",
		"100.127.255.254":        "shared (CGNAT)",
		"0.0.0.0":                "unspecified",
		"::":                     "unspecified",
		"0.1.2.3":                "this-network",
		"224.0.0.1":              "multicast",
		"ff02::1":                "multicast",
		"ff01::1":                "multicast",
		"255.255.255.255":        "broadcast",
		"fec0::1":                "site-local",
		"::a9fe:a9fe":            "IPv4-compatible",
		"64:ff9b::a9fe:a9fe":     "link-local (in IPv6)",
		"64:ff9b::808:808":       "",
		"2002:7f00:1::":          "loopback (in IPv6)",
		"2002:808:808::":         "",
		"8.8.8.8":                "",
		"100.128.0.1":            "",
		"172.32.0.1":             "",
		"2606:4700::1111":        "",
		"::ffff:8.8.8.8":         "",
	} {
		if got := internalKind(netip.MustParseAddr(addr)); got != want {
			t.Errorf("internalKind(%s) = %q, want %q", addr, got, want)
		}
	}
}

// TestAddressPolicy: which hops may go to internal addresses, from the
// records alone.
func TestAddressPolicy(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	key, addrs, _ := parseResolve("shop.test:80:127.0.0.1")
	pubKey, pubAddrs, _ := parseResolve("cdn.test:80:8.8.8.8")
	o.Resolve = map[string][]string{key: addrs, pubKey: pubAddrs}
	p := newAddressPolicy(&o)
	req := func(depth int, referer string, redirects ...string) *record.Request {
		r := &record.Request{Depth: depth, Referer: referer}
		for _, u := range redirects {
			r.Redirects = append(r.Redirects, record.Redirect{URL: u, Status: 302})
		}
		return r
	}
	for _, tt := range []struct {
		name       string
		req        *record.Request
		url        string
		internalOK bool
		refused    bool
	}{
		{"public name", req(3, "http://a.example/"), "http://b.example/", false, false},
		{"public literal", req(3, "http://a.example/"), "http://8.8.8.8/", false, false},
		{"seed on loopback", req(0, ""), "http://127.0.0.1:8080/", true, false},
		{"seed on localhost", req(0, ""), "http://LOCALHOST./", true, false},
		{"seed with a referer", req(0, "http://a.example/"), "http://[::1]/", true, false},
		{"no referer", req(2, ""), "http://10.0.0.1/", true, false},
		{"link from a public page", req(1, "http://a.example/"), "http://10.0.0.1/", false, true},
		{"link from a public page to localhost", req(1, "http://a.example/"), "http://app.localhost/", false, true},
		{"link from a loopback page", req(1, "http://127.0.0.1:8080/"), "http://10.0.0.1/", true, false},
		{"link from a --resolve host", req(1, "http://shop.test/"), "http://127.0.0.1/", true, false},
		{"link from a public page to a host --resolve maps to loopback", req(1, "http://a.example/"), "http://shop.test/", false, true},
		{"link between hosts --resolve maps to loopback", req(1, "http://shop.test/a"), "http://shop.test/b", true, false},
		{"seed on a --resolve host", req(0, ""), "http://shop.test/", true, false},
		{"link from a host --resolve maps to a public address", req(1, "http://cdn.test/"), "http://127.0.0.1/", false, true},
		{"link from an unparsable referer", req(1, "http://[x"), "http://127.0.0.1/", false, true},
		{"handed back from a public URL", req(0, "", "http://a.example/r"), "http://127.0.0.1/", false, true},
		{"handed back from loopback", req(0, "", "http://a.example/r", "http://127.0.0.1/r"), "http://127.0.0.1/", true, false},
	} {
		u, _ := url.Parse(tt.url)
		ok, fe := p.request(tt.req, u)
		if ok != tt.internalOK || (fe != nil) != tt.refused {
			t.Errorf("%s: request(%s) = %v, %v; want %v, refused %v", tt.name, tt.url, ok, fe, tt.internalOK, tt.refused)
		}
		if fe != nil && (fe.Code != ErrPrivateAddress || !strings.Contains(fe.Detail, "--allow-private")) {
			t.Errorf("%s: %v", tt.name, fe)
		}
	}
	for _, tt := range []struct {
		from, to   string
		internalOK bool
		refused    bool
	}{
		{"http://a.example/", "http://b.example/", false, false},
		{"http://a.example/", "http://127.0.0.1/", false, true},
		{"http://a.example/", "http://[::ffff:a9fe:a9fe]/", false, true},
		{"http://127.0.0.1/", "http://127.0.0.1/x", true, false},
		{"http://127.0.0.1/", "http://a.example/", false, false},
		{"http://a.example/", "http://shop.test/", false, true},
		{"http://shop.test/", "http://shop.test/x", true, false},
	} {
		from, _ := url.Parse(tt.from)
		to, _ := url.Parse(tt.to)
		ok, fe := p.hop(from, to)
		if ok != tt.internalOK || (fe != nil) != tt.refused {
			t.Errorf("hop(%s, %s) = %v, %v; want %v, refused %v", tt.from, tt.to, ok, fe, tt.internalOK, tt.refused)
		}
	}
	o.AllowPrivate = true
	all := newAddressPolicy(&o)
	u, _ := url.Parse("http://127.0.0.1/")
	if ok, fe := all.request(req(1, "http://a.example/"), u); !ok || fe != nil {
		t.Errorf("--allow-private: %v, %v", ok, fe)
	}
}

// TestDialerConnectsWhereThePolicySays: an exchange that may reach
// internal addresses, and the connection to a proxy, are not checked.
func TestDialerConnectsWhereThePolicySays(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := l.Addr().String()
	o := DefaultOptions()
	d := newDialer(&o)
	for name, pol := range map[string]dialPolicy{
		"internal allowed": {internalOK: true},
		"the proxy":        {proxy: addr},
	} {
		c, err := d.DialContext(withDialPolicy(t.Context(), pol), "tcp", addr)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		c.Close()
	}
	if c, err := d.DialContext(withDialPolicy(t.Context(), dialPolicy{proxy: "127.0.0.1:1"}), "tcp", addr); err == nil {
		c.Close()
		t.Error("connected to an address that is not the proxy's")
	}
	o.AllowPrivate = true
	if c, err := newDialer(&o).DialContext(t.Context(), "tcp", addr); err != nil {
		t.Errorf("--allow-private: %v", err)
	} else {
		c.Close()
	}
}

func TestProxyAddr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://proxy.test":         "proxy.test:80",
		"https://proxy.test":        "proxy.test:443",
		"socks5://u:p@proxy.test":   "proxy.test:1080",
		"http://[::1]:3128":         "[::1]:3128",
		"http://127.0.0.1:8080/x?y": "127.0.0.1:8080",
	} {
		u, _ := url.Parse(in)
		if got := proxyAddr(u); got != want {
			t.Errorf("proxyAddr(%s) = %q, want %q", in, got, want)
		}
	}
}
