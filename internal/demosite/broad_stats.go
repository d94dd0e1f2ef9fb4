package demosite

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"
)

// BroadEarly is a request that reached a delayed host less than its
// Crawl-delay after the previous one.
type BroadEarly struct {
	Host     string  `json:"host"`
	Path     string  `json:"path"`
	PrevPath string  `json:"prev_path"`
	GapMS    float64 `json:"gap_ms"`
	// AtS is when it arrived, seconds after the crawl's first request.
	AtS float64 `json:"at_s"`
}

// maxEarly bounds BroadStats.Early.
const maxEarly = 50

// broadHost is what a Broad site records of one host; Broad.mu guards it.
type broadHost struct {
	paths     map[string]int
	requests  int
	active    int // requests being answered
	maxActive int
	last      time.Time // latest arrival
	lastPath  string    // the path of the latest arrival
	minGap    time.Duration
	gaps      int // arrivals after the first: minGap is set
	early     int // arrivals less than the Crawl-delay after the previous one
	crowded   int // arrivals while PerHost requests were being answered
}

// BroadStats is what a Broad site recorded since NewBroad or the last
// Reset; its JSON form is the answer of GET /__demosite/stats. New fields
// may be added.
type BroadStats struct {
	// Requests counts every request (robots.txt included) to a known host;
	// Expected is the perfect crawl's count (PerfectRequests summed).
	Requests int `json:"requests"`
	Expected int `json:"expected"`
	// Duplicates counts, per host and path, the requests beyond the first;
	// Excess the requests beyond the perfect crawl's on each host (a
	// retry, a page of a host a polite crawler must not fetch); Missing
	// what the perfect crawl makes and the crawler did not.
	Duplicates int `json:"duplicates"`
	Excess     int `json:"excess"`
	Missing    int `json:"missing"`
	// Violations is EarlyRequests + Crowded: politeness violations.
	// EarlyRequests counts requests to a delayed host that arrived less
	// than its Crawl-delay after the previous one; Crowded the requests
	// that arrived while PerHost requests of their host were already
	// being answered.
	Violations    int `json:"violations"`
	EarlyRequests int `json:"early_requests"`
	Crowded       int `json:"crowded"`
	// MinDelayGapMS is the shortest gap between two arrivals at one
	// delayed host, in milliseconds; -1 when there were none.
	MinDelayGapMS float64 `json:"min_delay_gap_ms"`
	// IdealS is IdealTime in seconds: the politeness-bound wall time.
	IdealS float64 `json:"ideal_s"`
	// FastDoneMedianS and FastDoneMaxS: for the live hosts without a
	// Crawl-delay (normal and slow), when each got its last request,
	// seconds after the crawl's first request; DelayedDoneMaxS the same
	// for the delayed hosts. 0 when no request came.
	FastDoneMedianS float64 `json:"fast_done_median_s"`
	FastDoneMaxS    float64 `json:"fast_done_max_s"`
	DelayedDoneMaxS float64 `json:"delayed_done_max_s"`
	// Early lists the first of the early requests (at most maxEarly),
	// to tell which request came too soon after which.
	Early []BroadEarly `json:"early,omitempty"`
	// MaxPerHost is the most requests of one host answered at once.
	MaxPerHost int `json:"max_per_host"`
	// Hosts counts the hosts by class.
	Hosts map[string]int `json:"hosts"`
}

// PerfectRequests is host i's requests in a perfect crawl: robots.txt,
// the home page and its P pages; only robots.txt for a dead host (its
// answer never comes) and for a robots-5xx host (disallow-all).
func (b *Broad) PerfectRequests(i int) int {
	switch BroadClassOf(i) {
	case BroadDead, BroadRobots5xx:
		return 1
	}
	return b.opts.Pages + 2
}

// IdealTime is the politeness bound on a crawl of the whole site, given
// all the home pages at once: the slowest host's requests at its delay or
// latency. A delayed host needs robots.txt, then its home and P pages each
// a Crawl-delay after the one before: (P+1) × Crawl-delay. A slow host
// needs robots.txt, its home, then its P pages PerHost at a time, each
// taking its latency: (2 + ⌈P/PerHost⌉) × latency.
func (b *Broad) IdealTime() time.Duration {
	var ideal time.Duration
	o := b.opts
	for i := 1; i <= o.Hosts; i++ {
		var t time.Duration
		switch BroadClassOf(i) {
		case BroadDelayed:
			t = time.Duration(o.Pages+1) * o.CrawlDelay
		case BroadSlow:
			t = time.Duration(2+(o.Pages+o.PerHost-1)/o.PerHost) * BroadLatency(i)
		}
		ideal = max(ideal, t)
	}
	return ideal
}

// arrive records a request to host i that arrived at now and returns the
// function that records its end.
func (b *Broad) arrive(i int, path string, now time.Time) (done func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total == 0 {
		b.start = now
	}
	b.total++
	h := &b.hosts[i-1]
	if h.paths == nil {
		h.paths = map[string]int{}
	}
	h.paths[path]++
	h.requests++
	if h.active >= b.opts.PerHost {
		h.crowded++
	}
	h.active++
	h.maxActive = max(h.maxActive, h.active)
	if !h.last.IsZero() {
		// Requests on two connections may be handled in another order than
		// they arrived: the gap is the distance between the two times.
		gap := now.Sub(h.last).Abs()
		if h.gaps == 0 || gap < h.minGap {
			h.minGap = gap
		}
		h.gaps++
		if BroadClassOf(i) == BroadDelayed && gap < b.opts.CrawlDelay {
			h.early++
			if len(b.early) < maxEarly {
				b.early = append(b.early, BroadEarly{Host: b.HostName(i), Path: path, PrevPath: h.lastPath,
					GapMS: float64(gap) / float64(time.Millisecond), AtS: now.Sub(b.start).Seconds()})
			}
		}
	}
	if now.After(h.last) {
		h.last, h.lastPath = now, path
	}
	return func() {
		b.mu.Lock()
		h.active--
		b.mu.Unlock()
	}
}

// Reset forgets every request recorded.
func (b *Broad) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hosts = make([]broadHost, b.opts.Hosts)
	b.start, b.total, b.early = time.Time{}, 0, nil
}

// Stats returns what the site recorded since NewBroad or the last Reset.
func (b *Broad) Stats() BroadStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := BroadStats{MinDelayGapMS: -1, IdealS: b.IdealTime().Seconds(), Hosts: map[string]int{}}
	var fast []float64
	for idx := range b.hosts {
		i, h := idx+1, &b.hosts[idx]
		class := BroadClassOf(i)
		st.Hosts[class.String()]++
		want := b.PerfectRequests(i)
		st.Requests += h.requests
		st.Expected += want
		st.Excess += max(0, h.requests-want)
		st.Missing += max(0, want-h.requests)
		for _, n := range h.paths {
			st.Duplicates += n - 1
		}
		st.EarlyRequests += h.early
		st.Crowded += h.crowded
		st.MaxPerHost = max(st.MaxPerHost, h.maxActive)
		var done float64
		if h.requests > 0 {
			done = h.last.Sub(b.start).Seconds()
		}
		switch class {
		case BroadNormal, BroadSlow:
			fast = append(fast, done)
		case BroadDelayed:
			st.DelayedDoneMaxS = max(st.DelayedDoneMaxS, done)
			if ms := float64(h.minGap) / float64(time.Millisecond); h.gaps > 0 && (st.MinDelayGapMS < 0 || ms < st.MinDelayGapMS) {
				st.MinDelayGapMS = ms
			}
		}
	}
	st.Violations = st.EarlyRequests + st.Crowded
	st.Early = slices.Clone(b.early)
	if len(fast) > 0 {
		slices.Sort(fast)
		st.FastDoneMaxS = fast[len(fast)-1]
		st.FastDoneMedianS = fast[len(fast)/2]
		if len(fast)%2 == 0 {
			st.FastDoneMedianS = (fast[len(fast)/2-1] + fast[len(fast)/2]) / 2
		}
	}
	return st
}

// serveControl answers GET /__demosite/stats (BroadStats as JSON) and
// POST /__demosite/reset (204 after a Reset).
func (b *Broad) serveControl(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == controlPrefix+"stats" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		body, err := json.Marshal(b.Stats())
		if err != nil {
			panic("demosite: encoding broad stats: " + err.Error())
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(body, '\n'))
	case r.URL.Path == controlPrefix+"reset" && r.Method == http.MethodPost:
		b.Reset()
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}
