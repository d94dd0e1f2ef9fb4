package cfetch

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// failing answers the URLs in fail with status (and, when ra > 0, that
// Retry-After) on their first attempts, as many as fail says, and 200
// otherwise, each after latency.
func failing(latency time.Duration, status int, ra time.Duration, fail map[string]int) func(*job, time.Duration) (time.Duration, *finish) {
	return func(j *job, _ time.Duration) (time.Duration, *finish) {
		u := j.url.String()
		if fail[u] > 0 {
			fail[u]--
			f := &finish{kind: finRetry, status: status, latency: latency, failed: true}
			if ra > 0 {
				f.retryAfter, f.hasRetryAfter = ra, true
			}
			return latency, f
		}
		return latency, &finish{kind: finDone, status: http.StatusOK, latency: latency}
	}
}

// TestSchedulerIsolatedFailureDelaysOnlyItsRequest: one 503 with
// Retry-After: 1 among successes delays that request's retry by the
// Retry-After; the host's other requests go on at once.
func TestSchedulerIsolatedFailureDelaysOnlyItsRequest(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.PerHost = 1
	m := newSim(t, &o)
	m.respond = failing(100*time.Millisecond, http.StatusServiceUnavailable, time.Second, map[string]int{"http://a.test/p2": 1})
	m.add(urls("a.test", 8)...)
	m.run(time.Hour)
	want := "[0s http://a.test/p0 100ms http://a.test/p1 200ms http://a.test/p2 300ms http://a.test/p3 400ms http://a.test/p4 " +
		"500ms http://a.test/p5 600ms http://a.test/p6 700ms http://a.test/p7 1.3s http://a.test/p2]"
	if got := fmt.Sprint(m.starts); got != want {
		t.Errorf("starts\n got %s\nwant %s", got, want)
	}
	if h := m.s.hosts["a.test:80"]; h.rest.Rests() != 0 || !h.rest.Until().IsZero() {
		t.Errorf("the host rested: %d rests, paused until %s", h.rest.Rests(), h.rest.Until())
	}
}

// TestSchedulerRetryBackoffPerRequest: a request's retries wait
// --retry-backoff × 2ⁿ for its own n-th retry, whatever the other
// requests of the host do.
func TestSchedulerRetryBackoffPerRequest(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.Retries, o.RetryBackoff = 3, 100*time.Millisecond
	m := newSim(t, &o)
	m.respond = failing(0, 500, 0, map[string]int{"http://a.test/p0": 3})
	m.add("http://a.test/p0", "http://b.test/ok")
	m.run(time.Hour)
	if got := fmt.Sprint(m.startsOf("a.test")); got != "[0s 100ms 300ms 700ms]" {
		t.Errorf("a.test started at %s", got)
	}
	// A request that carried retries in backs off from there.
	m = newSim(t, &o)
	m.respond = failing(0, 500, 0, map[string]int{"http://a.test/x": 1})
	j := &job{method: http.MethodGet}
	j.req.Retries = 2
	j.setURL(mustURL(t, "http://a.test/x"))
	m.s.hold()
	m.s.add(j, m.now)
	m.run(time.Hour)
	if got := fmt.Sprint(m.startsOf("a.test")); got != "[0s 400ms]" {
		t.Errorf("a request with 2 retries carried in started at %s", got)
	}
}

// TestSchedulerFailuresInARowRestTheHost: a host that fails everything
// (503s, or connections refused: no status) rests from its third failure
// in a row, each rest twice as long as the one before while it keeps
// failing; the exchanges in flight when a rest began do not make it
// longer. Another host is not affected.
func TestSchedulerFailuresInARowRestTheHost(t *testing.T) {
	for _, status := range []int{503, 0} {
		o := DefaultOptions()
		o.RobotsObey = false
		o.PerHost, o.Retries = 2, 100
		m := newSim(t, &o)
		fail := map[string]int{}
		for _, u := range urls("down.test", 4) {
			fail[u] = 1000
		}
		m.respond = failing(10*time.Millisecond, status, 0, fail)
		m.add(urls("down.test", 4)...)
		m.add(urls("up.test", 20)...)
		m.runFor(2 * time.Second)
		// p0 and p1 fail at 10ms, and p2 and p3 start. p2's failure, the
		// third in a row, rests the host 250ms (until 270ms); p3's, in
		// flight meanwhile, does not make the rest longer. After each rest
		// two exchanges start, and the first failure rests the host again,
		// twice as long: 500ms, 1s.
		want := "[0s 0s 10ms 10ms 270ms 270ms 780ms 780ms 1.79s 1.79s]"
		if got := fmt.Sprint(m.startsOf("down.test")); got != want {
			t.Errorf("status %d: down.test started at\n got %s\nwant %s", status, got, want)
		}
		if n := len(m.startsOf("up.test")); n != 20 {
			t.Errorf("status %d: up.test: %d of 20 requests started", status, n)
		}
	}
}

// TestSchedulerSuccessEndsTheStreak: failures separated by successes never
// rest the host.
func TestSchedulerSuccessEndsTheStreak(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.PerHost = 1
	m := newSim(t, &o)
	fail := map[string]int{}
	for i, u := range urls("a.test", 30) {
		if i%3 != 0 {
			fail[u] = 1 // two failures, a success, two failures, …
		}
	}
	m.respond = failing(10*time.Millisecond, 502, 0, fail)
	m.add(urls("a.test", 30)...)
	m.run(time.Hour)
	if h := m.s.hosts["a.test:80"]; h.rest.Rests() != 0 || !h.rest.Until().IsZero() {
		t.Errorf("the host rested: %d rests, paused until %s", h.rest.Rests(), h.rest.Until())
	}
}

// TestSchedulerRetryAfterSetsTheRest: when failures in a row rest the
// host, a Retry-After sets the rest (if longer than the backoff); one
// that comes while the host rests lengthens the rest, never shortens it.
func TestSchedulerRetryAfterSetsTheRest(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.PerHost = 4
	m := newSim(t, &o)
	n := 0
	m.respond = func(j *job, _ time.Duration) (time.Duration, *finish) {
		n++
		switch n {
		case 1, 2, 3: // the third in a row rests the host: Retry-After 5s
			return time.Millisecond, &finish{kind: finRetry, status: 503, failed: true, retryAfter: 5 * time.Second, hasRetryAfter: true}
		case 4: // in flight meanwhile: its Retry-After makes the rest longer
			return 10 * time.Millisecond, &finish{kind: finRetry, status: 503, failed: true, retryAfter: 8 * time.Second, hasRetryAfter: true}
		}
		return 0, &finish{kind: finDone, status: 200}
	}
	m.add(urls("a.test", 6)...)
	m.run(time.Hour)
	// p4 and p5 wait for the rest: until 10ms + 8s (after the retries of
	// p0 to p3, which are older).
	if got := fmt.Sprint(m.startsOf("a.test/p4"), m.startsOf("a.test/p5")); got != "[8.01s] [8.01s]" {
		t.Errorf("p4, p5 started at %s", got)
	}

	// A 429 rests the host 2s; a 503 in flight meanwhile, after a
	// success, is not trouble by itself, but its Retry-After of 5s still
	// lengthens the rest.
	o.PerHost = 3
	m = newSim(t, &o)
	n = 0
	m.respond = func(j *job, _ time.Duration) (time.Duration, *finish) {
		n++
		switch n {
		case 1:
			return time.Millisecond, &finish{kind: finRetry, status: 429, failed: true, retryAfter: 2 * time.Second, hasRetryAfter: true}
		case 2:
			return 2 * time.Millisecond, &finish{kind: finDone, status: 200}
		case 3:
			return 3 * time.Millisecond, &finish{kind: finRetry, status: 503, failed: true, retryAfter: 5 * time.Second, hasRetryAfter: true}
		}
		return 0, &finish{kind: finDone, status: 200}
	}
	m.add(urls("a.test", 4)...)
	m.run(time.Hour)
	if got := fmt.Sprint(m.startsOf("a.test/p3")); got != "[5.003s]" {
		t.Errorf("p3 started at %s, want at the end of the lengthened rest", got)
	}
}

// TestSchedulerIsolated503LeavesAutoThrottleAlone: with --autothrottle, a
// lone 503 adjusts the delay by its latency like any answer (without
// lowering it); a 429 rests the host and doubles the delay.
func TestSchedulerIsolated503LeavesAutoThrottleAlone(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   time.Duration
	}{
		{503, time.Second}, // 100ms latency would lower it: kept
		{429, 2 * time.Second},
	} {
		o := DefaultOptions()
		o.RobotsObey = false
		o.AutoThrottle, o.ThrottleStart = true, time.Second
		m := newSim(t, &o)
		m.add("http://a.test/1")
		j := m.s.next(m.now)
		m.now = m.now.Add(100 * time.Millisecond)
		m.s.finish(&finish{kind: finDone, j: j, key: j.key, status: tt.status, latency: 100 * time.Millisecond, failed: true}, m.now)
		if got := m.s.hosts["a.test:80"].throttle; got != tt.want {
			t.Errorf("after a %d: delay %s, want %s", tt.status, got, tt.want)
		}
	}
}

// TestSchedulerRestIsCounted: the stats count the rests and why.
func TestSchedulerRestIsCounted(t *testing.T) {
	o := DefaultOptions()
	o.RobotsObey = false
	o.PerHost = 1
	m := newSim(t, &o)
	var counts []string
	m.s.count = func(group, key string) { counts = append(counts, group+" "+key) }
	m.respond = failing(0, 429, time.Second, map[string]int{"http://a.test/p0": 1})
	m.add(urls("a.test", 2)...)
	m.run(time.Hour)
	if got := strings.Join(counts, ", "); got != "rests 429" {
		t.Errorf("counts %q", got)
	}
}

func TestNewAutoThrottle(t *testing.T) {
	o := DefaultOptions()
	o.Delay, o.ThrottleStart = 7*time.Second, 5*time.Second
	if a := newAutoThrottle(&o); a.Start != 7*time.Second || a.Min != 7*time.Second || a.Max != time.Minute || a.Target != 1 {
		t.Errorf("%+v: the start delay is at least DOWNLOAD_DELAY", a)
	}
}
