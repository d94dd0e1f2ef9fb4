package cfetch

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// Host names are case-insensitive (RFC 3986 §6.2.2.1): a URL whose host is
// written in upper case, in a request or in a redirect's Location, is the
// same host as in lower case. cfetch writes it in lower case where it
// parses the URL (checkURL), so the record's url, the Host header, the
// per-host limits, robots.txt, the cookie jar and the address policy all
// see one host.

// TestCheckURLLowersHost: checkURL writes the scheme and the host in lower
// case and leaves the rest (user info, path, query, fragment, an IPv6
// zone) as written.
func TestCheckURLLowersHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://EXAMPLE.test:8080/x", "http://example.test:8080/x"},
		{"HTTP://Shop.Test/Products/A?Q=B#Top", "http://shop.test/Products/A?Q=B#Top"},
		{"HtTpS://WWW.Example.COM", "https://www.example.com"},
		{"http://User:PassWord@Shop.Test/", "http://User:PassWord@shop.test/"},
		{"http://[::FFFF:7F00:1]:8080/", "http://[::ffff:7f00:1]:8080/"},
		{"http://[FE80::1%25EN0]/", "http://[fe80::1%25EN0]/"}, // a zone names an interface: as written
		{"http://BÜCHER.test/", "http://xn--bcher-kva.test/"},
		{"http://shop.test/already", "http://shop.test/already"},
	}
	for _, tt := range tests {
		u, fe := checkURL(tt.in)
		if fe != nil {
			t.Errorf("checkURL(%q): %v", tt.in, fe)
			continue
		}
		if got := u.String(); got != tt.want {
			t.Errorf("checkURL(%q) = %s, want %s", tt.in, got, tt.want)
		}
		w, _ := url.Parse(tt.want)
		if hostKey(u) != hostKey(w) {
			t.Errorf("checkURL(%q): host key %s, want %s", tt.in, hostKey(u), hostKey(w))
		}
	}
	// The address policy reads the host as checkURL writes it.
	u, _ := checkURL("http://LocalHost:8080/")
	if k := (addressPolicy{}).writtenInternal(u); k != "a loopback name" {
		t.Errorf("http://LocalHost:8080/ is %q, want a loopback name", k)
	}
}

// hostCaseServer is a loopback site whose pages count requests by host,
// case folded, as the site sees them: /r redirects to the upper-case
// host, /gate waits until the test opens it, /ok answers at once, /echo
// answers with the request's Host and headers.
type hostCaseServer struct {
	*httptest.Server
	port    string
	gate    chan struct{}
	entered chan string // a /gate request's URL, when it arrives
	ok      chan string // an /ok request's host, when it has been answered

	mu                   sync.Mutex
	active, most, robots map[string]int // by host, lower-cased
	hosts                []string       // the Host headers, as sent
}

func newHostCaseServer(t *testing.T) *hostCaseServer {
	s := &hostCaseServer{gate: make(chan struct{}), entered: make(chan string, 16), ok: make(chan string, 16),
		active: map[string]int{}, most: map[string]int{}, robots: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	s.port, _ = vhost(t, s.Server)
	return s
}

func (s *hostCaseServer) serve(w http.ResponseWriter, r *http.Request) {
	host, _, _ := strings.Cut(strings.ToLower(r.Host), ":")
	s.mu.Lock()
	s.hosts = append(s.hosts, r.Host)
	s.active[host]++
	s.most[host] = max(s.most[host], s.active[host])
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active[host]--
		s.mu.Unlock()
	}()
	switch r.URL.Path {
	case "/robots.txt":
		s.mu.Lock()
		s.robots[host]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
	case "/r":
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s1"})
		w.Header().Set("Location", "HTTP://SHOP.TEST:"+s.port+r.URL.Query().Get("to"))
		w.WriteHeader(http.StatusMovedPermanently)
	case "/gate":
		s.entered <- r.URL.String()
		<-s.gate
		fmt.Fprint(w, "opened")
	case "/ok":
		fmt.Fprint(w, "ok")
		s.ok <- host
	case "/echo":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"host": r.Host,
			"authorization": r.Header.Get("Authorization"), "cookie": r.Header.Get("Cookie")})
	}
}

// TestUpperCaseHostIsOneHost: a host written in upper case, in a request
// or in a redirect's Location, is the host written in lower case: at
// --per-host 1 the site never has two requests in flight, robots.txt is
// fetched once, and the records and the Host headers name it in lower
// case.
//
// How the test knows, without waiting for time to pass: at --concurrency
// 2, one request to shop.test holds the first slot (/gate), and the other
// request to the host (or the redirect's hop to SHOP.TEST) is read before
// a request to other.test, the witness. Were SHOP.TEST a host of its own,
// it would take the second slot first (the older request goes first), and
// hang on /gate too, so the witness could not be answered while the gate
// is shut. It is.
func TestUpperCaseHostIsOneHost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		input func(port string) []string // what follows the request that holds the gate
	}{
		{"a request", func(port string) []string {
			return []string{"HTTP://SHOP.TEST:" + port + "/gate?2"}
		}},
		{"a redirect", func(port string) []string {
			return []string{"http://other.test:" + port + "/r?to=/gate%3F2"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newHostCaseServer(t)
			_, resolve := vhost(t, s.Server)
			in := append([]string{"http://shop.test:" + s.port + "/gate?1"}, tc.input(s.port)...)
			in = append(in, "http://other.test:"+s.port+"/ok")
			done := make(chan result, 1)
			go func() {
				done <- runCfetch(t, strings.Join(in, "\n")+"\n", append([]string{"--concurrency", "2", "--per-host", "1"}, resolve...)...)
			}()
			if u := waitFor(t, s.entered, "the first request to shop.test"); u != "/gate?1" {
				t.Errorf("the first request in was %s, want /gate?1", u)
			}
			waitFor(t, s.ok, "other.test's page while shop.test's first request is in flight")
			close(s.gate)
			res := waitFor(t, done, "the end of the run")
			if res.code != 0 || len(res.resps) != len(in) {
				t.Fatalf("exit %d, %d responses for %d requests\n%s\n%s", res.code, len(res.resps), len(in), strings.Join(res.lines, "\n"), res.stderr)
			}
			for _, r := range res.resps {
				if r.Status != 200 || r.Error != "" {
					t.Errorf("%s: status %d, error %s %s", r.URL, r.Status, r.Error, r.ErrorDetail)
				}
				if u, err := url.Parse(r.URL); err != nil || u.Host != strings.ToLower(u.Host) {
					t.Errorf("the record's url is %s, want its host in lower case", r.URL)
				}
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if m := s.most["shop.test"]; m != 1 {
				t.Errorf("shop.test had %d requests in flight at once, --per-host 1", m)
			}
			if n := s.robots["shop.test"]; n != 1 {
				t.Errorf("shop.test's robots.txt was fetched %d times, want once", n)
			}
			for _, h := range s.hosts {
				if h != strings.ToLower(h) {
					t.Errorf("a request was sent with Host: %s, want it in lower case", h)
				}
			}
		})
	}
}

// TestRedirectToTheHostInUpperCase: a redirect to the same host written in
// upper case stays on the host: the request's credentials and Host header
// go on with it, the jar's cookies too, and the record (or, in a crawl loop,
// the next hop handed back) names the host in lower case.
func TestRedirectToTheHostInUpperCase(t *testing.T) {
	t.Parallel()
	s := newHostCaseServer(t)
	_, resolve := vhost(t, s.Server)
	in := fmt.Sprintf(`{"url":"http://shop.test:%[1]s/r?to=/echo","headers":{"Authorization":"Basic dTpw","Host":"shop.test:%[1]s"}}
{"url":"http://shop.test:%[1]s/r?to=/echo%%3Fleased","lease":"L1","headers":{"Authorization":"Basic dTpw"}}
`, s.port)
	res := runCfetch(t, in, resolve...)
	if len(res.resps) != 2 {
		t.Fatalf("%d responses\n%s", len(res.resps), res.stderr)
	}
	followed, handedBack := res.resps[0], res.resps[1]
	if followed.RedirectRequest != nil {
		followed, handedBack = handedBack, followed
	}
	want := "http://shop.test:" + s.port + "/echo"
	if followed.Status != 200 {
		t.Fatalf("status %d: %s %s", followed.Status, followed.Error, followed.ErrorDetail)
	}
	if followed.URL != want {
		t.Errorf("the record's url is %s, want %s", followed.URL, want)
	}
	var echo map[string]string
	if err := json.Unmarshal([]byte(followed.Body), &echo); err != nil {
		t.Fatal(err)
	}
	if echo["authorization"] != "Basic dTpw" || echo["cookie"] != "session=s1" || echo["host"] != "shop.test:"+s.port {
		t.Errorf("after the redirect the site saw %v, want the request's Authorization and Host and the jar's cookie", echo)
	}
	var next struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(handedBack.RedirectRequest, &next); err != nil {
		t.Fatalf("redirect_request: %v: %s", err, handedBack.RedirectRequest)
	}
	if next.URL != want+"?leased" || next.Headers["Authorization"] != "Basic dTpw" {
		t.Errorf("the hop handed back is %s with headers %v, want %s?leased with the Authorization", next.URL, next.Headers, want)
	}
}

// TestHandedBackChainReadsHostsInLowerCase: the hops a request's
// "redirects" lists count for redirect_loop with their hosts in lower
// case, as the hops cfetch follows itself.
func TestHandedBackChainReadsHostsInLowerCase(t *testing.T) {
	u, _ := checkURL("http://shop.test/b")
	j := &job{req: record.Request{URL: u.String(), Redirects: []record.Redirect{{URL: "HTTP://SHOP.TEST/a", Status: 301}}}}
	j.setURL(u)
	j.seedChain()
	back, _ := checkURL("http://Shop.Test/a")
	if !slices.Contains(j.visited, chainKey(back)) {
		t.Errorf("visited %q, want it to hold %s", j.visited, chainKey(back))
	}
}
