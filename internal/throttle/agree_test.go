package throttle

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestBackendsAgree drives every backend through the same random history
// of reservations (one key or many per call, several slots per key, with
// and without a max wait, bursts), holds (ahead, past, shorter than the
// key's current one, on keys never reserved), purges and clock moves, as
// several handles on one state (processes), and requires the same answer
// from each at every step: the reference, x/time/rate, the SQL statement
// and the Lua script are four writings of one arithmetic.
func TestBackendsAgree(t *testing.T) {
	seeds := 8
	steps := 300
	if testing.Short() {
		seeds, steps = 2, 100
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			bs := backends(t)
			stores := make([][]Store, len(bs)) // three handles per backend
			for i, b := range bs {
				open := b.open(t)
				stores[i] = []Store{open(), open(), open()}
			}
			agree(t, rand.New(rand.NewPCG(seed, 7)), bs[0].name, stores, steps)
		})
	}
}

func agree(t *testing.T, rnd *rand.Rand, _ string, stores [][]Store, steps int) {
	names := []string{"ref", "local", "sqlite", "redis", "cluster", "sharded"}
	// Each key keeps its rate for the whole history, as in one run.
	type keyRate struct {
		key  string
		rate Rate
	}
	var keys []keyRate
	periods := []string{"s", "2s", "m", "700ms", "3s"}
	for i := range 12 {
		r, err := ParseRate(fmt.Sprintf("%d/%s", 1+rnd.IntN(9), periods[rnd.IntN(len(periods))]))
		if err != nil {
			t.Fatal(err)
		}
		r.Burst = 1 + rnd.IntN(4)*rnd.IntN(2)
		keys = append(keys, keyRate{fmt.Sprintf("host%d.test:%d", i, 80+i%2), r})
	}
	now := t0
	for step := range steps {
		// Mostly small moves (requests arriving together), sometimes long
		// idle spells.
		switch rnd.IntN(10) {
		case 0:
			now = now.Add(time.Duration(rnd.IntN(120)) * time.Second)
		case 1, 2, 3:
		default:
			now = now.Add(time.Duration(rnd.IntN(1_500_000)) * time.Microsecond)
		}
		handle := rnd.IntN(3)
		if rnd.IntN(8) == 0 {
			// A hold, as cfetch writes one: mostly a few seconds ahead,
			// sometimes already over.
			k := keys[rnd.IntN(len(keys))].key
			until := now.Add(time.Duration(rnd.IntN(6_000_000)-1_000_000) * time.Microsecond)
			for i, s := range stores {
				if err := s[handle].Hold(ctx, k, until, now); err != nil {
					t.Fatalf("%s: %v", names[i], err)
				}
			}
			continue
		}
		if rnd.IntN(12) == 0 {
			before := now.Add(-time.Duration(rnd.IntN(3)) * time.Second)
			for i, s := range stores {
				if _, err := s[handle].Purge(ctx, before); err != nil {
					t.Fatalf("%s: %v", names[i], err)
				}
			}
			continue
		}
		var reqs []Request
		for _, k := range rnd.Perm(len(keys))[:1+rnd.IntN(4)] {
			q := Request{Key: keys[k].key, N: 1 + rnd.IntN(4)*rnd.IntN(2), Rate: keys[k].rate, MaxWait: NoMaxWait}
			if rnd.IntN(3) > 0 {
				// Include waits that land exactly on a slot.
				q.MaxWait = time.Duration(rnd.IntN(8)) * q.Rate.Interval / 2
				if rnd.IntN(2) == 0 {
					q.MaxWait = time.Duration(rnd.IntN(5_000_000)) * time.Microsecond
				}
			}
			reqs = append(reqs, q)
		}
		var answers []string
		for i, s := range stores {
			reply, err := s[handle].Reserve(ctx, reqs, now)
			if err != nil {
				t.Fatalf("%s: %v", names[i], err)
			}
			var b strings.Builder
			for j, g := range reply.Grants {
				fmt.Fprintf(&b, "%s: %s; ", reqs[j].Key, waits(g, reqs[j].N))
			}
			answers = append(answers, b.String())
		}
		for i := 1; i < len(answers); i++ {
			if answers[i] != answers[0] {
				t.Fatalf("step %d at +%v: %s answered\n  %s\nthe reference\n  %s", step, now.Sub(t0), names[i], answers[i], answers[0])
			}
		}
	}
}
