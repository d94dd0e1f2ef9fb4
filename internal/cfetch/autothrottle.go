package cfetch

import (
	"fmt"
	"net/http"
	"time"
)

// autoThrottle is Scrapy's AutoThrottle algorithm, as pure functions of a
// host's current delay: the scheduler keeps one delay per host and asks
// these for the next one. The zero value is not useful; see newAutoThrottle.
type autoThrottle struct {
	min    time.Duration // DOWNLOAD_DELAY: the delay never goes below it
	start  time.Duration // AUTOTHROTTLE_START_DELAY (at least min)
	max    time.Duration // AUTOTHROTTLE_MAX_DELAY
	target float64       // AUTOTHROTTLE_TARGET_CONCURRENCY
	// backoffFloor is the least delay a host's rest leaves (--retry-backoff).
	backoffFloor time.Duration
}

func newAutoThrottle(o *Options) autoThrottle {
	return autoThrottle{
		min:          o.Delay,
		start:        max(o.Delay, o.ThrottleStart),
		max:          o.ThrottleMax,
		target:       o.ThrottleTarget,
		backoffFloor: o.RetryBackoff,
	}
}

// clamp keeps d between floor (the fixed delay, or a robots.txt
// Crawl-delay when larger) and the maximum.
func (a autoThrottle) clamp(d, floor time.Duration) time.Duration {
	return min(max(d, a.min, floor), a.max)
}

// adjust is Scrapy's AutoThrottle._adjust_delay: after a response with
// status whose latency (connect to response headers) was latency, the
// delay moves to the mean of the current delay and latency / target — or
// to latency / target at once when that is larger — clamped between floor
// and the maximum. A non-200 response may not lower the delay (error pages
// are small and fast, and would otherwise speed the crawl up).
func (a autoThrottle) adjust(cur, latency time.Duration, status int, floor time.Duration) time.Duration {
	target := time.Duration(float64(latency) / a.target)
	next := max((cur+target)/2, target)
	next = a.clamp(next, floor)
	if status != http.StatusOK && next <= cur {
		return cur
	}
	return next
}

// backoff is cfetch's addition for a host that begins to rest (a 429, or
// failures in a row), which AutoThrottle ignores: the delay doubles (at
// least to --retry-backoff), within the same bounds. One failure among
// successes only adjusts the delay by its latency.
func (a autoThrottle) backoff(cur, floor time.Duration) time.Duration {
	return a.clamp(max(2*cur, a.backoffFloor), floor)
}

// throttleDebug is the line --autothrottle-debug prints, in Scrapy's
// format.
func throttleDebug(key string, conc int, old, cur, latency time.Duration, size int64, status int) string {
	return fmt.Sprintf("autothrottle: slot: %s | conc:%2d | delay:%5d ms (%+d) | latency:%5d ms | size:%6d bytes | status: %d",
		key, conc, cur.Milliseconds(), (cur - old).Milliseconds(), latency.Milliseconds(), size, status)
}
