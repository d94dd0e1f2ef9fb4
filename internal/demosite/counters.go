package demosite

import (
	"net/http"
	"time"
)

// Request is one request the site received, as Requests returns it.
type Request struct {
	Method string
	Path   string
	// Status is the status of the answer; 0 when there was none (a
	// connection reset, or a client that gave up during Options.Latency).
	Status int
	// Time is when the request arrived.
	Time time.Time
}

// maxLogged is how many requests Requests keeps: enough for several whole
// crawls, bounded for a server that benchmarks hammer for minutes.
const maxLogged = 100_000

// Stats counts what crawlers did to the site since New or the last Reset.
// Requests under /__demosite/ are not counted. Its JSON form is the answer
// of GET /__demosite/stats; new fields may be added.
type Stats struct {
	// Requests counts every request, robots.txt included.
	Requests int `json:"requests"`
	// ByStatus counts the answered requests by HTTP status.
	ByStatus map[int]int `json:"by_status"`
	// Resets counts the connections the site reset on purpose (a one-time
	// failure); Abandoned the requests whose client went away during
	// Options.Latency. Neither got an answer.
	Resets    int `json:"resets"`
	Abandoned int `json:"abandoned"`
	// Pages counts the distinct paths requested.
	Pages int `json:"pages"`
	// Duplicates counts the requests beyond what a perfect crawl makes:
	// for each path, its requests less one, less one more for the single
	// retry a one-time-failure page needs, never below zero.
	Duplicates int `json:"duplicates"`
	// Failures counts the one-time failures served; Retries the requests to
	// those pages after their failure.
	Failures int `json:"failures"`
	Retries  int `json:"retries"`
	// EarlyRetries counts the requests to a page of the 503-with-Retry-After
	// class that arrived before the Retry-After delay (less 1 ms) had passed
	// since its failure: a crawler ignoring Retry-After.
	EarlyRetries int `json:"early_retries"`
	// RobotsTxt counts the requests for /robots.txt (one per crawler
	// process is usual; more than one is counted in Duplicates).
	RobotsTxt int `json:"robots_txt"`
	// Products counts the ground-truth product pages answered 200.
	Products int `json:"products"`
	// Expected is PerfectCrawl: the requests of a perfect crawl.
	Expected int `json:"expected"`
}

// exchange is the ResponseWriter of one counted request: it remembers the
// status written and whether the request was a one-time failure.
// It is counted once, as soon as the answer is decided: when its status is
// written (before the client can read it), before its connection is reset,
// or when the handler ends without either (abandoned). So Stats, read
// after a client got its answer, always includes that request.
type exchange struct {
	http.ResponseWriter
	site         *Site
	method, path string
	arrived      time.Time
	status       int  // 0 until a header is written
	failed       bool // the request got its page's one-time failure
	counted      bool
}

// count records the exchange in the site's counters, once.
func (x *exchange) count() {
	if !x.counted {
		x.counted = true
		x.site.record(x.method, x.path, x)
	}
}

func (x *exchange) WriteHeader(status int) {
	if x.status == 0 {
		x.status = status
		x.count()
	}
	x.ResponseWriter.WriteHeader(status)
}

func (x *exchange) Write(b []byte) (int, error) {
	if x.status == 0 {
		x.status = http.StatusOK
		x.count()
	}
	return x.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (Hijack).
func (x *exchange) Unwrap() http.ResponseWriter { return x.ResponseWriter }

// pathCount is what the counters keep per path.
type pathCount struct {
	requests int
	ok       bool // answered 200 at least once
}

// counters is the site's record of requests; Site.mu guards it.
type counters struct {
	paths     map[string]*pathCount
	bed       map[string]int    // the link test bed's targets (linkbed.go)
	failedAt  map[int]time.Time // one-time-failure products that failed, and when
	log       []Request
	byStatus  map[int]int
	requests  int
	resets    int
	abandoned int
	failures  int
	retries   int
	early     int
}

func newCounters() counters {
	return counters{paths: map[string]*pathCount{}, bed: map[string]int{}, failedAt: map[int]time.Time{}, byStatus: map[int]int{}}
}

// Reset forgets which one-time-failure pages already failed (so each fails
// once more) and clears every counter, so a test can run another crawl
// against the same server.
func (s *Site) Reset() {
	s.mu.Lock()
	s.counters = newCounters()
	s.mu.Unlock()
}

// failOnce reports whether one-time-failure product id should fail now,
// and if so records that it did.
func (s *Site) failOnce(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, done := s.failedAt[id]; done {
		return false
	}
	s.failedAt[id] = s.now()
	return true
}

// record counts a finished request.
func (s *Site) record(method, path string, x *exchange) {
	it := s.byPath[path]
	if it != nil && (it.private || it.failure == failNone) {
		it = nil // only one-time-failure pages need more
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.counters
	c.requests++
	switch {
	case x.status != 0:
		c.byStatus[x.status]++
	case x.failed:
		c.resets++
	default:
		c.abandoned++
	}
	pc := c.paths[path]
	if pc == nil {
		pc = new(pathCount)
		c.paths[path] = pc
	}
	pc.requests++
	pc.ok = pc.ok || x.status == http.StatusOK
	if len(c.log) < maxLogged {
		c.log = append(c.log, Request{Method: method, Path: path, Status: x.status, Time: x.arrived})
	}
	if it == nil {
		return
	}
	if x.failed {
		c.failures++
		return
	}
	if failed, ok := c.failedAt[it.id]; ok {
		c.retries++
		if it.failure == fail503RetryAfter && s.retryDelay > 0 && x.arrived.Sub(failed) < s.retryDelay-time.Millisecond {
			c.early++
		}
	}
}

// Stats returns the counters since New or the last Reset.
func (s *Site) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.counters
	st := Stats{
		Requests:     c.requests,
		ByStatus:     make(map[int]int, len(c.byStatus)),
		Resets:       c.resets,
		Abandoned:    c.abandoned,
		Pages:        len(c.paths),
		Failures:     c.failures,
		Retries:      c.retries,
		EarlyRetries: c.early,
		Expected:     s.perfect,
	}
	for status, n := range c.byStatus {
		st.ByStatus[status] = n
	}
	for path, pc := range c.paths {
		allowed := 1
		it := s.byPath[path]
		if it != nil && !it.private && it.failure != failNone {
			allowed = 2
		}
		st.Duplicates += max(0, pc.requests-allowed)
		if it != nil && pc.ok && !it.private {
			st.Products++
		}
	}
	if pc := c.paths["/robots.txt"]; pc != nil {
		st.RobotsTxt = pc.requests
	}
	return st
}

// Requests returns the first 100 000 requests received since New or the
// last Reset, in the order they finished.
func (s *Site) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Hits returns a copy of the number of requests received per URL path
// (any method, any status) since New or the last Reset.
func (s *Site) Hits() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.paths))
	for k, pc := range s.paths {
		out[k] = pc.requests
	}
	return out
}

// TotalHits returns the number of requests received since New or the last
// Reset.
func (s *Site) TotalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}
