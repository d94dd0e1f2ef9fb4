package cfetch

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

func TestSchedulerConcurrencyLimits(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Concurrency, o.PerHost = 6, 2
	m := newSim(t, &o)
	m.respond = ok(100 * time.Millisecond)
	for _, h := range []string{"a.test", "b.test", "c.test", "d.test"} {
		m.add(urls(h, 10)...)
	}
	m.run(time.Hour)
	if len(m.done) != 40 {
		t.Fatalf("%d done, want 40", len(m.done))
	}
	if m.maxActive != 6 {
		t.Errorf("at most %d in flight, want --concurrency 6", m.maxActive)
	}
	for h, n := range m.maxHost {
		if n > 2 {
			t.Errorf("%s had %d in flight, want at most --per-host 2", h, n)
		}
	}
	// 40 exchanges of 100ms, 6 at a time: 7 rounds at best. Taking the
	// oldest request first would serve three hosts and leave the fourth
	// alone at the end (10 rounds); preferring the hosts with fewer
	// requests running spreads them.
	if m.at() > 800*time.Millisecond {
		t.Errorf("took %s, want at most 800ms", m.at())
	}
}

func TestSchedulerDelayPerHost(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Delay = 2 * time.Second
	m := newSim(t, &o) // jitter fixed at 1.0
	m.respond = ok(10 * time.Millisecond)
	m.add(urls("a.test", 4)...)
	m.add(urls("b.test", 2)...)
	m.run(time.Hour)
	if got, want := fmt.Sprint(m.startsOf("a.test")), "[0s 2s 4s 6s]"; got != want {
		t.Errorf("a.test started at %s, want %s", got, want)
	}
	// The other host is not held up by a.test's delay.
	if got, want := fmt.Sprint(m.startsOf("b.test")), "[0s 2s]"; got != want {
		t.Errorf("b.test started at %s, want %s", got, want)
	}
}

func TestSchedulerRandomDelay(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Delay = time.Second
	m := newSim(t, &o)
	r := []float64{0, 0.99, 0.25}
	n := 0
	m.s.rand = func() float64 { v := r[n%len(r)]; n++; return v }
	m.respond = ok(0)
	m.add(urls("a.test", 4)...)
	m.run(time.Hour)
	// Each gap is the delay times 0.5 + the next random number.
	got := m.startsOf("a.test")
	for i := 1; i < len(got); i++ {
		gap := got[i] - got[i-1]
		if gap < 500*time.Millisecond || gap > 1500*time.Millisecond {
			t.Errorf("gap %d is %s, want 0.5s to 1.5s", i, gap)
		}
	}
	if got[len(got)-1] == 3*time.Second {
		t.Errorf("starts %v: no jitter", got)
	}
}

func TestSchedulerSlowHostDoesNotStallOthers(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Concurrency, o.PerHost = 16, 8
	m := newSim(t, &o)
	m.respond = func(j *job, _ time.Duration) (time.Duration, *finish) {
		lat := 10 * time.Millisecond
		if j.key == "slow.test:80" {
			lat = 2 * time.Second
		}
		return lat, &finish{kind: finDone, status: 200, latency: lat}
	}
	m.add(urls("slow.test", 16)...)
	for i := range 9 {
		m.add(urls(fmt.Sprintf("fast%d.test", i), 20)...)
	}
	m.run(time.Hour)
	// The fast hosts finish long before the slow one's first answer.
	for i := range 9 {
		if s := m.startsOf(fmt.Sprintf("fast%d.test", i)); s[len(s)-1] >= time.Second {
			t.Errorf("fast%d.test's last request started at %s", i, s[len(s)-1])
		}
	}
}

func TestSchedulerPriority(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Concurrency, o.PerHost = 1, 1
	m := newSim(t, &o)
	m.respond = ok(time.Millisecond)
	for i, p := range []int{0, 5, -1, 5, 10} {
		u, _ := url.Parse(fmt.Sprintf("http://a.test/%d", i))
		j := &job{method: http.MethodGet}
		j.req.Priority = p
		j.setURL(u)
		m.s.hold()
		m.s.add(j, m.now)
	}
	m.run(time.Hour)
	if got, want := strings.Join(m.done, " "), "http://a.test/4 http://a.test/1 http://a.test/3 http://a.test/0 http://a.test/2"; got != want {
		t.Errorf("order %s, want %s", got, want)
	}
}

// robotsServer answers robots.txt with body (status 200) and pages with 200.
func robotsResponder(text string, robotsStatus int, latency time.Duration) func(*job, time.Duration) (time.Duration, *finish) {
	return func(j *job, now time.Duration) (time.Duration, *finish) {
		if j.robotsFor != "" {
			out := &outcome{status: robotsStatus, connected: true, body: &body{data: []byte(text)}}
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(now)
			return latency, &finish{kind: finRobots, status: robotsStatus, latency: latency, failed: robotsStatus >= 500,
				robots: judgeRobots(out, j.url.String(), "crawlutils", t0)}
		}
		return latency, &finish{kind: finDone, status: 200, latency: latency}
	}
}

func TestSchedulerRobotsFirstThenDeny(t *testing.T) {
	o := DefaultOptions()
	m := newSim(t, &o)
	m.respond = robotsResponder("User-agent: *\nDisallow: /private/\nCrawl-delay: 1\n", 200, 10*time.Millisecond)
	m.add("http://a.test/one", "http://a.test/private/x", "http://a.test/two")
	m.run(time.Hour)
	starts := fmt.Sprint(m.starts)
	if want := "[0s http://a.test/robots.txt 1s http://a.test/one 2s http://a.test/two]"; starts != want {
		t.Errorf("starts %s, want %s (robots.txt first, then Crawl-delay apart)", starts, want)
	}
	a, ok := m.answers["http://a.test/private/x"]
	if !ok || a.out.err == nil || a.out.err.Code != ErrRobots || !strings.Contains(a.out.err.Detail, "disallowed by http://a.test/robots.txt") {
		t.Errorf("denied request answered %+v", a)
	}
	// Known now: a new request is answered at once, without a fetch.
	m.add("http://a.test/private/y")
	m.takeAnswers()
	if _, ok := m.answers["http://a.test/private/y"]; !ok {
		t.Error("a request robots.txt denies is not answered at once")
	}
}

func TestSchedulerRobotsUnavailableIsRetriedThenDenies(t *testing.T) {
	o := DefaultOptions()
	o.Retries, o.RetryBackoff = 2, time.Second
	m := newSim(t, &o)
	m.respond = robotsResponder("", 503, 10*time.Millisecond)
	m.add("http://a.test/one")
	m.run(time.Hour)
	if got := len(m.startsOf("robots.txt")); got != 3 {
		t.Errorf("robots.txt fetched %d times, want 3 (1 + --retries 2)", got)
	}
	a := m.answers["http://a.test/one"]
	if a.out == nil || a.out.err == nil || a.out.err.Code != ErrRobots || !strings.Contains(a.out.err.Detail, "unavailable (status 503)") {
		t.Fatalf("answer %+v", a.out)
	}
	if len(m.startsOf("/one")) != 0 {
		t.Error("the page was fetched although robots.txt was unavailable")
	}
	// After robotsRetryTTL, robots.txt is fetched again.
	m.now = m.now.Add(robotsRetryTTL)
	m.respond = robotsResponder("User-agent: *\nDisallow:\n", 200, 10*time.Millisecond)
	m.add("http://a.test/two")
	m.run(2 * time.Hour)
	if len(m.startsOf("/two")) != 1 {
		t.Errorf("starts %v", m.starts)
	}
}

func TestSchedulerUnreachableHostFailsItsRequests(t *testing.T) {
	o := DefaultOptions()
	o.Retries, o.RetryBackoff = 1, time.Second
	m := newSim(t, &o)
	m.respond = func(j *job, _ time.Duration) (time.Duration, *finish) {
		return 0, &finish{kind: finRobots, failed: true, robots: robotsVerdict{unreachable: fetchErr(ErrRefused, "connection refused")}}
	}
	m.add("http://a.test/1", "http://a.test/2")
	m.run(time.Hour)
	for _, u := range []string{"http://a.test/1", "http://a.test/2"} {
		a := m.answers[u]
		if a.out == nil || a.out.err == nil || a.out.err.Code != ErrRefused || a.j.retries != 1 {
			t.Errorf("%s: %+v", u, a)
		}
	}
	// One robots.txt attempt per round, not one per request.
	if got := fmt.Sprint(m.startsOf("robots.txt")); got != "[0s 1s]" {
		t.Errorf("robots.txt fetched at %s", got)
	}
}

func TestSchedulerRetryAfterPausesTheHost(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.PerHost = 1
	m := newSim(t, &o)
	first := true
	m.respond = func(j *job, _ time.Duration) (time.Duration, *finish) {
		if first {
			first = false
			return 0, &finish{kind: finRetry, status: 429, retryAfter: 30 * time.Second, hasRetryAfter: true}
		}
		return 0, &finish{kind: finDone, status: 200}
	}
	m.add("http://a.test/1", "http://a.test/2", "http://a.test/3", "http://b.test/x")
	m.run(time.Hour)
	// b.test goes at once; a.test's requests wait for the Retry-After.
	if got := fmt.Sprint(m.starts); got != "[0s http://a.test/1 0s http://b.test/x 30s http://a.test/1 30s http://a.test/2 30s http://a.test/3]" {
		t.Errorf("starts %s", got)
	}
}

func TestSchedulerRetryAfterIsCapped(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.RetryAfterMax = 10 * time.Second
	m := newSim(t, &o)
	n := 0
	m.respond = func(j *job, _ time.Duration) (time.Duration, *finish) {
		n++
		if n == 1 {
			// Not retried (over the max), but the host still rests.
			return 0, &finish{kind: finDone, status: 429, retryAfter: 365 * 24 * time.Hour, hasRetryAfter: true}
		}
		return 0, &finish{kind: finDone, status: 200}
	}
	m.add("http://a.test/1")
	m.run(time.Hour)
	m.add("http://a.test/2")
	m.run(time.Hour)
	if got := fmt.Sprint(m.startsOf("a.test")); got != "[0s 10s]" {
		t.Errorf("starts %s, want the host paused for --retry-after-max", got)
	}
}

func TestSchedulerAutoThrottle(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.AutoThrottle = true
	o.ThrottleStart = time.Second
	m := newSim(t, &o)
	var lines []string
	m.s.debug = func(l string) { lines = append(lines, l) }
	m.respond = ok(200 * time.Millisecond)
	m.add(urls("a.test", 4)...)
	m.run(time.Hour)
	// The delay starts at 1s, then moves to the mean of itself and the
	// latency (200ms): 600ms, 400ms, 300ms. As in Scrapy, the next start
	// is the last start plus the delay as it is now.
	if got := fmt.Sprint(m.startsOf("a.test")); got != "[0s 600ms 1s 1.3s]" {
		t.Errorf("starts %s", got)
	}
	if len(lines) != 4 || !strings.Contains(lines[0], "slot: a.test:80 | conc: 0 | delay:  600 ms (-400) | latency:  200 ms") {
		t.Errorf("debug lines %q", lines)
	}
}

// TestSchedulerTellsThrottle: each change of a host's AutoThrottle delay
// is told (to the pacing of rendered pages' requests), once.
func TestSchedulerTellsThrottle(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.AutoThrottle = true
	o.ThrottleStart = time.Second
	m := newSim(t, &o)
	var told []string
	m.s.throttled = func(key string, d time.Duration) { told = append(told, key+" "+d.String()) }
	m.respond = ok(200 * time.Millisecond)
	m.add(urls("a.test", 4)...)
	m.run(time.Hour)
	if got := fmt.Sprint(told); got != "[a.test:80 1s a.test:80 600ms a.test:80 400ms a.test:80 300ms a.test:80 250ms]" {
		t.Errorf("told %s", got)
	}
}

func TestSchedulerCacheHitSpendsNoDelay(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Delay = 5 * time.Second
	m := newSim(t, &o)
	m.respond = func(j *job, _ time.Duration) (time.Duration, *finish) {
		return 0, &finish{kind: finDone, status: 200, cached: true}
	}
	m.add(urls("a.test", 5)...)
	m.run(time.Hour)
	if got := fmt.Sprint(m.startsOf("a.test")); got != "[0s 0s 0s 0s 0s]" {
		t.Errorf("starts %s: cache hits waited for the delay", got)
	}
}

func TestSchedulerEvictsIdleHosts(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	m := newSim(t, &o)
	m.respond = ok(time.Millisecond)
	for i := range 5000 {
		m.add(fmt.Sprintf("http://h%d.test/", i))
	}
	m.run(time.Hour)
	if n := len(m.s.hosts); n != 5000 {
		t.Fatalf("%d hosts known right after the run", n)
	}
	m.s.evict(m.now.Add(hostIdleTTL))
	if n := len(m.s.hosts); n != 0 {
		t.Errorf("%d hosts still known after %s idle", n, hostIdleTTL)
	}
}

func TestSchedulerInterrupt(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Concurrency, o.PerHost = 1, 1
	m := newSim(t, &o)
	m.add("http://a.test/1", "http://a.test/2", "http://a.test/3")
	j := m.s.next(m.now)
	if j == nil || j.url.Path != "/1" {
		t.Fatalf("first job %v", j)
	}
	dropped := m.s.interrupt()
	if len(dropped) != 2 || m.s.held != 1 {
		t.Errorf("dropped %d, held %d; want 2 dropped, 1 held (in flight)", len(dropped), m.s.held)
	}
	// The one in flight comes back for a retry: it is answered instead.
	j.last = &outcome{url: j.url.String(), status: 503}
	m.s.finish(&finish{kind: finRetry, j: j, key: j.key, status: 503}, m.now)
	a := m.s.takeAnswers()
	if len(a) != 1 || a[0].out.status != 503 || !slices.Contains(a[0].j.warnings, "not retried or followed: interrupted") {
		t.Errorf("answers %+v", a)
	}
}

// TestProgressLine: the command's part of the progress line shows what is
// in flight, the hosts, their delays and the statuses.
func TestProgressLine(t *testing.T) {
	o := DefaultOptions()
	o.Delay = 1500 * time.Millisecond
	o.RobotsObey = false
	tool := cli.NewTool("cfetch", io.Discard)
	f, err := NewFetcher(&o)
	if err != nil {
		t.Fatal(err)
	}
	p := newPipeline(tool, f, &o, nil)
	now := time.Now()
	for _, u := range []string{"http://a.test/1", "http://a.test/2", "http://b.test/1"} {
		j := &job{method: http.MethodGet}
		j.setURL(mustURL(t, u))
		p.sched.hold()
		p.sched.add(j, now)
	}
	p.sched.next(now)
	p.sched.hosts["b.test:80"].rest.Extend(now.Add(time.Minute))
	tool.Stats.Count("status", "200", 3)
	tool.Stats.Count("status", "404", 1)
	p.setProgressLocked(now)
	if got, want := p.progress(), "1 in flight, 2 queued, 2 hosts (1 paused), delay up to 1.5s, status 200:3 404:1"; got != want {
		t.Errorf("progress\n got %q\nwant %q", got, want)
	}
}

// TestSchedulerManyDelayedHosts: with many hosts each waiting for its
// delay, every host still gets its requests exactly --delay apart, and the
// free slots go to the hosts that are ready.
func TestSchedulerManyDelayedHosts(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Delay = time.Second
	o.Concurrency = 16
	m := newSim(t, &o)
	m.respond = ok(100 * time.Millisecond)
	for i := range 300 {
		m.add(urls(fmt.Sprintf("h%d.test", i), 3)...)
	}
	m.run(time.Hour)
	if len(m.done) != 900 {
		t.Fatalf("%d done", len(m.done))
	}
	for i := range 300 {
		s := m.startsOf(fmt.Sprintf("//h%d.test/", i))
		for k := 1; k < len(s); k++ {
			if s[k]-s[k-1] < time.Second {
				t.Fatalf("h%d.test: starts %v closer than the delay", i, s)
			}
		}
	}
	// 900 exchanges of 100ms, 16 at a time: 5.7s at best; the delay
	// (1s per host) does not bind with 300 hosts.
	if m.at() > 6*time.Second {
		t.Errorf("took %s", m.at())
	}
}
