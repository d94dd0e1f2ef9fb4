package cfetch

import (
	"time"

	"github.com/crawlutils/crawlutils/internal/hostpace"
	"golang.org/x/time/rate"
)

// hostIdleTTL is how long an idle host's state (delay, AutoThrottle,
// backoff) is kept; then it is forgotten, so memory does not grow with the
// number of hosts seen. robots.txt answers are kept apart (robotsCache).
const hostIdleTTL = time.Minute

// host is the politeness state of one host:port.
type host struct {
	key     string
	queue   jobQueue // ready to start
	waiting []*job   // retries not before some time, earliest first
	active  int      // exchanges running
	unsent  int      // of those, started with a delay and not yet written (scheduler_wire.go)

	lim        *rate.Limiter // the delay between starts; nil for none
	delay      time.Duration // the current delay, before jitter
	throttle   time.Duration // AutoThrottle's delay
	told       time.Duration // the throttle last told to scheduler.throttled
	crawlDelay time.Duration // robots.txt Crawl-delay, capped
	lastStart  time.Time

	// rest: the host rests (nothing starts) after a 429, or failures in
	// a row (scheduler_rest.go).
	rest hostpace.Rest

	robotsPending bool // a robots.txt fetch is queued or running
	listed        bool // in scheduler.pending
	idleSince     time.Time

	// nextTry, when set, is a time before which nothing can start on the
	// host unless something happens to it (a job added, an exchange
	// ended, its delay changed): next and wake skip it until then, so a
	// crawl with many delayed hosts does not re-examine each on every
	// event. Reset by touch.
	nextTry time.Time
}

// touch forgets h.nextTry: something changed.
func (h *host) touch() { h.nextTry = time.Time{} }

// host returns the state of key, creating it.
func (s *scheduler) host(key string, now time.Time) *host {
	h := s.hosts[key]
	if h == nil {
		h = &host{key: key, idleSince: now}
		if s.opts.AutoThrottle {
			h.throttle = s.at.Start
		}
		s.hosts[key] = h
		s.setRate(h, now)
	}
	return h
}

// readyAt is when h's delay lets the next request start, at or after t.
// Times are rounded to the microsecond: a start less than 1µs early is
// on time.
func (h *host) readyAt(t time.Time) time.Time {
	if h.lim == nil {
		return t
	}
	tok := h.lim.TokensAt(t)
	if tok >= 1 {
		return t
	}
	wait := time.Duration((1 - tok) / float64(h.lim.Limit()) * float64(time.Second))
	if wait <= time.Microsecond {
		return t
	}
	return t.Add(wait.Round(time.Microsecond))
}

// start counts j as running on h and spends h's delay.
func (s *scheduler) start(h *host, j *job, now time.Time) {
	h.active++
	s.active++
	j.freed = false
	j.prevStart, j.thisStart = h.lastStart, now
	h.lastStart = now
	if j.started.IsZero() {
		j.started = now
	}
	if h.lim != nil {
		s.setRate(h, now) // spend the delay, with a new random factor
	}
	s.pace(h, j)
}

// delayOf is h's delay between starts: the fixed --delay or the
// robots.txt Crawl-delay, whichever is longer, or AutoThrottle's delay.
func (s *scheduler) delayOf(h *host) time.Duration {
	floor := max(s.opts.Delay, h.crawlDelay)
	if s.opts.AutoThrottle {
		return max(h.throttle, floor)
	}
	return floor
}

// setRate applies h's delay: a token bucket of one token that refills in
// the delay (times a random factor between 0.5 and 1.5 unless
// --no-random-delay, but never below a Crawl-delay), emptied at the last
// start. So, as in Scrapy's
// downloader, the next start is the last start plus the current delay,
// even when the delay has just changed.
func (s *scheduler) setRate(h *host, now time.Time) {
	h.touch()
	d := s.delayOf(h)
	h.delay = d
	if s.throttled != nil && s.opts.AutoThrottle && h.throttle != h.told {
		h.told = h.throttle
		s.throttled(h.key, h.throttle)
	}
	if d <= 0 {
		h.lim = nil
		return
	}
	if s.opts.RandomDelay {
		// Never below a Crawl-delay: that is the site's own minimum.
		d = max(time.Duration(float64(d)*(0.5+s.rand())), h.crawlDelay)
	}
	h.lim = rate.NewLimiter(rate.Every(max(d, time.Microsecond)), 1)
	if !h.lastStart.IsZero() {
		h.lim.ReserveN(h.lastStart, 1)
	}
}

// evict forgets idle hosts: nothing queued or running, no pause pending,
// idle for hostIdleTTL. It runs at most once a second.
func (s *scheduler) evict(now time.Time) {
	if now.Sub(s.lastSweep) < time.Second {
		return
	}
	s.lastSweep = now
	for k, h := range s.hosts {
		if h.active == 0 && !h.listed && !h.robotsPending && !h.rest.Resting(now) && now.Sub(h.idleSince) >= hostIdleTTL {
			delete(s.hosts, k)
		}
	}
}

// snapshot summarizes the hosts for the progress line.
func (s *scheduler) snapshot(now time.Time) (hosts, paused int, maxDelay time.Duration) {
	for _, h := range s.hosts {
		hosts++
		if h.rest.Resting(now) {
			paused++
		}
		maxDelay = max(maxDelay, h.delay)
	}
	return hosts, paused, maxDelay
}
