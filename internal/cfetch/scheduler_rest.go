package cfetch

import (
	"net/http"
	"time"

	"github.com/crawlutils/crawlutils/internal/hostpace"
)

// newAutoThrottle is AutoThrottle as the options set it.
func newAutoThrottle(o *Options) hostpace.AutoThrottle {
	return hostpace.AutoThrottle{
		Min:          o.Delay,
		Start:        max(o.Delay, o.ThrottleStart),
		Max:          o.ThrottleMax,
		Target:       o.ThrottleTarget,
		BackoffFloor: o.RetryBackoff,
	}
}

// rest applies one exchange to h's rest (hostpace.Rest.Observe: a 429,
// or three failures in a row that are half or more of the last 10
// answers, make the host rest, for its Retry-After or the growing
// --rest-backoff), and reports whether a new rest began. This is the one
// place the server's word makes a host rest, so it is also where the rest
// is shared: s.shared, when set (--throttle-db, --throttle-redis), writes
// each rest that begins or lengthens as a hold for every cthrottle on the
// same schedule (holds.go), without waiting.
func (s *scheduler) rest(h *host, f *finish, now time.Time) bool {
	a := hostpace.Answer{
		Status: f.status, Failed: f.failed, Started: f.j.thisStart,
		RetryAfter: f.retryAfter, HasRetryAfter: f.hasRetryAfter,
	}
	began, moved := h.rest.Observe(s.restPolicy, a, now, s.rand)
	if moved && s.shared != nil {
		s.shared(h.key, f.j.url, h.rest.Until())
	}
	if began && s.count != nil {
		s.count("rests", restReason(f))
	}
	return began
}

// restReason names what made a host rest, for the stats.
func restReason(f *finish) string {
	if f.status == http.StatusTooManyRequests {
		return "429"
	}
	return "failures"
}
