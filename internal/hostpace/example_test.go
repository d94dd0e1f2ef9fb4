package hostpace_test

import (
	"fmt"
	"time"

	"github.com/crawlutils/crawlutils/internal/hostpace"
)

// ExampleRest is what a throttle that sees its hosts' answers would keep
// per host: a delay that AutoThrottle moves, and a Rest. The times are
// the caller's (here moved by hand); nothing sleeps.
func ExampleRest() {
	at := hostpace.AutoThrottle{Min: 0, Start: time.Second, Max: time.Minute, Target: 1, BackoffFloor: 250 * time.Millisecond}
	policy := hostpace.RestPolicy{Backoff: 250 * time.Millisecond, RetryAfterMax: time.Minute}
	jitter := func() float64 { return 0.5 } // math/rand/v2's Float64 in a real run

	delay, rest := at.Start, hostpace.Rest{}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, a := range []hostpace.Answer{
		{Status: 200},
		{Status: 429, Failed: true, RetryAfter: 2 * time.Second, HasRetryAfter: true},
	} {
		a.Started = now
		now = now.Add(200 * time.Millisecond) // the answer's latency
		if began, _ := rest.Observe(policy, a, now, jitter); began {
			delay = at.Backoff(delay, 0)
		} else {
			delay = at.Adjust(delay, 200*time.Millisecond, a.Status, 0)
		}
		fmt.Printf("%d: delay %v, resting %v for %v\n", a.Status, delay, rest.Resting(now), max(rest.Until().Sub(now), 0))
	}
	// Output:
	// 200: delay 600ms, resting false for 0s
	// 429: delay 1.2s, resting true for 2s
}
