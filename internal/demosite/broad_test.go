package demosite

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveBroad answers one request for host i's path in process.
func serveBroad(t *testing.T, b *Broad, host, path string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "http://"+host+":8080"+path, nil)
	w := httptest.NewRecorder()
	b.ServeHTTP(w, r)
	return w
}

func TestBroadClasses(t *testing.T) {
	counts := map[BroadClass]int{}
	for i := 1; i <= 300; i++ {
		c := BroadClassOf(i)
		counts[c]++
		lat := BroadLatency(i)
		if (c == BroadSlow) != (lat > 0) || lat != 0 && (lat < 200*time.Millisecond || lat > 400*time.Millisecond) {
			t.Errorf("host %d (%s): latency %s", i, c, lat)
		}
	}
	want := map[BroadClass]int{BroadDelayed: 9, BroadDead: 6, BroadRobots5xx: 6, BroadSlow: 15, BroadNormal: 264}
	for c, n := range want {
		if counts[c] != n {
			t.Errorf("%s: %d hosts of 300, want %d", c, counts[c], n)
		}
	}
}

func TestBroadGroundTruth(t *testing.T) {
	b := NewBroad(BroadOptions{Hosts: 300, Pages: 40})
	tests := []struct {
		host, want int
	}{{1, 42}, {7, 42}, {33, 42}, {13, 1}, {29, 1}}
	for _, tt := range tests {
		if got := b.PerfectRequests(tt.host); got != tt.want {
			t.Errorf("PerfectRequests(%d) = %d, want %d", tt.host, got, tt.want)
		}
	}
	// The delayed hosts bind: 41 requests after robots.txt, 1 s apart.
	if got := b.IdealTime(); got != 41*time.Second {
		t.Errorf("IdealTime = %s, want 41s", got)
	}
	// Without a delayed host (hosts 1-30), the slowest slow host binds.
	small := NewBroad(BroadOptions{Hosts: 30, Pages: 40})
	var slowest time.Duration
	for i := 1; i <= 30; i++ {
		slowest = max(slowest, BroadLatency(i))
	}
	if got := small.IdealTime(); got != 22*slowest {
		t.Errorf("IdealTime of 30 hosts = %s, want 22 × %s", got, slowest)
	}
	if st := b.Stats(); st.Expected != 288*42+12 || st.Missing != st.Expected || st.IdealS != 41 {
		t.Errorf("stats of an uncrawled site: %+v", st)
	}
}

func TestBroadPages(t *testing.T) {
	b := NewBroad(BroadOptions{Hosts: 50, Pages: 5})
	tests := []struct {
		host, path string
		status     int
		has        []string
	}{
		{"h001.shop.test", "/robots.txt", 200, []string{"User-agent: *\nAllow: /\n"}},
		{"h033.shop.test", "/robots.txt", 200, []string{"Crawl-delay: 1\n"}},
		{"h029.shop.test", "/robots.txt", 500, nil},
		{"h001.shop.test", "/", 200, []string{`href="page/1.html"`, `href="page/5.html"`}},
		{"H002.Shop.Test", "/page/1.html", 200, []string{"<h1>Item 1 of shop 2</h1>", `href="2.html"`, `href="http://h0`}},
		{"h002.shop.test", "/page/5.html", 200, []string{`href="4.html"`}},
		{"h002.shop.test", "/page/6.html", 404, nil},
		{"h002.shop.test", "/page/01.html", 404, nil},
		{"h051.shop.test", "/", 421, nil},
		{"h1.shop.test", "/", 421, nil},
		{"127.0.0.1", "/", 421, nil},
	}
	for _, tt := range tests {
		w := serveBroad(t, b, tt.host, tt.path)
		if w.Code != tt.status {
			t.Errorf("%s%s: status %d, want %d", tt.host, tt.path, w.Code, tt.status)
		}
		for _, s := range tt.has {
			if !strings.Contains(w.Body.String(), s) {
				t.Errorf("%s%s: no %q in\n%s", tt.host, tt.path, s, w.Body)
			}
		}
	}
	// Cross-host links go to other hosts of the site, with the port (the
	// slow and dead hosts are left out: they would only make it slow).
	link := regexp.MustCompile(`href="http://(h\d{3}\.shop\.test):8080/page/(\d+)\.html"`)
	for i := 1; i <= 50; i++ {
		if c := BroadClassOf(i); c == BroadDead || c == BroadSlow {
			continue
		}
		for n := 1; n <= 5; n++ {
			w := serveBroad(t, b, b.HostName(i), "/page/"+string(rune('0'+n))+".html")
			m := link.FindAllStringSubmatch(w.Body.String(), -1)
			if len(m) != 2 {
				t.Fatalf("host %d page %d: %d cross-host links", i, n, len(m))
			}
			for _, l := range m {
				if l[1] == b.HostName(i) || b.hostIndex(l[1]) == 0 {
					t.Errorf("host %d page %d links %s", i, n, l[0])
				}
			}
		}
	}
}

func TestBroadDeadHostResets(t *testing.T) {
	b := NewBroad(BroadOptions{Hosts: 20})
	defer func() {
		if r := recover(); r != http.ErrAbortHandler {
			t.Errorf("a dead host answered (recovered %v), want the connection aborted", r)
		}
		if st := b.Stats(); st.Requests != 1 || st.Excess != 0 {
			t.Errorf("stats after one request to a dead host: %+v", st)
		}
	}()
	serveBroad(t, b, "h013.shop.test", "/robots.txt")
}

// TestBroadViolations: a request to a delayed host less than its
// Crawl-delay after the one before counts, as does one arriving while
// PerHost requests of its host are being answered.
func TestBroadViolations(t *testing.T) {
	clock := newFakeClock()
	b := NewBroad(BroadOptions{Hosts: 40, Pages: 3})
	b.now = clock.Now
	serveBroad(t, b, "h033.shop.test", "/robots.txt")
	clock.Advance(time.Second)
	serveBroad(t, b, "h033.shop.test", "/")
	clock.Advance(999 * time.Millisecond) // early
	serveBroad(t, b, "h033.shop.test", "/page/1.html")
	clock.Advance(time.Second)
	serveBroad(t, b, "h033.shop.test", "/page/1.html") // a duplicate
	// Handled after the one above, arrived 10 ms before it: early.
	b.arrive(33, "/page/2.html", clock.Now().Add(-10*time.Millisecond))()
	// Host 1 has no delay: quick requests are fine, three at once are not.
	serveBroad(t, b, "h001.shop.test", "/")
	d1 := b.arrive(1, "/page/1.html", clock.Now())
	d2 := b.arrive(1, "/page/2.html", clock.Now())
	d3 := b.arrive(1, "/page/3.html", clock.Now())
	d1()
	d4 := b.arrive(1, "/page/3.html", clock.Now())
	d2()
	d3()
	d4()
	st := b.Stats()
	want := BroadStats{Requests: 10, EarlyRequests: 2, Crowded: 2, Violations: 4, Duplicates: 2, MaxPerHost: 3, MinDelayGapMS: 10}
	if st.Requests != want.Requests || st.EarlyRequests != want.EarlyRequests || st.Crowded != want.Crowded ||
		st.Violations != want.Violations || st.Duplicates != want.Duplicates || st.MaxPerHost != want.MaxPerHost || st.MinDelayGapMS != want.MinDelayGapMS {
		t.Errorf("stats %+v\nwant %+v", st, want)
	}
	if st.DelayedDoneMaxS != 2.999 || st.FastDoneMaxS != 2.999 {
		t.Errorf("done times: delayed %v, fast %v; want 2.999 both", st.DelayedDoneMaxS, st.FastDoneMaxS)
	}
	b.Reset()
	if st := b.Stats(); st.Requests != 0 || st.Violations != 0 {
		t.Errorf("after Reset: %+v", st)
	}
}

func TestBroadSeeds(t *testing.T) {
	b := NewBroad(BroadOptions{Hosts: 3})
	got := strings.Join(b.Seeds("http://127.0.0.1:4321"), " ")
	if want := "http://h001.shop.test:4321/ http://h002.shop.test:4321/ http://h003.shop.test:4321/"; got != want {
		t.Errorf("Seeds = %s, want %s", got, want)
	}
}

// FuzzBroadHostIndex: a Host header names host i only as HostName(i),
// in any case, with or without a port; anything else is no host.
func FuzzBroadHostIndex(f *testing.F) {
	for _, s := range []string{"h001.shop.test", "H042.SHOP.TEST:8080", "h1.shop.test", "h000.shop.test", "h0010.shop.test", "h-01.shop.test", "h100.shop.test", "127.0.0.1:80", "[::1]:80", ""} {
		f.Add(s)
	}
	b := NewBroad(BroadOptions{Hosts: 99})
	f.Fuzz(func(t *testing.T, hostport string) {
		i := b.hostIndex(hostport)
		if i == 0 {
			return
		}
		if i < 1 || i > 99 {
			t.Fatalf("hostIndex(%q) = %d, out of range", hostport, i)
		}
		if name := b.HostName(i); !strings.HasPrefix(strings.ToLower(hostport), name) {
			t.Errorf("hostIndex(%q) = %d, whose name is %s", hostport, i, name)
		}
	})
}

func FuzzBroadPageOf(f *testing.F) {
	for _, s := range []string{"/page/1.html", "/page/20.html", "/page/21.html", "/page/0.html", "/page/+1.html", "/page/1.htm", "/"} {
		f.Add(s)
	}
	b := NewBroad(BroadOptions{Pages: 20})
	f.Fuzz(func(t *testing.T, path string) {
		n, ok := b.pageOf(path)
		if ok && (n < 1 || n > 20 || path != "/page/"+strconv.Itoa(n)+".html") {
			t.Errorf("pageOf(%q) = %d", path, n)
		}
	})
}
