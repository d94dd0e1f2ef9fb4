package cfetch

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryDecide(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := DefaultOptions()
	p := newRetryPolicy(&opts)
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name  string
		out   outcome
		used  int
		again bool
		ra    time.Duration // Retry-After honoured; -1: none
		warn  string
	}{
		{"200", outcome{status: 200}, 0, false, -1, ""},
		{"404", outcome{status: 404}, 0, false, -1, ""},
		{"503", outcome{status: 503}, 0, true, -1, ""},
		{"503, second retry", outcome{status: 503}, 1, true, -1, ""},
		{"503, budget spent", outcome{status: 503}, 2, false, -1, ""},
		{"503, budget overspent by the request", outcome{status: 503}, 5, false, -1, ""},
		{"429 Retry-After seconds", outcome{status: 429, header: hdr("Retry-After", "7")}, 0, true, 7 * time.Second, ""},
		{"503 Retry-After date", outcome{status: 503, header: hdr("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat))}, 0, true, 30 * time.Second, ""},
		{"429 Retry-After in the past", outcome{status: 429, header: hdr("Retry-After", "Mon, 01 Jan 2001 00:00:00 GMT")}, 0, true, 0, ""},
		{"429 Retry-After too long", outcome{status: 429, header: hdr("Retry-After", "61")}, 0, false, -1, "not retried: Retry-After 1m1s is over --retry-after-max 1m0s"},
		{"429 Retry-After a year", outcome{status: 429, header: hdr("Retry-After", "31536000")}, 0, false, -1, "not retried: Retry-After 8760h0m0s is over --retry-after-max 1m0s"},
		{"429 Retry-After absurd", outcome{status: 429, header: hdr("Retry-After", "999999999999999999999")}, 0, false, -1, "not retried: Retry-After over 100 years is over --retry-after-max 1m0s"},
		{"429 Retry-After garbage", outcome{status: 429, header: hdr("Retry-After", "soon")}, 0, true, -1, ""},
		{"500 Retry-After ignored", outcome{status: 500, header: hdr("Retry-After", "3600")}, 0, true, -1, ""},
		{"timeout", outcome{err: &FetchError{Code: ErrTimeout}}, 0, true, -1, ""},
		{"reset", outcome{err: &FetchError{Code: ErrReset}}, 0, true, -1, ""},
		{"dns", outcome{err: &FetchError{Code: ErrDNS}}, 0, false, -1, ""},
		{"robots", outcome{err: &FetchError{Code: ErrRobots}}, 0, false, -1, ""},
		{"too_large", outcome{err: &FetchError{Code: ErrTooLarge}, status: 200}, 0, false, -1, ""},
		{"redirect_loop", outcome{err: &FetchError{Code: ErrRedirectLoop}}, 0, false, -1, ""},
		{"decode", outcome{err: &FetchError{Code: ErrDecode}, status: 200}, 0, false, -1, ""},
	}
	for _, tt := range tests {
		again, ra, hasRA, warn := p.decide(&tt.out, tt.used, now)
		if !hasRA {
			ra = -1
		}
		if again != tt.again || ra != tt.ra || warn != tt.warn {
			t.Errorf("%s: decide = %v %s %q, want %v %s %q", tt.name, again, ra, warn, tt.again, tt.ra, tt.warn)
		}
	}
}
