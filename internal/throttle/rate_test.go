package throttle

import (
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for _, tt := range []struct {
		in       string
		interval time.Duration
		str      string
	}{
		{"3/s", 333334 * time.Microsecond, "1/333.334ms"},
		{"5/s", 200 * time.Millisecond, "5/s"},
		{"1/2s", 2 * time.Second, "1/2s"},
		{"90/m", 666667 * time.Microsecond, "1/666.667ms"},
		{"10/h", 6 * time.Minute, "1/6m0s"},
		{"1/500ms", 500 * time.Millisecond, "2/s"},
		{"2.5/s", 400 * time.Millisecond, "1/400ms"},
		{" 1 / 5s ", 5 * time.Second, "1/5s"},
		{"1000000/s", time.Microsecond, "1000000/s"},
		{"1/24h", 24 * time.Hour, "1/24h0m0s"},
		{"4/min", 15 * time.Second, "1/15s"},
	} {
		r, err := ParseRate(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if r.Interval != tt.interval || r.Burst != 1 || r.String() != tt.str {
			t.Errorf("%q: interval %v burst %d %q, want %v 1 %q", tt.in, r.Interval, r.Burst, r.String(), tt.interval, tt.str)
		}
	}
	for in, want := range map[string]string{
		"3/x":       `period "x": want s, m, h or a duration`,
		"0/s":       "count 0: must be positive",
		"-1/s":      "count -1: must be positive",
		"3":         "want COUNT/PERIOD",
		"":          "want COUNT/PERIOD",
		"x/s":       `count "x" is not a number`,
		"NaN/s":     `count "NaN" is not a number`,
		"1/0s":      `period "0s": must be positive`,
		"1/-2s":     `period "-2s": must be positive`,
		"2000000/s": "faster than one start per microsecond",
		"1/25h":     "slower than one start per 24h0m0s",
		"1e-300/s":  "slower than one start per",
	} {
		_, err := ParseRate(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// TestRateStringRoundTrips: what String writes, ParseRate reads back.
func TestRateStringRoundTrips(t *testing.T) {
	for _, in := range []string{"3/s", "7/m", "1/3s", "13/h", "999/s", "1/1us"} {
		r, err := ParseRate(in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRate(r.String())
		if err != nil || back != r {
			t.Errorf("%q → %q → %+v (%v), want %+v", in, r.String(), back, err, r)
		}
	}
}

// FuzzParseRate: whatever the input, ParseRate either fails or returns a
// valid rate that String writes back to the same rate, never faster than
// asked.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"3/s", "1/2s", "90/m", "0/s", "-1/s", "3/x", "1e9/s", "1/1h30m", "0.0001/h", "1/1ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if err := r.Valid(); err != nil {
			t.Fatalf("%q: invalid rate %+v: %v", s, r, err)
		}
		back, err := ParseRate(r.String())
		if err != nil || back != r {
			t.Fatalf("%q → %q → %+v (%v), want %+v", s, r.String(), back, err, r)
		}
	})
}
