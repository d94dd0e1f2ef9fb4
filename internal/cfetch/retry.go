package cfetch

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryPolicy decides whether an attempt is retried and how long to wait
// first (Scrapy's RetryMiddleware with a backoff). The wait happens inside
// the worker: in this version a request waiting for its retry holds its
// concurrency slot.
type retryPolicy struct {
	max      int
	codes    map[int]bool
	backoff  time.Duration
	afterMax time.Duration
	// jitter returns a number in [0, 1); tests fix it.
	jitter func() float64
}

func newRetryPolicy(o *Options) retryPolicy {
	codes := make(map[int]bool, len(o.RetryCodes))
	for _, c := range o.RetryCodes {
		codes[c] = true
	}
	return retryPolicy{max: o.Retries, codes: codes, backoff: o.RetryBackoff, afterMax: o.RetryAfterMax, jitter: rand.Float64}
}

// decide looks at an attempt's outcome, given the retries already spent on
// the request (including those it carried in), and says whether to retry
// and after how long. warning, when not empty, explains a retry not done.
func (p retryPolicy) decide(out *outcome, used int, now time.Time) (wait time.Duration, again bool, warning string) {
	switch {
	case out.err != nil && !retryableErrors[out.err.Code]:
		return 0, false, ""
	case out.err == nil && !p.codes[out.status]:
		return 0, false, ""
	case used >= p.max:
		return 0, false, ""
	}
	wait = p.delay(used, p.jitter())
	if out.err == nil && (out.status == http.StatusTooManyRequests || out.status == http.StatusServiceUnavailable) {
		if v := out.header.Get("Retry-After"); v != "" {
			if ra, ok := parseRetryAfter(v, now); ok {
				if ra > p.afterMax {
					return 0, false, fmt.Sprintf("not retried: Retry-After %s is over --retry-after-max %s", ra, p.afterMax)
				}
				wait = ra
			}
		}
	}
	return wait, true, ""
}

// delay is the backoff before retry number n+1 (n retries already done):
// backoff × 2ⁿ, times a jitter factor between 0.5 and 1.5 (r in [0, 1)),
// at most MaxBackoff.
func (p retryPolicy) delay(n int, r float64) time.Duration {
	d := float64(p.backoff)
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
