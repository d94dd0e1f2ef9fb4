package cfetch

import (
	"time"

	"github.com/crawlutils/crawlutils/internal/hostpace"
)

// finishKind says what became of a job handed to a worker or the emitter.
type finishKind int

const (
	finDone     finishKind = iota // the worker wrote the response record
	finRetry                      // retry the hop after a wait
	finRedirect                   // fetch the job's next hop
	finRobots                     // a robots.txt fetch ended
	finEmitted                    // the emitter wrote a held record
)

// finish is a worker's report to the scheduler: what to do with the job,
// and what the exchange says about the host.
type finish struct {
	kind finishKind
	j    *job
	key  string // the host the exchange ran on

	status        int
	latency       time.Duration
	size          int64
	cached        bool // answered from the HTTP cache: no network used
	failed        bool // a failure worth a retry (network error, retry code)
	retryAfter    time.Duration
	hasRetryAfter bool
	robots        robotsVerdict
	resp          *response // finDone: the record, for the worker to write
}

// finish applies a worker's report.
func (s *scheduler) finish(f *finish, now time.Time) {
	if f.kind == finEmitted {
		s.held--
		return
	}
	j := f.j
	if f.cached {
		s.unpace(j) // no network: nothing arrived anywhere
	} else {
		s.ended(j, now)
	}
	h := s.hosts[f.key]
	if j.freed {
		j.freed = false // documentDone counted the exchange's end
	} else {
		h.active--
		s.active--
	}
	h.idleSince = now
	h.touch()
	if f.cached {
		// A cache hit does not spend the delay.
		if h.lastStart.Equal(j.thisStart) {
			h.lastStart = j.prevStart
			s.setRate(h, now)
		}
	} else {
		s.feedback(h, f, now)
	}
	switch f.kind {
	case finDone:
		s.held--
	case finRobots:
		s.robotsDone(h, j, f.robots, now)
	case finRedirect:
		s.add(j, now)
	case finRetry:
		if s.interrupted {
			s.answers = append(s.answers, s.cut(j))
			return
		}
		j.retries++
		j.notBefore = now.Add(s.retryWait(j, f))
		s.add(j, now)
	}
}

// documentDone is the end of the exchange of j, a page being rendered,
// started at start: its document has been read (or its load failed) and
// the page goes on in the browser. Its requests from there on are held
// to --per-host apart (render_hold.go), so the page no longer takes one
// of its host's --per-host slots, nor one of --concurrency: on a site
// whose pages wait seconds for their scripts, the host's other requests
// go on meanwhile. A host with a delay counts it from now, if it has not
// from the send. A report for another exchange of j changes nothing;
// finish does the rest.
func (s *scheduler) documentDone(j *job, start, now time.Time) {
	h := s.hosts[j.key]
	if j.freed || !j.thisStart.Equal(start) || h == nil {
		return
	}
	s.ended(j, now)
	h.active--
	s.active--
	j.freed = true
	h.touch()
}

// feedback updates h from one exchange: the failure streak, a rest when
// the host is in trouble (scheduler_rest.go), and AutoThrottle, which
// follows the latency and backs off when a rest begins. One failure among
// successes changes nothing for the host: only that request's retry waits
// (retryWait).
func (s *scheduler) feedback(h *host, f *finish, now time.Time) {
	old := h.throttle
	rested := s.rest(h, f, now)
	if s.opts.AutoThrottle {
		switch {
		case rested:
			h.throttle = s.at.Backoff(h.throttle, h.crawlDelay)
		case f.status > 0 && f.latency > 0:
			h.throttle = s.at.Adjust(h.throttle, f.latency, f.status, h.crawlDelay)
		}
	}
	if s.opts.AutoThrottle && f.status > 0 {
		if h.throttle != old {
			s.setRate(h, now)
		}
		if s.debug != nil {
			s.debug(hostpace.DebugLine(h.key, h.active, old, h.throttle, f.latency, f.size, f.status))
		}
	}
}

// retryWait is how long a retried job waits: the backoff of its own
// retries (retryBackoff), and at least the Retry-After of its 429 or 503
// when it came with one (at most --retry-after-max). A host that rests
// holds it longer.
func (s *scheduler) retryWait(j *job, f *finish) time.Duration {
	d := s.retryBackoff(j)
	if f.hasRetryAfter {
		d = max(d, min(f.retryAfter, s.opts.RetryAfterMax))
	}
	return d
}

// retryBackoff is the backoff before j's next attempt, j.retries already
// counting it: --retry-backoff × 2ⁿ for its n-th retry (the retries it
// carried in included), ±50% jitter, at most MaxBackoff.
func (s *scheduler) retryBackoff(j *job) time.Duration {
	return s.retry.delay(max(j.req.Retries+j.retries-1, 0), s.rand())
}
