package hostpace

import (
	"testing"
	"time"
)

// TestGrow: base × 2ⁿ × (0.5 + r), at most MaxBackoff.
func TestGrow(t *testing.T) {
	base := 250 * time.Millisecond
	tests := []struct {
		n    int
		r    float64
		want time.Duration
	}{
		{0, 0.5, 250 * time.Millisecond},
		{0, 0, 125 * time.Millisecond},
		{0, 0.75, 312500 * time.Microsecond},
		{1, 0.5, 500 * time.Millisecond},
		{3, 0.5, 2 * time.Second},
		{5, 0.5, 8 * time.Second},
		{6, 0.5, MaxBackoff},
		{6, 0, 8 * time.Second}, // 16s × 0.5
		{1000, 0.99, MaxBackoff},
	}
	for _, tt := range tests {
		if got := Grow(base, tt.n, tt.r); got != tt.want {
			t.Errorf("Grow(%d, %v) = %s, want %s", tt.n, tt.r, got, tt.want)
		}
	}
	if got := Grow(0, 3, 0.5); got != 0 {
		t.Errorf("zero backoff gives %s", got)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"120", 2 * time.Minute, true},
		{" 5 ", 5 * time.Second, true},
		{"99999999999999999999", 1<<63 - 1, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"", 0, false},
		{"Fri, 02 Jan 2026 03:05:05 GMT", time.Minute, true},
		{"Friday, 02-Jan-26 03:05:05 GMT", time.Minute, true},
		{"Fri Jan  2 03:05:05 2026", time.Minute, true},
		{"Thu, 01 Jan 2026 00:00:00 GMT", 0, true},
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q) = %s %v, want %s %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "120", "Fri, 02 Jan 2026 03:05:05 GMT", "18446744073709551616", "-5", "1e3", " "} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseRetryAfter(s, now)
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("ParseRetryAfter(%q) = %s %v", s, d, ok)
		}
	})
}
