package cfetch

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryPolicy decides whether an exchange is retried (Scrapy's
// RetryMiddleware) and how long a backoff is (delay). The scheduler
// applies the waits, each request's own and its host's rests: a request
// waiting for its retry holds no concurrency slot.
type retryPolicy struct {
	max      int
	codes    map[int]bool
	backoff  time.Duration // a request's retries
	rest     time.Duration // a host's rests
	afterMax time.Duration
}

func newRetryPolicy(o *Options) retryPolicy {
	codes := make(map[int]bool, len(o.RetryCodes))
	for _, c := range o.RetryCodes {
		codes[c] = true
	}
	return retryPolicy{max: o.Retries, codes: codes, backoff: o.RetryBackoff, rest: o.RestBackoff, afterMax: o.RetryAfterMax}
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
	return parseRetryAfter(v, now)
}

// delay is the backoff before retry number n+1 (n retries already done):
// backoff × 2ⁿ, times a jitter factor between 0.5 and 1.5 (r in [0, 1)),
// at most MaxBackoff.
func (p retryPolicy) delay(n int, r float64) time.Duration {
	return grow(p.backoff, n, r)
}

// restDelay is the length of a host's rest number n+1 in a row: rest × 2ⁿ,
// with the same jitter and cap.
func (p retryPolicy) restDelay(n int, r float64) time.Duration {
	return grow(p.rest, n, r)
}

// grow is base × 2ⁿ × (0.5 + r), at most MaxBackoff.
func grow(base time.Duration, n int, r float64) time.Duration {
	d := float64(base)
	for i := 0; i < n && d < float64(MaxBackoff); i++ {
		d *= 2
	}
	d *= 0.5 + r
	if d > float64(MaxBackoff) {
		return MaxBackoff
	}
	return time.Duration(d)
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP
// date (RFC 9110 §10.2.3). A date in the past means no wait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return time.Duration(1<<63 - 1), true
			}
			return 0, false
		}
		if n > uint64((1<<63-1)/time.Second) {
			return time.Duration(1<<63 - 1), true
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if d := t.Sub(now); d > 0 {
		return d, true
	}
	return 0, true
}
