package hostpace

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

// Answer is what one exchange with a host says about it.
type Answer struct {
	Status  int       // the HTTP status; 0 when none came (a network error)
	Failed  bool      // a failure worth a retry: a retryable status or network error
	Started time.Time // when the exchange started
	// RetryAfter is the answer's Retry-After (see ParseRetryAfter), when
	// HasRetryAfter.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

// RestPolicy says how long a host in trouble rests.
type RestPolicy struct {
	// Backoff is a host's first rest in a row (--rest-backoff), doubled
	// for each further one, ±50% jitter, at most MaxBackoff.
	Backoff time.Duration
	// RetryAfterMax is the longest Retry-After honoured (--retry-after-max).
	RetryAfterMax time.Duration
}

// Rest is the rest state of one host: when it may start requests again,
// and the recent answers that decide whether it is in trouble. The zero
// value is a host with no history, not resting. Not safe for concurrent
// use: its owner (a scheduler) serializes the calls.
type Rest struct {
	// The host rests (nothing starts) until until. fails counts the
	// failures in a row, rests the rests in a row (their backoff grows),
	// restedAt is when the last rest began; recent holds the last answers
	// (a bit per answer, 1 for a failure, the newest lowest), answers how
	// many it holds (at most troubleWindow).
	until    time.Time
	fails    int
	rests    int
	restedAt time.Time
	recent   uint32
	answers  int
}

// Until is when the host's rest ends; the zero time when it never rested.
func (r *Rest) Until() time.Time { return r.until }

// Resting reports whether the host rests at now: nothing may start on it.
func (r *Rest) Resting(now time.Time) bool { return now.Before(r.until) }

// Rests is how many rests in a row the host has taken: the next one is
// Backoff × 2^Rests long. An answer that is not a failure resets it.
func (r *Rest) Rests() int { return r.rests }

// Extend makes the host rest until at least until, and reports whether
// the rest's end moved: a rest is never shortened.
func (r *Rest) Extend(until time.Time) bool {
	if !until.After(r.until) {
		return false
	}
	r.until = until
	return true
}

// inTrouble updates the failure streak and recent answers with one
// answer and says whether the host is in trouble: on any 429 (the host
// asks to slow down), or once troubleStreak failures came in a row and
// at least half of the last troubleWindow answers failed. An answer with
// a status that is not a failure ends the streak, and the growth of the
// rests.
func (r *Rest) inTrouble(a Answer) bool {
	throttled := a.Status == http.StatusTooManyRequests
	switch {
	case throttled || a.Failed:
		r.fails++
		r.recent = r.recent<<1&(1<<troubleWindow-1) | 1
		r.answers = min(r.answers+1, troubleWindow)
	case a.Status > 0:
		r.fails, r.rests = 0, 0
		r.recent = r.recent << 1 & (1<<troubleWindow - 1)
		r.answers = min(r.answers+1, troubleWindow)
	}
	return throttled || r.fails >= troubleStreak && 2*bits.OnesCount32(r.recent) >= r.answers
}

// Observe applies one answer, which came at now, and reports whether a new
// rest began, and whether the rest's end moved (a rest began or
// lengthened: the moment to tell others, see Until). A rest begins when
// the answer says the host is in trouble: any 429, or three failures in a
// row that are also half or more of its last 10 answers. It lasts the
// answer's Retry-After (at most p.RetryAfterMax) or, when longer, the
// backoff of the rests in a row: p.Backoff × 2ⁿ, times 0.5 + jitter()
// (jitter in [0, 1), called only then), at most MaxBackoff. An answer to
// an exchange started before the last rest began says nothing new (it was
// in flight when the trouble showed): it begins no other rest. Any
// Retry-After that comes while the host rests may lengthen the rest, never
// shorten it.
func (r *Rest) Observe(p RestPolicy, a Answer, now time.Time, jitter func() float64) (began, moved bool) {
	var ra time.Duration
	if a.HasRetryAfter {
		ra = min(a.RetryAfter, p.RetryAfterMax)
	}
	if !r.inTrouble(a) || a.Started.Before(r.restedAt) {
		if r.Resting(now) {
			moved = r.Extend(now.Add(ra))
		}
		return false, moved
	}
	d := max(ra, Grow(p.Backoff, r.rests, jitter()))
	r.rests++
	r.restedAt = now
	return true, r.Extend(now.Add(d))
}
