package cfetch

import (
	"math/bits"
	"net/http"
	"time"
)

// troubleStreak is how many failures in a row (retryable statuses,
// network errors) make a host rest, when they are also at least half of
// its last troubleWindow answers. One failure among successes is the
// page's problem: only its own retry waits. Three in a row is the host's:
// with 1% of the answers failing at random, three in a row come once in a
// million answers, while a host that fails everything (down, refusing
// connections, 503 to all) gets there with its first three answers,
// within a few milliseconds at --per-host 8. The window keeps a burst of
// quick failures among a healthy host's answers from counting as trouble:
// an error page is answered faster than a page, so the few failures of
// one batch of 16 requests started together come back first, in a row,
// and on the demo site (3% of pages failing once) rested the host 2-4
// times a crawl, each for a Retry-After. docs/cfetch.md has the
// measurements.
const (
	troubleStreak = 3
	troubleWindow = 10
)

// inTrouble updates h's failure streak and recent answers with one
// exchange's outcome and says whether the host is in trouble: on any 429
// (the host asks to slow down), or once troubleStreak failures came in a
// row and at least half of the last troubleWindow answers failed. A
// response that is not a failure ends the streak, and the growth of the
// rests.
func (s *scheduler) inTrouble(h *host, f *finish) bool {
	throttled := f.status == http.StatusTooManyRequests
	switch {
	case throttled || f.failed:
		h.fails++
		h.recent = h.recent<<1&(1<<troubleWindow-1) | 1
		h.answers = min(h.answers+1, troubleWindow)
	case f.status > 0:
		h.fails, h.rests = 0, 0
		h.recent = h.recent << 1 & (1<<troubleWindow - 1)
		h.answers = min(h.answers+1, troubleWindow)
	}
	return throttled || h.fails >= troubleStreak && 2*bits.OnesCount32(h.recent) >= h.answers
}

// rest applies one exchange to h's rest, and reports whether a new rest
// began: when the exchange says the host is in trouble (inTrouble). The
// rest is the host's Retry-After (at most --retry-after-max) or, when
// longer, the backoff of the rests in a row: --rest-backoff × 2ⁿ, ±50%
// jitter, at most MaxBackoff. An exchange started before the host's last
// rest began says nothing new (it was in flight when the trouble showed):
// it begins no other rest. Any Retry-After that comes while the host
// rests may lengthen the rest, never shorten it.
func (s *scheduler) rest(h *host, f *finish, now time.Time) bool {
	var ra time.Duration
	if f.hasRetryAfter {
		ra = min(f.retryAfter, s.opts.RetryAfterMax)
	}
	if !s.inTrouble(h, f) || f.j.thisStart.Before(h.restedAt) {
		if now.Before(h.pausedUntil) {
			s.restUntil(h, f, now.Add(ra))
		}
		return false
	}
	d := max(ra, s.retry.restDelay(h.rests, s.rand()))
	h.rests++
	h.restedAt = now
	s.restUntil(h, f, now.Add(d))
	if s.count != nil {
		s.count("rests", restReason(f))
	}
	return true
}

// restUntil makes h rest until at least until. This is the one place the
// server's word makes a host rest (a 429, a Retry-After, failures in a
// row), so it is also where the rest is shared: s.shared, when set
// (--throttle-db, --throttle-redis), writes it as a hold for every
// cthrottle on the same schedule (holds.go), without waiting.
func (s *scheduler) restUntil(h *host, f *finish, until time.Time) {
	if !until.After(h.pausedUntil) {
		return
	}
	h.pausedUntil = until
	if s.shared != nil {
		s.shared(h.key, f.j.url, until)
	}
}

// restReason names what made a host rest, for the stats.
func restReason(f *finish) string {
	if f.status == http.StatusTooManyRequests {
		return "429"
	}
	return "failures"
}
