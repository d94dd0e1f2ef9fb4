package cfetch

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseResolve(t *testing.T) {
	tests := []struct {
		in, key string
		addrs   []string
		err     string
	}{
		{"shop.test:80:127.0.0.1", "shop.test\x0080", []string{"127.0.0.1"}, ""},
		{"Shop.Test:8443:127.0.0.1,127.0.0.2", "shop.test\x008443", []string{"127.0.0.1", "127.0.0.2"}, ""},
		{"*:80:127.0.0.1", "*\x0080", []string{"127.0.0.1"}, ""},
		{"v6.test:80:[::1]", "v6.test\x0080", []string{"::1"}, ""},
		{"v6.test:80:::1", "v6.test\x0080", []string{"::1"}, ""},
		{"[::1]:443:127.0.0.1", "::1\x00443", []string{"127.0.0.1"}, ""},
		{"shop.test:80", "", nil, "no address"},
		{"shop.test", "", nil, "no port"},
		{"shop.test:http:127.0.0.1", "", nil, "invalid port"},
		{"shop.test:0:127.0.0.1", "", nil, "invalid port"},
		{"shop.test:080:127.0.0.1", "", nil, "invalid port"},
		{"shop.test:80:localhost", "", nil, `invalid address "localhost"`},
		{"shop.test:80:", "", nil, `invalid address ""`},
		{"sh op.test:80:127.0.0.1", "", nil, "invalid host"},
		{"[::1:443:127.0.0.1", "", nil, "missing ']'"},
		{"shop.test:80:fe80::1%eth0", "", nil, "invalid address"},
	}
	for _, tt := range tests {
		key, addrs, err := parseResolve(tt.in)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseResolve(%q) = %q %v %v, want error %q", tt.in, key, addrs, err, tt.err)
			}
		case err != nil || key != tt.key || strings.Join(addrs, " ") != strings.Join(tt.addrs, " "):
			t.Errorf("parseResolve(%q) = %q %v %v, want %q %v", tt.in, key, addrs, err, tt.key, tt.addrs)
		}
	}
}

// FuzzParseResolve: a value is refused, or gives a key and addresses that
// are all IP addresses.
func FuzzParseResolve(f *testing.F) {
	for _, s := range []string{"shop.test:80:127.0.0.1", "*:443:[::1],10.0.0.1", "[::1]:1:::1", "a:65536:1.1.1.1", "::::", "a:1:1.1.1.1,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		key, addrs, err := parseResolve(s)
		if err != nil {
			if key != "" || addrs != nil {
				t.Fatalf("error with results: %q %v", key, addrs)
			}
			return
		}
		if len(addrs) == 0 || !strings.Contains(key, "\x00") {
			t.Fatalf("parseResolve(%q) = %q %v", s, key, addrs)
		}
		for _, a := range addrs {
			if _, err := parseIP(a); err != nil {
				t.Fatalf("parseResolve(%q) gave address %q", s, a)
			}
		}
	})
}

func TestDialerUsesResolve(t *testing.T) {
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
	key, addrs, _ := parseResolve("*:" + port + ":127.0.0.1")
	o.Resolve = map[string][]string{key: addrs}
	d := newDialer(&o)
	d.dns.resolve = func(context.Context, string) ([]string, error) {
		t.Error("the DNS was asked for a host --resolve names")
		return nil, errors.New("no")
	}
	c, err := d.DialContext(t.Context(), "tcp", "anything.test:"+port)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := d.DialContext(t.Context(), "tcp", "127.0.0.1:"+port); err != nil {
		t.Fatal(err)
	}
}

func TestDNSCache(t *testing.T) {
	c := newDNSCache(2, time.Minute, time.Second)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	var calls atomic.Int64
	asked := make(chan struct{}, 16)
	release := make(chan struct{})
	c.resolve = func(_ context.Context, host string) ([]string, error) {
		calls.Add(1)
		asked <- struct{}{}
		<-release
		if host == "nx.test" {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return []string{"127.0.0.1"}, nil
	}
	// Ten lookups at once share one query.
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if a, err := c.lookup(t.Context(), "A.test"); err != nil || a[0] != "127.0.0.1" {
				t.Errorf("lookup = %v %v", a, err)
			}
		})
	}
	<-asked // the first query is out: the others join it or find its answer
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("%d queries for 10 concurrent lookups", n)
	}
	c.lookup(t.Context(), "a.test")
	if n := calls.Load(); n != 1 {
		t.Errorf("cached name asked again (%d queries)", n)
	}
	// Expired: asked again. Failures are not cached.
	now = now.Add(time.Minute)
	c.lookup(t.Context(), "a.test")
	if _, err := c.lookup(t.Context(), "nx.test"); err == nil {
		t.Error("nx.test resolved")
	}
	c.lookup(t.Context(), "nx.test")
	if n := calls.Load(); n != 4 {
		t.Errorf("%d queries, want 4", n)
	}
	// Bounded: the least recently used name goes.
	c.lookup(t.Context(), "b.test")
	c.lookup(t.Context(), "c.test")
	if c.len() != 2 {
		t.Errorf("%d names cached, want 2", c.len())
	}
	var dnsErr *net.DNSError
	_, err := c.lookup(t.Context(), "nx.test")
	if !errors.As(err, &dnsErr) || classify(err, phaseHeaders).Code != ErrDNS {
		t.Errorf("error %v is not a DNS error", err)
	}
}
