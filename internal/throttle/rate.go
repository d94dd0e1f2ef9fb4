package throttle

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Rate is how often one key may start: one start every Interval, with up
// to Burst starts at once after a pause (Burst 1: strictly Interval apart).
// The zero Rate is not valid; build one with ParseRate or Every.
type Rate struct {
	// Interval is the time between two starts, a whole number of
	// microseconds (the stores count in microseconds).
	Interval time.Duration
	// Burst is how many starts may happen at once after a pause: the
	// schedule lets a key run up to Burst-1 intervals "in the past".
	Burst int
}

// Limits of a Rate: the stores count in microseconds, and an interval of
// more than a day is almost certainly a typo.
const (
	MinInterval = time.Microsecond
	MaxInterval = 24 * time.Hour
	MaxBurst    = 1_000_000
)

// Every returns the Rate of one start per interval (rounded up to the
// microsecond), with burst b.
func Every(interval time.Duration, b int) Rate {
	return Rate{Interval: roundUpMicro(interval), Burst: b}
}

// Valid reports whether r can be used.
func (r Rate) Valid() error {
	switch {
	case r.Interval < MinInterval:
		return fmt.Errorf("faster than one start per microsecond")
	case r.Interval > MaxInterval:
		return fmt.Errorf("slower than one start per %v", MaxInterval)
	case r.Interval%time.Microsecond != 0:
		return fmt.Errorf("interval %v is not a whole number of microseconds", r.Interval)
	case r.Burst < 1 || r.Burst > MaxBurst:
		return fmt.Errorf("burst %d: must be between 1 and %d", r.Burst, MaxBurst)
	}
	return nil
}

// tolerance is how far ahead of the schedule a burst may run: Burst-1
// intervals (GCRA's τ).
func (r Rate) tolerance() time.Duration { return time.Duration(r.Burst-1) * r.Interval }

// String writes r as ParseRate reads it: "5/s" when a second holds a
// whole number of intervals, "1/2s" or "1/333.334ms" otherwise, with the
// burst when it is not 1.
func (r Rate) String() string {
	s := "1/" + r.Interval.String()
	if r.Interval > 0 && r.Interval <= time.Second && time.Second%r.Interval == 0 {
		s = strconv.FormatInt(int64(time.Second/r.Interval), 10) + "/s"
	}
	if r.Burst > 1 {
		s += fmt.Sprintf(" burst %d", r.Burst)
	}
	return s
}

// ParseRate reads a rate written as COUNT/PERIOD: "3/s" (three a second),
// "90/m", "10/h", "1/2s" (one every two seconds), "1/500ms", "2.5/s".
// PERIOD is s, m or h, or a Go duration. COUNT is a positive number. The
// interval, PERIOD/COUNT, is rounded up to the microsecond. The burst is 1.
func ParseRate(s string) (Rate, error) {
	count, period, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Rate{}, errors.New("want COUNT/PERIOD, such as 3/s, 90/m or 1/2s")
	}
	count, period = strings.TrimSpace(count), strings.TrimSpace(period)
	n, err := strconv.ParseFloat(count, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return Rate{}, fmt.Errorf("count %q is not a number (want COUNT/PERIOD, such as 3/s)", count)
	}
	if n <= 0 {
		return Rate{}, fmt.Errorf("count %s: must be positive", count)
	}
	var d time.Duration
	switch period {
	case "s", "sec":
		d = time.Second
	case "m", "min":
		d = time.Minute
	case "h", "hour":
		d = time.Hour
	case "ms":
		d = time.Millisecond
	default:
		d, err = time.ParseDuration(period)
		if err != nil {
			return Rate{}, fmt.Errorf("period %q: want s, m, h or a duration such as 2s or 500ms", period)
		}
		if d <= 0 {
			return Rate{}, fmt.Errorf("period %q: must be positive", period)
		}
	}
	iv := float64(d) / n
	if iv > float64(MaxInterval) {
		return Rate{}, fmt.Errorf("%s is slower than one start per %v", s, MaxInterval)
	}
	r := Rate{Interval: roundUpMicro(time.Duration(math.Ceil(iv))), Burst: 1}
	if iv < float64(MinInterval) {
		return Rate{}, fmt.Errorf("%s is faster than one start per microsecond", s)
	}
	return r, r.Valid()
}

// roundUpMicro rounds d up to a whole number of microseconds: a rate is
// never made faster than asked.
func roundUpMicro(d time.Duration) time.Duration {
	if r := d % time.Microsecond; r != 0 {
		d += time.Microsecond - r
	}
	return d
}
