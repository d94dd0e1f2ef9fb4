package cfetch

import (
	"fmt"
	"net/http"
	"time"

	"github.com/crawlutils/crawlutils/internal/hostpace"
)

// retryPolicy decides whether an exchange is retried (Scrapy's
// RetryMiddleware) and how long its backoff is (delay). The scheduler
// applies the waits, each request's own and its host's rests
// (hostpace.Rest): a request waiting for its retry holds no concurrency
// slot.
type retryPolicy struct {
	max      int
	codes    map[int]bool
	backoff  time.Duration // a request's retries
	afterMax time.Duration
}

func newRetryPolicy(o *Options) retryPolicy {
	codes := make(map[int]bool, len(o.RetryCodes))
	for _, c := range o.RetryCodes {
		codes[c] = true
	}
	return retryPolicy{max: o.Retries, codes: codes, backoff: o.RetryBackoff, afterMax: o.RetryAfterMax}
}

// retryable reports whether an outcome is a failure worth a retry, budget
// aside.
func (p retryPolicy) retryable(out *outcome) bool {
	if out.err != nil {
		return retryableErrors[out.err.Code]
	}
	return p.codes[out.status]
}

// decide looks at an exchange's outcome, given the retries already spent
// on the request (including those it carried in), and says whether to
// retry, and the Retry-After of a 429 or 503 when it had a usable one.
// warning, when not empty, explains a retry not done.
func (p retryPolicy) decide(out *outcome, used int, now time.Time) (again bool, retryAfter time.Duration, hasRetryAfter bool, warning string) {
	if !p.retryable(out) || used >= p.max {
		return false, 0, false, ""
	}
	if ra, ok := out.retryAfter(now); ok {
		if ra > p.afterMax {
			return false, 0, false, fmt.Sprintf("not retried: Retry-After %s is over --retry-after-max %s", waitText(ra), p.afterMax)
		}
		return true, ra, true, ""
	}
	return true, 0, false, ""
}

// waitText writes a wait for a message: to the second, and absurd ones (a
// Retry-After of 10^20 seconds reads as the largest Duration) as such.
func waitText(d time.Duration) string {
	if d >= 100*365*24*time.Hour {
		return "over 100 years"
	}
	return d.Round(time.Second).String()
}

// retryAfter is the Retry-After of a 429 or 503 response, if it has one
// that parses.
func (o *outcome) retryAfter(now time.Time) (time.Duration, bool) {
	if o.err != nil || (o.status != http.StatusTooManyRequests && o.status != http.StatusServiceUnavailable) {
		return 0, false
	}
	v := o.header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	return hostpace.ParseRetryAfter(v, now)
}

// delay is the backoff before retry number n+1 (n retries already done):
// backoff × 2ⁿ, times a jitter factor between 0.5 and 1.5 (r in [0, 1)),
// at most MaxBackoff.
func (p retryPolicy) delay(n int, r float64) time.Duration {
	return hostpace.Grow(p.backoff, n, r)
}
