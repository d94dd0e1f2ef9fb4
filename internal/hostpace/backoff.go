package hostpace

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxBackoff caps every exponential backoff: a request's retries and a
// host's rests.
const MaxBackoff = 10 * time.Second

// Grow is the backoff number n+1 in a row (n already done): base × 2ⁿ,
// times a jitter factor between 0.5 and 1.5 (r in [0, 1)), at most
// MaxBackoff.
func Grow(base time.Duration, n int, r float64) time.Duration {
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

// ParseRetryAfter reads a Retry-After header at now: delay-seconds or an
// HTTP date (RFC 9110 §10.2.3). A date in the past means no wait; a number
// too large for a Duration is the largest Duration. ok is false when v is
// neither.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
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
