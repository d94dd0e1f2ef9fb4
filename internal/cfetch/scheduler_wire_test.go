package cfetch

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/robots"
)

// arrivals is a loopback site that records when each request for a page
// (not robots.txt) arrives, and asks for a Crawl-delay.
type arrivals struct {
	mu    sync.Mutex
	times []time.Time
}

// checkGaps fails t when two page requests reached the site less than
// 450 ms apart: the Crawl-delay of 500 ms, less 50 ms for the site itself
// running late on a loaded machine.
func (a *arrivals) checkGaps(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	times := slices.Clone(a.times)
	a.mu.Unlock()
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 450*time.Millisecond {
			t.Errorf("requests %d and %d reached the site %s apart; Crawl-delay is 500ms", i-1, i, gap)
		}
	}
}

func (a *arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	if r.URL.Path == "/robots.txt" {
		io.WriteString(w, "User-agent: *\nCrawl-delay: 0.5\n")
		return
	}
	a.mu.Lock()
	a.times = append(a.times, now)
	a.mu.Unlock()
	io.WriteString(w, "<p>ok</p>")
}

// TestCrawlDelayAtTheWire: the Crawl-delay holds between requests as
// they reach the site, not only between the scheduler's decisions. On a
// loaded machine a worker may run late: here every other page request
// is held 300 ms between the decision to start it and its sending (as a
// worker descheduled that long would be). The next request must still
// reach the site a whole Crawl-delay after it; before cfetch counted the
// delay from the send, it came 200 ms after. Arrival times are read by
// the site, so the bound allows 50 ms for the site itself running late.
func TestCrawlDelayAtTheWire(t *testing.T) {
	t.Parallel()
	site := &arrivals{}
	srv := httptest.NewServer(site)
	defer srv.Close()
	var in strings.Builder
	for i := range 4 {
		fmt.Fprintf(&in, "%s/page/%d\n", srv.URL, i)
	}
	var lagged int
	out := fetchAll(t, in.String(), func(j *job) {
		if j.robotsFor == "" {
			if lagged%2 == 0 {
				time.Sleep(300 * time.Millisecond)
			}
			lagged++
		}
	})
	if got := strings.Count(out, `"status":200`); got != 4 {
		t.Fatalf("%d pages answered 200, want 4:\n%s", got, out)
	}
	site.checkGaps(t)
}

// TestSchedulerWaitsForTheSend: on a host with a delay, the next start
// waits for the previous request's send and comes the delay after it; an
// exchange that ends unsent releases the host; a host without a delay
// is not held.
func TestSchedulerWaitsForTheSend(t *testing.T) {
	const delay = time.Second
	for _, tt := range []struct {
		name     string
		delay    time.Duration
		sendLag  time.Duration // from the start to the send; <0: never sent
		wantNext time.Duration // the second start, after the first
	}{
		{"sent at once", delay, 0, delay},
		{"sent late", delay, 300 * time.Millisecond, delay + 300*time.Millisecond},
		{"never sent (a failed dial)", delay, -1, delay},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.RobotsObey, o.Delay, o.RandomDelay = false, tt.delay, false
			m := newSim(t, &o)
			m.add(urls("a.test", 2)...)
			first := m.s.next(m.now)
			if first == nil {
				t.Fatal("nothing started")
			}
			t0 := m.now
			if m.s.next(m.now.Add(time.Hour)) != nil {
				t.Fatal("a second request started before the first was sent")
			}
			if tt.sendLag >= 0 {
				m.now = m.now.Add(tt.sendLag)
				m.s.sent(first, first.thisStart, m.now)
			} else {
				m.now = m.now.Add(50 * time.Millisecond)
				m.s.finish(&finish{kind: finDone, j: first, key: first.key, failed: true}, m.now)
			}
			m.s.sent(first, first.thisStart, m.now.Add(time.Hour)) // a repeated report changes nothing
			at := m.s.wake(m.now)
			if at.IsZero() {
				at = m.now
			}
			if got := at.Sub(t0); got != tt.wantNext {
				t.Errorf("next start %s after the first, want %s", got, tt.wantNext)
			}
			if j := m.s.next(at); j == nil {
				t.Errorf("nothing starts at %s", at.Sub(t0))
			}
		})
	}
	t.Run("no delay", func(t *testing.T) {
		o := DefaultOptions()
		o.RobotsObey = false
		m := newSim(t, &o)
		m.add(urls("a.test", 2)...)
		first, second := m.s.next(m.now), m.s.next(m.now)
		if first == nil || second == nil {
			t.Error("a host without a delay waits for a send")
		}
	})
}

// TestRobotsSendStartsTheDelay: the first page after robots.txt waits the
// Crawl-delay from robots.txt's send, not from the decision to fetch it.
func TestRobotsSendStartsTheDelay(t *testing.T) {
	o := DefaultOptions()
	o.RandomDelay = false
	m := newSim(t, &o)
	m.add("http://a.test/1")
	robotsJob := m.s.next(m.now)
	if robotsJob == nil || robotsJob.robotsFor == "" {
		t.Fatalf("first job %+v, want robots.txt", robotsJob)
	}
	t0 := m.now
	m.now = m.now.Add(200 * time.Millisecond)
	m.s.sent(robotsJob, robotsJob.thisStart, m.now)
	m.now = m.now.Add(10 * time.Millisecond)
	entry := &robotsEntry{state: robotsParsed, rules: robots.Parse([]byte("User-agent: *\nCrawl-delay: 1\n"), "crawlutils"), expires: m.now.Add(time.Hour)}
	m.s.finish(&finish{kind: finRobots, j: robotsJob, key: robotsJob.robotsFor, status: 200, robots: robotsVerdict{entry: entry}}, m.now)
	if got := m.s.wake(m.now).Sub(t0); got != 1200*time.Millisecond {
		t.Errorf("the page may start %s after robots.txt's start, want 1.2s (its send, then the Crawl-delay)", got)
	}
}

// TestCrawlDelayCountsFromArrival: on a host with a Crawl-delay the next
// page waits the delay from the first byte of the previous answer (the
// moment the request is known to have arrived), or from the end of an
// exchange that got no answer; a cache hit spends nothing.
func TestCrawlDelayCountsFromArrival(t *testing.T) {
	for _, tt := range []struct {
		name      string
		firstByte time.Duration // after the page's start; <0: none came
		end       time.Duration // the exchange's end, after the start
		cached    bool
		wantNext  time.Duration // the next page's start, after the first's
	}{
		{"answer began 300ms after the start", 300 * time.Millisecond, 400 * time.Millisecond, false, 1300 * time.Millisecond},
		{"no answer: from the end", -1, 50 * time.Millisecond, false, 1050 * time.Millisecond},
		{"cache hit: the delay given back", -1, 0, true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.RandomDelay = false
			m := newSim(t, &o)
			m.add("http://a.test/1", "http://a.test/2")
			robotsJob := m.s.next(m.now)
			if robotsJob == nil || robotsJob.robotsFor == "" {
				t.Fatalf("first job %+v, want robots.txt", robotsJob)
			}
			m.s.sent(robotsJob, robotsJob.thisStart, m.now)
			entry := &robotsEntry{state: robotsParsed, rules: robots.Parse([]byte("User-agent: *\nCrawl-delay: 1\n"), "crawlutils"), expires: m.now.Add(time.Hour)}
			m.s.finish(&finish{kind: finRobots, j: robotsJob, key: robotsJob.robotsFor, status: 200, robots: robotsVerdict{entry: entry}}, m.now)
			m.now = m.s.wake(m.now)
			page := m.s.next(m.now)
			if page == nil || !page.atArrival {
				t.Fatalf("page job %+v: want one counted from its arrival", page)
			}
			t0 := m.now
			if tt.firstByte >= 0 {
				m.s.sent(page, page.thisStart, t0.Add(tt.firstByte))
			}
			m.now = t0.Add(tt.end)
			m.s.finish(&finish{kind: finDone, j: page, key: page.key, status: 200, cached: tt.cached}, m.now)
			at := m.s.wake(m.now)
			if at.IsZero() {
				at = m.now
			}
			if got := at.Sub(t0); got != tt.wantNext {
				t.Errorf("next page may start %s after the first, want %s", got, tt.wantNext)
			}
		})
	}
}

// holdingProxy forwards TCP connections to a backend, holding every
// other chunk a client sends for hold on its way: a request that spends
// longer travelling than the next one.
type holdingProxy struct {
	ln     net.Listener
	target string
	hold   time.Duration
	n      atomic.Int64
}

func newHoldingProxy(t *testing.T, target string, hold time.Duration) *holdingProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdingProxy{ln: ln, target: target, hold: hold}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *holdingProxy) serve(c net.Conn) {
	defer c.Close()
	b, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer b.Close()
	go func() { io.Copy(c, b); c.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if p.n.Add(1)%2 == 1 {
				time.Sleep(p.hold)
			}
			if _, werr := b.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestCrawlDelayHoldsAtArrival: requests written a Crawl-delay apart
// must not arrive closer than that when one spends longer on its way:
// every other request (robots.txt included) is held 300 ms between cfetch
// and the site. Counted from the sending, the request after a held one
// arrived 200 ms after it; counted from the answer's first byte, a whole
// Crawl-delay. Arrival times are the site's own (its handler), so the
// bound allows 50 ms for the site itself running late.
func TestCrawlDelayHoldsAtArrival(t *testing.T) {
	t.Parallel()
	site := &arrivals{}
	srv := httptest.NewServer(site)
	defer srv.Close()
	proxy := newHoldingProxy(t, srv.Listener.Addr().String(), 300*time.Millisecond)
	var in strings.Builder
	for i := range 5 {
		fmt.Fprintf(&in, "http://%s/page/%d\n", proxy.ln.Addr(), i)
	}
	out := fetchAll(t, in.String(), nil)
	if got := strings.Count(out, `"status":200`); got != 5 {
		t.Fatalf("%d pages answered 200, want 5:\n%s", got, out)
	}
	site.checkGaps(t)
}

// fetchAll runs cfetch's pipeline (-q --allow-private) over the input
// lines, with lag (if not nil) called before each exchange, and returns
// its output.
func fetchAll(t *testing.T, input string, lag func(*job)) string {
	t.Helper()
	opts, _, code, done := parseFlags([]string{"-q", "--allow-private"}, io.Discard)
	if done {
		t.Fatalf("flags: exit %d", code)
	}
	tool := cli.NewTool("cfetch", io.Discard)
	tool.Quiet = true
	f, err := NewFetcher(&opts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	p := newPipeline(tool, f, &opts, ndjson.NewWriter(&out))
	p.lag = lag
	p.run(t.Context(), ndjson.NewReader(nil, strings.NewReader(input)))
	return out.String()
}
