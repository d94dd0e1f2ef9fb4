package demosite

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"testing"
	"time"
)

// TestStatsCounts drives a site by hand, the clock moved by hand, and
// checks every counter after each step.
func TestStatsCounts(t *testing.T) {
	clock := newFakeClock()
	s, srv := testServerClock(t, Options{Products: 200, RetryAfter: time.Minute}, clock)
	c := rawClient()
	flaky := firstID(t, s, func(it *item) bool { return it.failure == fail503RetryAfter })
	plain := firstID(t, s, func(it *item) bool { return it.failure == failNone && !it.discontinued })
	gone := firstID(t, s, func(it *item) bool { return it.discontinued })
	type step struct {
		method, path string
		advance      time.Duration // before the request
		want         Stats         // after it (Expected and ByStatus aside)
	}
	steps := []step{
		{"GET", "/robots.txt", 0, Stats{Requests: 1, Pages: 1, RobotsTxt: 1}},
		{"GET", plain.URL, 0, Stats{Requests: 2, Pages: 2, RobotsTxt: 1, Products: 1}},
		{"HEAD", plain.URL, 0, Stats{Requests: 3, Pages: 2, RobotsTxt: 1, Products: 1, Duplicates: 1}},
		{"GET", gone.URL, 0, Stats{Requests: 4, Pages: 3, RobotsTxt: 1, Products: 1, Duplicates: 1}},
		{"GET", flaky.URL, 0, Stats{Requests: 5, Pages: 4, RobotsTxt: 1, Products: 1, Duplicates: 1, Failures: 1}},
		// A retry 59 s into a Retry-After of 60 s is early; it is the
		// page's one allowed retry all the same.
		{"GET", flaky.URL, 59 * time.Second, Stats{Requests: 6, Pages: 4, RobotsTxt: 1, Products: 2, Duplicates: 1, Failures: 1, Retries: 1, EarlyRetries: 1}},
		{"GET", flaky.URL, 999 * time.Millisecond, Stats{Requests: 7, Pages: 4, RobotsTxt: 1, Products: 2, Duplicates: 2, Failures: 1, Retries: 2, EarlyRetries: 1}},
		{"POST", "/robots.txt", 0, Stats{Requests: 8, Pages: 4, RobotsTxt: 2, Products: 2, Duplicates: 3, Failures: 1, Retries: 2, EarlyRetries: 1}},
	}
	for i, st := range steps {
		clock.Advance(st.advance)
		fetch(t, c, st.method, srv.URL+st.path, nil)
		got := s.Stats()
		if got.Expected != s.PerfectCrawl() {
			t.Errorf("step %d: Expected %d, PerfectCrawl %d", i+1, got.Expected, s.PerfectCrawl())
		}
		got.Expected, got.ByStatus = 0, nil
		if !reflect.DeepEqual(got, st.want) {
			t.Errorf("step %d (%s %s):\n got %+v\nwant %+v", i+1, st.method, st.path, got, st.want)
		}
	}
	if got, want := s.Stats().ByStatus, map[int]int{200: 5, 404: 1, 503: 1, 405: 1}; !maps.Equal(got, want) {
		t.Errorf("ByStatus %v, want %v", got, want)
	}
	log := s.Requests()
	if len(log) != len(steps) {
		t.Fatalf("%d requests logged, want %d", len(log), len(steps))
	}
	for i, r := range log {
		if r.Method != steps[i].method || r.Path != steps[i].path {
			t.Errorf("request %d logged as %s %s", i+1, r.Method, r.Path)
		}
	}
	if log[4].Status != 503 || log[5].Status != 200 || log[5].Time.Sub(log[4].Time) != 59*time.Second {
		t.Errorf("flaky page logged as %+v then %+v", log[4], log[5])
	}
	if s.TotalHits() != len(steps) || s.Hits()[flaky.URL] != 3 {
		t.Errorf("TotalHits %d, hits %v", s.TotalHits(), s.Hits())
	}
	s.Reset()
	if got := s.Stats(); got.Requests != 0 || len(got.ByStatus) != 0 || len(s.Requests()) != 0 || len(s.Hits()) != 0 {
		t.Errorf("after Reset: %+v", got)
	}
	if r := fetch(t, c, "GET", srv.URL+flaky.URL, nil); r.status != 503 {
		t.Errorf("after Reset, the flaky page answered %d", r.status)
	}
}

// TestNoEarlyRetriesWithoutDelay: with Retry-After 0 or none, no retry is
// early.
func TestNoEarlyRetriesWithoutDelay(t *testing.T) {
	for _, ra := range []time.Duration{RetryAfterZero, NoRetryAfter} {
		s, srv := testServer(t, Options{Products: 60, RetryAfter: ra})
		c := rawClient()
		for range 3 {
			fetch(t, c, "GET", srv.URL+s.items[6].URL, nil)
		}
		if st := s.Stats(); st.Retries != 2 || st.EarlyRetries != 0 || st.Duplicates != 1 {
			t.Errorf("RetryAfter %v: %+v", ra, st)
		}
	}
}

// TestControlEndpoints: GET /__demosite/stats and POST /__demosite/reset
// work over HTTP and are not counted.
func TestControlEndpoints(t *testing.T) {
	s, srv := testServer(t, Options{Products: 60})
	c := rawClient()
	fetch(t, c, "GET", srv.URL+"/", nil)
	fetch(t, c, "GET", srv.URL+"/robots.txt", nil)
	r := fetch(t, c, "GET", srv.URL+"/__demosite/stats", map[string]string{"Accept-Encoding": "gzip"})
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" || r.header.Get("Content-Encoding") != "" {
		t.Fatalf("stats: %d %v", r.status, r.header)
	}
	var got Stats
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	if want := s.Stats(); !reflect.DeepEqual(got, want) || got.Requests != 2 || got.Expected == 0 {
		t.Errorf("GET /__demosite/stats = %+v, Stats() = %+v", got, want)
	}
	var fields map[string]any
	json.Unmarshal(r.body, &fields)
	for _, name := range []string{"requests", "by_status", "pages", "duplicates", "early_retries", "expected", "retries", "resets"} {
		if _, ok := fields[name]; !ok {
			t.Errorf("stats JSON lacks %q: %s", name, r.body)
		}
	}
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"POST", "/__demosite/stats", 405, "GET, HEAD"},
		{"HEAD", "/__demosite/stats", 200, ""},
		{"GET", "/__demosite/reset", 405, "POST"},
		{"GET", "/__demosite/", 404, ""},
		{"GET", "/__demosite/nope", 404, ""},
	} {
		r := fetch(t, c, tc.method, srv.URL+tc.path, nil)
		if r.status != tc.status || r.header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d, Allow %q; want %d, %q", tc.method, tc.path, r.status, r.header.Get("Allow"), tc.status, tc.allow)
		}
	}
	if n := s.Stats().Requests; n != 2 {
		t.Errorf("%d requests counted, want 2 (control requests are not)", n)
	}
	if r := fetch(t, c, "POST", srv.URL+"/__demosite/reset", nil); r.status != http.StatusNoContent {
		t.Errorf("POST /__demosite/reset: %d", r.status)
	}
	if n := s.Stats().Requests; n != 0 {
		t.Errorf("after reset, %d requests counted", n)
	}
}
