package cfetch

import (
	"net/url"
	"sync"
	"time"
)

// renderPace spaces the requests of rendered pages to one host by the
// host's floor delay — --delay, and the Crawl-delay of its robots.txt
// (capped by --autothrottle-max-delay, as the scheduler caps it) — the
// least time the scheduler keeps between two starts of cfetch's own
// requests there. The page's own request counts as a start, so its
// subrequests come at least that long after it and after each other.
// With --autothrottle, the host's AutoThrottle delay spaces them too, as
// the scheduler last set it (throttled); their latencies do not feed it.
// --per-host bounds them too (render_hold.go). Safe for concurrent use; the
// zero value spaces nothing until used.
type renderPace struct {
	mu       sync.Mutex
	last     map[string]time.Time     // host key → the last start
	throttle map[string]time.Duration // host key → AutoThrottle's delay
}

// throttled records key's AutoThrottle delay, d (scheduler.throttled).
func (p *renderPace) throttled(key string, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.throttle == nil {
		p.throttle = map[string]time.Duration{}
	}
	if len(p.throttle) >= robotsCacheSize {
		clear(p.throttle)
	}
	p.throttle[key] = d
}

// throttleOf is key's AutoThrottle delay as last recorded, 0 for none.
func (p *renderPace) throttleOf(key string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.throttle[key]
}

// started records a start on key at now without waiting (the page's
// own request, which the scheduler paced).
func (p *renderPace) started(key string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		p.last = map[string]time.Time{}
	}
	if len(p.last) >= robotsCacheSize {
		clear(p.last)
	}
	if now.After(p.last[key]) {
		p.last[key] = now
	}
}

// slot reserves the next start on key at least d after the last one, and
// returns how long to wait for it from now.
func (p *renderPace) slot(key string, d time.Duration, now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		p.last = map[string]time.Time{}
	}
	t := now
	if last, ok := p.last[key]; ok && last.Add(d).After(t) {
		t = last.Add(d)
	}
	p.last[key] = t
	return t.Sub(now)
}

// paceSubrequest waits until a request of a rendered page to u may start.
func (f *Fetcher) paceSubrequest(u *url.URL) {
	key := hostKey(u)
	d := f.subrequestDelay(key)
	if d <= 0 {
		return
	}
	if wait := f.render.pace.slot(key, d, f.now()); wait > 0 {
		time.Sleep(wait) // only this request waits: Check runs in a goroutine of its own
	}
}

// subrequestDelay is the least time between two starts of rendered
// pages' requests on key: --delay, its Crawl-delay (capped), and its
// AutoThrottle delay, whichever is longest.
func (f *Fetcher) subrequestDelay(key string) time.Duration {
	return max(f.opts.Delay, min(f.render.robots.crawlDelay(key), f.opts.ThrottleMax), f.render.pace.throttleOf(key))
}

// crawlDelay is the Crawl-delay of key's robots.txt as rendered pages
// know it, 0 when none is known.
func (rr *renderRobots) crawlDelay(key string) time.Duration {
	rr.mu.Lock()
	h := rr.hosts[key]
	rr.mu.Unlock()
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.entry == nil || h.entry.rules == nil {
		return 0
	}
	return h.entry.crawlDelay()
}
