package hostpace

import (
	"testing"
	"time"
)

// TestInTroubleNeedsAStreakThatIsHalfTheWindow: three failures in a row
// make a host in trouble only when they are also at least half of its
// last 10 answers; a burst of fast failures after many successes is not.
func TestInTroubleNeedsAStreakThatIsHalfTheWindow(t *testing.T) {
	for _, tt := range []struct {
		answers string // S: success, F: failure (a 503), oldest first
		want    bool
	}{
		{"FFF", true},              // a host failing from the start
		{"SSFFF", true},            // 3 of 5
		{"SSSSFFF", false},         // 3 of 7
		{"SSSSSSSFFF", false},      // 3 of 10: a quick burst in a healthy stream
		{"SSSSSSSFFFFF", true},     // 5 of the last 10
		{"SSSSSSSSSSSSFFF", false}, // 3 of the last 10
		{"FFSFF", false},           // no three in a row
		{"SSSSSSSSSFFFFFFFFFF", true},
	} {
		var r Rest
		got := false
		for _, c := range tt.answers {
			a := Answer{Status: 200}
			if c == 'F' {
				a.Status, a.Failed = 503, true
			}
			got = r.inTrouble(a)
		}
		if got != tt.want {
			t.Errorf("%s: in trouble %v, want %v", tt.answers, got, tt.want)
		}
	}
}

// t0 is the fake clock's start; the tests move it by hand.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// noJitter is the middle of the jitter: a factor of exactly 1.
func noJitter() float64 { return 0.5 }

// TestObserve drives one host's Rest through histories of answers, each
// 10 ms after the last and started just before it, and checks when each
// answer leaves the host resting (docs/cfetch.md's policy).
func TestObserve(t *testing.T) {
	p := RestPolicy{Backoff: 250 * time.Millisecond, RetryAfterMax: time.Minute}
	ok := Answer{Status: 200}
	s503 := Answer{Status: 503, Failed: true}
	s429 := Answer{Status: 429, Failed: true}
	refused := Answer{Failed: true}
	withRA := func(a Answer, d time.Duration) Answer {
		a.RetryAfter, a.HasRetryAfter = d, true
		return a
	}
	ms := time.Millisecond
	tests := []struct {
		name    string
		answers []Answer
		began   []bool          // per answer: a rest began
		rest    []time.Duration // per answer: the rest left after it (0: none)
	}{
		{
			"one isolated 503 rests nothing", []Answer{ok, ok, s503, ok},
			[]bool{false, false, false, false}, []time.Duration{0, 0, 0, 0},
		},
		{
			"a 429 rests at once, for the backoff", []Answer{ok, s429},
			[]bool{false, true}, []time.Duration{0, 250 * ms},
		},
		{
			"a 429's Retry-After is honoured", []Answer{withRA(s429, 5*time.Second)},
			[]bool{true}, []time.Duration{5 * time.Second},
		},
		{
			"a Retry-After past the maximum is cut to it", []Answer{withRA(s429, time.Hour)},
			[]bool{true}, []time.Duration{time.Minute},
		},
		{
			"three failures in a row rest a host that fails everything", []Answer{refused, refused, refused},
			[]bool{false, false, true}, []time.Duration{0, 0, 250 * ms},
		},
		{
			"three in a row after seven successes are no trouble", []Answer{ok, ok, ok, ok, ok, ok, ok, s503, s503, s503},
			[]bool{false, false, false, false, false, false, false, false, false, false},
			[]time.Duration{0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		},
		{
			"a Retry-After during a rest lengthens it", []Answer{s429, withRA(s503, 2*time.Second)},
			[]bool{true, false}, []time.Duration{250 * ms, 2 * time.Second},
		},
		{
			"a shorter one does not shorten it", []Answer{withRA(s429, 2*time.Second), withRA(s503, time.Second)},
			[]bool{true, false}, []time.Duration{2 * time.Second, 1990 * ms},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Rest
			now := t0
			for i, a := range tt.answers {
				now = now.Add(10 * ms)
				a.Started = now.Add(-ms)
				began, _ := r.Observe(p, a, now, noJitter)
				left := time.Duration(0)
				if r.Resting(now) {
					left = r.Until().Sub(now)
				}
				if began != tt.began[i] || left != tt.rest[i] {
					t.Fatalf("answer %d: began %v, resting %s; want %v, %s", i, began, left, tt.began[i], tt.rest[i])
				}
			}
		})
	}
}

// TestRestsInARowGrow: each further rest while the failures go on is
// twice as long, up to MaxBackoff; an answer in flight when a rest began
// starts no other; a success starts the backoff again.
func TestRestsInARowGrow(t *testing.T) {
	p := RestPolicy{Backoff: time.Second, RetryAfterMax: time.Minute}
	var r Rest
	now := t0
	fail := func(started time.Time) (bool, bool) {
		now = now.Add(time.Millisecond)
		return r.Observe(p, Answer{Status: 503, Failed: true, Started: started}, now, noJitter)
	}
	for range 3 {
		fail(now)
	}
	if r.Rests() != 1 || r.Until() != now.Add(time.Second) {
		t.Fatalf("first rest: %d rests, until %s", r.Rests(), r.Until().Sub(now))
	}
	if began, moved := fail(t0); began || moved {
		t.Errorf("an answer in flight began a rest (%v) or moved it (%v)", began, moved)
	}
	for i, want := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, MaxBackoff, MaxBackoff} {
		now = r.Until()
		if began, moved := fail(now); !began || !moved || r.Until().Sub(now) != want {
			t.Errorf("rest %d: began %v, moved %v, %s; want %s", i+2, began, moved, r.Until().Sub(now), want)
		}
	}
	now = r.Until()
	r.Observe(p, Answer{Status: 200, Started: now}, now, noJitter)
	if r.Rests() != 0 {
		t.Fatalf("a 200 left %d rests in a row", r.Rests())
	}
	for range 3 {
		fail(now)
	}
	if r.Until().Sub(now) != time.Second {
		t.Errorf("after a success the next rest is %s, want the first backoff again", r.Until().Sub(now))
	}
}

// TestJitterOnlyWhenARestBegins: the jitter is drawn once per rest, and
// spreads it from half to one and a half times the backoff.
func TestJitterOnlyWhenARestBegins(t *testing.T) {
	p := RestPolicy{Backoff: time.Second}
	for _, tt := range []struct {
		r    float64
		want time.Duration
	}{{0, 500 * time.Millisecond}, {0.999, 1499 * time.Millisecond}} {
		var r Rest
		draws := 0
		jitter := func() float64 { draws++; return tt.r }
		for _, a := range []Answer{{Status: 200}, {Status: 503, Failed: true}, {Status: 429}} {
			r.Observe(p, a, t0, jitter)
		}
		if draws != 1 || r.Until().Sub(t0) != tt.want {
			t.Errorf("jitter %v: %d draws, rest %s, want 1, %s", tt.r, draws, r.Until().Sub(t0), tt.want)
		}
	}
}
