package hostpace

import (
	"fmt"
	"net/http"
	"time"
)

// AutoThrottle is Scrapy's AutoThrottle algorithm, as pure functions of a
// host's current delay: the caller keeps one delay per host (starting at
// Start) and asks these for the next one. The zero value is not useful:
// Max and Target must be set. An AutoThrottle is a value, safe to share.
type AutoThrottle struct {
	Min    time.Duration // DOWNLOAD_DELAY: the delay never goes below it
	Start  time.Duration // AUTOTHROTTLE_START_DELAY, a new host's delay (at least Min)
	Max    time.Duration // AUTOTHROTTLE_MAX_DELAY
	Target float64       // AUTOTHROTTLE_TARGET_CONCURRENCY, above 0
	// BackoffFloor is the least delay a host's rest leaves (see Backoff).
	BackoffFloor time.Duration
}

// Clamp keeps d between floor (the fixed delay, or a robots.txt
// Crawl-delay when larger) and the maximum.
func (a AutoThrottle) Clamp(d, floor time.Duration) time.Duration {
	return min(max(d, a.Min, floor), a.Max)
}

// Adjust is Scrapy's AutoThrottle._adjust_delay: after a response with
// status whose latency (connect to response headers) was latency, the
// delay moves to the mean of the current delay and latency / target — or
// to latency / target at once when that is larger — clamped between floor
// and the maximum. A non-200 response may not lower the delay (error pages
// are small and fast, and would otherwise speed the crawl up).
func (a AutoThrottle) Adjust(cur, latency time.Duration, status int, floor time.Duration) time.Duration {
	target := time.Duration(float64(latency) / a.Target)
	next := max((cur+target)/2, target)
	next = a.Clamp(next, floor)
	if status != http.StatusOK && next <= cur {
		return cur
	}
	return next
}

// Backoff is crawlutils' addition for a host that begins to rest (a 429,
// or failures in a row; see Rest), which AutoThrottle ignores: the delay
// doubles (at least to BackoffFloor), within the same bounds. One failure
// among successes only adjusts the delay by its latency.
func (a AutoThrottle) Backoff(cur, floor time.Duration) time.Duration {
	return a.Clamp(max(2*cur, a.BackoffFloor), floor)
}

// DebugLine is the line of one adjustment, in Scrapy's AUTOTHROTTLE_DEBUG
// format: the host's key, its requests in flight, the delay before and
// after, and the response's latency, size and status.
func DebugLine(key string, conc int, old, cur, latency time.Duration, size int64, status int) string {
	return fmt.Sprintf("autothrottle: slot: %s | conc:%2d | delay:%5d ms (%+d) | latency:%5d ms | size:%6d bytes | status: %d",
		key, conc, cur.Milliseconds(), (cur - old).Milliseconds(), latency.Milliseconds(), size, status)
}
