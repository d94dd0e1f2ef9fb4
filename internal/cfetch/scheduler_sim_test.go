package cfetch

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// sim drives a scheduler through a discrete-event simulation: exchanges
// take the latency respond gives them, and time jumps to the next event
// (an exchange ending, or the scheduler's wake-up) instead of passing.
// Nothing sleeps; every figure is exact.
type sim struct {
	t     testing.TB
	s     *scheduler
	t0    time.Time
	now   time.Time
	queue []simRunning // exchanges in flight, by end time

	// respond says how one exchange ends: its latency and the report.
	respond func(j *job, now time.Duration) (time.Duration, *finish)

	starts    []simStart
	answers   map[string]answer // by URL
	done      []string          // URLs finished by a worker, in order
	failed    int               // of those, finished with a failure
	perHost   map[string]int
	maxHost   map[string]int
	active    int
	maxActive int
}

type simStart struct {
	at  time.Duration
	url string
}

func (s simStart) String() string { return s.at.String() + " " + s.url }

type simRunning struct {
	end time.Time
	j   *job
	f   *finish
}

func newSim(t testing.TB, o *Options) *sim {
	t.Helper()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	s := newScheduler(o)
	s.rand = func() float64 { return 0.5 } // no jitter
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &sim{t: t, s: s, t0: t0, now: t0, answers: map[string]answer{}, perHost: map[string]int{}, maxHost: map[string]int{}}
}

// add queues requests for the URLs at the current time.
func (m *sim) add(urls ...string) {
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			m.t.Fatal(err)
		}
		j := &job{method: http.MethodGet}
		j.req.URL = raw
		j.setURL(u)
		m.s.hold()
		m.s.add(j, m.now)
	}
}

// at is the simulated time since the start.
func (m *sim) at() time.Duration { return m.now.Sub(m.t0) }

// run runs until nothing is held or running; it fails the test if that
// takes longer than limit.
func (m *sim) run(limit time.Duration) {
	m.t.Helper()
	if !m.runUntil(limit) {
		m.t.Fatalf("still running at %s", limit)
	}
}

// runFor runs until nothing is held or running, or the next event is
// after d.
func (m *sim) runFor(d time.Duration) {
	m.t.Helper()
	m.runUntil(d)
}

// runUntil runs until nothing is held or running (and reports true), or
// until the next event is after limit (false).
func (m *sim) runUntil(limit time.Duration) bool {
	m.t.Helper()
	for steps := 0; ; steps++ {
		if steps > 1e6 {
			m.t.Fatal("simulation does not end")
		}
		for j := m.s.next(m.now); j != nil; j = m.s.next(m.now) {
			m.s.sent(j, j.thisStart, m.now) // the request leaves at once
			m.starts = append(m.starts, simStart{m.at(), j.url.String()})
			m.perHost[j.key]++
			m.maxHost[j.key] = max(m.maxHost[j.key], m.perHost[j.key])
			m.active++
			m.maxActive = max(m.maxActive, m.active)
			lat, f := m.respond(j, m.at())
			f.j, f.key = j, j.key
			if j.robotsFor != "" {
				f.key = j.robotsFor
			}
			i, _ := slices.BinarySearchFunc(m.queue, m.now.Add(lat), func(r simRunning, t time.Time) int {
				if r.end.After(t) {
					return 1
				}
				return -1
			})
			m.queue = slices.Insert(m.queue, i, simRunning{m.now.Add(lat), j, f})
		}
		m.takeAnswers()
		if m.s.done() {
			return true
		}
		next := m.s.wake(m.now)
		if len(m.queue) > 0 && (next.IsZero() || m.queue[0].end.Before(next)) {
			next = m.queue[0].end
		}
		if next.IsZero() {
			m.t.Fatalf("stuck at %s: %d held, %d active", m.at(), m.s.held, m.s.active)
		}
		if next.Sub(m.t0) > limit {
			return false
		}
		if next.After(m.now) {
			m.now = next
		}
		for len(m.queue) > 0 && !m.queue[0].end.After(m.now) {
			r := m.queue[0]
			m.queue = m.queue[1:]
			m.perHost[r.f.key]--
			m.active--
			if r.f.kind == finDone {
				m.done = append(m.done, r.j.url.String())
				if r.f.failed {
					m.failed++
				}
			}
			m.s.finish(r.f, m.now)
			m.takeAnswers()
		}
	}
}

func (m *sim) takeAnswers() {
	for _, a := range m.s.takeAnswers() {
		m.answers[a.j.url.String()] = a
		m.s.finish(&finish{kind: finEmitted}, m.now)
	}
}

// startsOf lists the times the URLs containing sub started.
func (m *sim) startsOf(sub string) []time.Duration {
	var out []time.Duration
	for _, s := range m.starts {
		if strings.Contains(s.url, sub) {
			out = append(out, s.at)
		}
	}
	return out
}

// startsBefore lists the starts before d.
func (m *sim) startsBefore(d time.Duration) []simStart {
	var out []simStart
	for _, s := range m.starts {
		if s.at < d {
			out = append(out, s)
		}
	}
	return out
}

// ok is an exchange that ends with a 200 after latency.
func ok(latency time.Duration) func(*job, time.Duration) (time.Duration, *finish) {
	return func(j *job, _ time.Duration) (time.Duration, *finish) {
		if j.robotsFor != "" {
			return latency, &finish{kind: finRobots, status: 404, latency: latency, robots: robotsVerdict{entry: &robotsEntry{state: robotsAllowAll, expires: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)}}}
		}
		return latency, &finish{kind: finDone, status: 200, latency: latency}
	}
}

func urls(host string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("http://%s/p%d", host, i)
	}
	return out
}
