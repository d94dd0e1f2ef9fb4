package throttle

import (
	"strconv"
	"testing"
	"time"
)

// step is one call of a scenario: after moving the clock by after,
// reserve n slots of key (or purge, when n is 0) and require want.
type step struct {
	after   time.Duration
	key     string
	n       int
	rate    string
	burst   int
	maxWait time.Duration
	want    string
}

const none = NoMaxWait

// TestSlots walks every backend through scenarios of the slot arithmetic,
// the clock moved by hand: spacing, bursts, overflow (a refusal reserves
// nothing), idle keys, purging.
func TestSlots(t *testing.T) {
	scenarios := map[string][]step{
		"spaced one interval apart": {
			{0, "a", 3, "5/s", 1, none, "0s 200ms 400ms "},
			{0, "a", 1, "5/s", 1, none, "600ms "},
			{100 * time.Millisecond, "a", 1, "5/s", 1, none, "700ms "},
			// Other keys have their own schedule.
			{0, "b", 2, "5/s", 1, none, "0s 200ms "},
		},
		"seconds per request, not requests per second": {
			{0, "a", 3, "1/2s", 1, none, "0s 2s 4s "},
			{0, "b", 3, "90/m", 1, none, "0s 666.667ms 1.333334s "},
			{0, "c", 2, "3/s", 1, none, "0s 333.334ms "},
		},
		"idle key starts at once": {
			{0, "a", 1, "1/s", 1, none, "0s "},
			{5 * time.Second, "a", 2, "1/s", 1, none, "0s 1s "},
			{1500 * time.Millisecond, "a", 1, "1/s", 1, none, "500ms "},
		},
		"burst: that many at once, then one per interval": {
			{0, "a", 5, "1/s", 3, none, "0s 0s 0s 1s 2s "},
			// tat is 5 s: at 3.5 s a slot 2 intervals "in the past" is
			// free (slots 1 s, 2 s, 3.5 s: three in 2.5 s, as burst 3
			// allows).
			{3500 * time.Millisecond, "a", 1, "1/s", 3, none, "0s "},
			{0, "a", 1, "1/s", 3, none, "500ms "},
			{10 * time.Second, "a", 4, "1/s", 3, none, "0s 0s 0s 1s "},
		},
		"burst refills one slot per interval": {
			{0, "a", 3, "1/s", 3, none, "0s 0s 0s "},
			{1 * time.Second, "a", 2, "1/s", 3, none, "0s 1s "},
			{2500 * time.Millisecond, "a", 3, "1/s", 3, none, "0s 500ms 1.5s "},
		},
		"overflow refuses and reserves nothing": {
			{0, "a", 5, "5/2s", 1, time.Second, "0s 400ms 800ms refused, next in 1.2s"},
			// The refused slots were not taken: the next is still at 1.2 s.
			{0, "a", 1, "5/2s", 1, time.Second, "refused, next in 1.2s"},
			{200 * time.Millisecond, "a", 1, "5/2s", 1, time.Second, "1s "},
			{0, "a", 1, "5/2s", 1, time.Second, "refused, next in 1.4s"},
			{0, "a", 1, "5/2s", 1, none, "1.4s "},
		},
		"max wait 0 passes only what may start now": {
			{0, "a", 2, "1/s", 2, 0, "0s 0s "},
			{0, "a", 1, "1/s", 2, 0, "refused, next in 1s"},
			{time.Second, "a", 2, "1/s", 2, 0, "0s refused, next in 1s"},
		},
		"a wait equal to max wait is in time": {
			{0, "a", 3, "1/s", 1, 2 * time.Second, "0s 1s 2s "},
			{0, "a", 1, "1/s", 1, 2 * time.Second, "refused, next in 3s"},
		},
		"purge forgets only free keys, and a purged key is a new key": {
			{0, "a", 3, "1/s", 1, none, "0s 1s 2s "},
			{0, "b", 1, "1/s", 1, none, "0s "},
			{1500 * time.Millisecond, "", 0, "", 0, 0, "purged 1, 1 left"},
			{2 * time.Second, "", 0, "", 0, 0, "purged 1, 0 left"},
			{0, "a", 2, "1/s", 1, none, "0s 1s "},
		},
	}
	for name, steps := range scenarios {
		t.Run(name, func(t *testing.T) {
			eachBackend(t, func(t *testing.T, s Store) {
				now := t0
				for i, st := range steps {
					now = now.Add(st.after)
					var got string
					if st.n == 0 {
						n, err := s.Purge(ctx, now)
						if err != nil {
							t.Fatal(err)
						}
						left, err := s.Len(ctx)
						if err != nil {
							t.Fatal(err)
						}
						if _, isRedis := s.(*Redis); isRedis {
							// Redis expires keys by their TTL, on its own clock.
							continue
						}
						got = "purged " + itoa(n) + ", " + itoa(left) + " left"
					} else {
						r := mustRate(t, st.rate, st.burst)
						reply, err := s.Reserve(ctx, []Request{{Key: st.key, N: st.n, Rate: r, MaxWait: st.maxWait}}, now)
						if err != nil {
							t.Fatal(err)
						}
						if !reply.Now.Equal(now.Truncate(time.Microsecond)) {
							t.Fatalf("step %d: reply.Now %v, want %v", i, reply.Now, now)
						}
						got = waits(reply.Grants[0], st.n)
					}
					if got != st.want {
						t.Fatalf("step %d (%s ×%d at +%v): got %q, want %q", i, st.key, st.n, now.Sub(t0), got, st.want)
					}
				}
			})
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestManyKeysInOneCall: one call reserving for many keys answers as one
// call per key does, on every backend, over more keys than one chunk.
func TestManyKeysInOneCall(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			together, apart := b.open(t)(), b.open(t)()
			var reqs []Request
			for i := range 600 {
				reqs = append(reqs, Request{Key: "k" + itoa(i), N: 1 + i%3, Rate: mustRate(t, "10/s", 1+i%2), MaxWait: 150 * time.Millisecond})
			}
			for round := range 3 {
				now := t0.Add(time.Duration(round) * 70 * time.Millisecond)
				reply, err := together.Reserve(ctx, reqs, now)
				if err != nil {
					t.Fatal(err)
				}
				for i, q := range reqs {
					one, err := apart.Reserve(ctx, []Request{q}, now)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := waits(reply.Grants[i], q.N), waits(one.Grants[0], q.N); got != want {
						t.Fatalf("round %d, key %d: together %q, apart %q", round, i, got, want)
					}
				}
			}
			if n, _ := together.Len(ctx); n != 600 {
				t.Errorf("%d keys held, want 600", n)
			}
		})
	}
}

// TestBadRequests: a store refuses what it cannot answer.
func TestBadRequests(t *testing.T) {
	eachBackend(t, func(t *testing.T, s Store) {
		r := mustRate(t, "1/s", 1)
		for name, reqs := range map[string][]Request{
			"duplicate key": {{Key: "a", N: 1, Rate: r}, {Key: "a", N: 1, Rate: r}},
			"no slots":      {{Key: "a", N: 0, Rate: r}},
			"zero rate":     {{Key: "a", N: 1}},
		} {
			if _, err := s.Reserve(ctx, reqs, t0); err == nil {
				t.Errorf("%s: no error", name)
			}
		}
	})
}
