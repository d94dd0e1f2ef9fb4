package hostpace

import (
	"testing"
	"time"
)

// TestAutoThrottleAdjust checks the delay maths against Scrapy's
// AutoThrottle._adjust_delay, worked by hand.
func TestAutoThrottleAdjust(t *testing.T) {
	a := AutoThrottle{Min: 0, Start: 5 * time.Second, Max: 60 * time.Second, Target: 1, BackoffFloor: 250 * time.Millisecond}
	ms := time.Millisecond
	tests := []struct {
		name        string
		a           AutoThrottle
		cur, lat    time.Duration
		status      int
		floor, want time.Duration
	}{
		{"mean of delay and latency", a, 5000 * ms, 1000 * ms, 200, 0, 3000 * ms},
		{"latency above the delay: at once", a, 100 * ms, 3000 * ms, 200, 0, 3000 * ms},
		{"target concurrency divides the latency", AutoThrottle{Max: time.Minute, Target: 4}, 1000 * ms, 2000 * ms, 200, 0, 750 * ms},
		{"clamped to the maximum", a, 50 * time.Second, 90 * time.Second, 200, 0, 60 * time.Second},
		{"clamped to --delay", AutoThrottle{Min: 2 * time.Second, Max: time.Minute, Target: 1}, 2 * time.Second, 10 * ms, 200, 0, 2 * time.Second},
		{"clamped to Crawl-delay", a, 1000 * ms, 10 * ms, 200, 800 * ms, 800 * ms},
		{"non-200 may not lower the delay", a, 5000 * ms, 100 * ms, 404, 0, 5000 * ms},
		{"non-200 may raise it", a, 100 * ms, 3000 * ms, 500, 0, 3000 * ms},
		{"zero latency halves the delay", a, 1000 * ms, 0, 200, 0, 500 * ms},
	}
	for _, tt := range tests {
		if got := tt.a.Adjust(tt.cur, tt.lat, tt.status, tt.floor); got != tt.want {
			t.Errorf("%s: Adjust(%s, %s, %d) = %s, want %s", tt.name, tt.cur, tt.lat, tt.status, got, tt.want)
		}
	}
}

func TestAutoThrottleBackoff(t *testing.T) {
	a := AutoThrottle{Max: 10 * time.Second, Target: 1, BackoffFloor: 250 * time.Millisecond}
	for _, tt := range []struct{ cur, want time.Duration }{
		{0, 250 * time.Millisecond},
		{100 * time.Millisecond, 250 * time.Millisecond},
		{time.Second, 2 * time.Second},
		{8 * time.Second, 10 * time.Second},
	} {
		if got := a.Backoff(tt.cur, 0); got != tt.want {
			t.Errorf("Backoff(%s) = %s, want %s", tt.cur, got, tt.want)
		}
	}
}

func TestThrottleDebugFormat(t *testing.T) {
	got := DebugLine("a.test:443", 3, 5*time.Second, 3*time.Second, time.Second, 1234, 200)
	want := "autothrottle: slot: a.test:443 | conc: 3 | delay: 3000 ms (-2000) | latency: 1000 ms | size:  1234 bytes | status: 200"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}
