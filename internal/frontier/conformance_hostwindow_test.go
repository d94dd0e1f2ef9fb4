package frontier

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// The conformance suite (see conformance_test.go): a consumer's host window (PopOptions.HostWindow).

// popHW pops as c with a window of 100 and a host window of hw.
func popHW(t *testing.T, f Frontier, c Consumer, max, hw int, now time.Time) PopResult {
	t.Helper()
	r, err := f.Pop(ctx, PopOptions{Max: max, Lease: time.Minute, Consumer: c, Window: 100, HostWindow: hw}, now)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func hostsOf(ls []Leased) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Host)
	}
	return out
}

// TestHostWindow: a consumer holds at most HostWindow requests of one host
// in flight; a host at its window is passed over (the others are served,
// in their turns), and is served again, first in line, once one of its
// requests is settled, whichever way: ack, fail, release, an expired lease
// or a dead consumer's abandon.
func TestHostWindow(t *testing.T) {
	each(t, Options{ConsumerTimeout: 30 * time.Second}, func(t *testing.T, f Frontier) {
		for i := range 10 {
			push(t, f, t0, req(t, fmt.Sprintf("http://slow.test/%d", i)))
		}
		for i := range 3 {
			push(t, f, t0, req(t, fmt.Sprintf("http://fast.test/%d", i)))
		}
		c := join(t, f, elsewhere, t0)
		r := popHW(t, f, c, 10, 2, t0)
		if got, want := hostsOf(r.Leased), []string{"slow.test", "fast.test", "slow.test", "fast.test"}; !slices.Equal(got, want) {
			t.Fatalf("first pop: hosts %v, want %v", got, want)
		}
		if r.Held != 4 || r.Done {
			t.Fatalf("first pop: held %d, done %v", r.Held, r.Done)
		}
		if r2 := popHW(t, f, c, 10, 2, t0); len(r2.Leased) != 0 || r2.Done {
			t.Fatalf("both hosts at their window: %v, done %v", hostsOf(r2.Leased), r2.Done)
		}
		// Another consumer has a window of its own.
		other := join(t, f, elsewhere, t0)
		if ro := popHW(t, f, other, 1, 2, t0); !slices.Equal(hostsOf(ro.Leased), []string{"slow.test"}) {
			t.Fatalf("other consumer: %v", hostsOf(ro.Leased))
		}
		slow := func(ls []Leased) (out []Leased) {
			for _, l := range ls {
				if l.Host == "slow.test" {
					out = append(out, l)
				}
			}
			return out
		}
		held := slow(r.Leased)
		// An ack frees one place: the next pop serves slow.test once, then
		// fast.test, then nothing.
		if _, err := f.Ack(ctx, leases(held[:1]), t0); err != nil {
			t.Fatal(err)
		}
		r3 := popHW(t, f, c, 10, 2, t0)
		if got := hostsOf(r3.Leased); !slices.Equal(got, []string{"slow.test"}) {
			t.Fatalf("after an ack: %v", got)
		}
		held = append(held[1:], r3.Leased...)
		// A fail and a release free theirs.
		if _, err := f.Apply(ctx, Batch{Fails: []Fail{{Lease: held[0].Lease, Reason: "invalid_record"}}, Releases: leases(held[1:2])}, t0); err != nil {
			t.Fatal(err)
		}
		r4 := popHW(t, f, c, 10, 2, t0)
		if got := hostsOf(r4.Leased); !slices.Equal(got, []string{"slow.test", "slow.test"}) {
			t.Fatalf("after a fail and a release: %v", got)
		}
		// Leases that expire (the consumer stopped beating long ago, so
		// they are abandoned) free every place.
		later := t0.Add(2 * time.Minute)
		r5 := popHW(t, f, c, 10, 2, later)
		if n := len(slow(r5.Leased)); n != 2 {
			t.Fatalf("after the leases ran out: %v", hostsOf(r5.Leased))
		}
	})
}

// TestHostWindowKeepsTheTurns: a host passed over at its window keeps its
// place in the rotation and is served first once it has room.
func TestHostWindowKeepsTheTurns(t *testing.T) {
	eachOrdered(t, Options{}, func(t *testing.T, f Frontier) {
		for _, h := range []string{"a", "b", "c"} {
			for i := range 4 {
				push(t, f, t0, req(t, fmt.Sprintf("http://%s.test/%d", h, i)))
			}
		}
		c := join(t, f, elsewhere, t0)
		first := popHW(t, f, c, 3, 1, t0)
		if got := hostsOf(first.Leased); !slices.Equal(got, []string{"a.test", "b.test", "c.test"}) {
			t.Fatalf("first pop: %v", got)
		}
		if _, err := f.Ack(ctx, leases(first.Leased[1:2]), t0); err != nil { // b's
			t.Fatal(err)
		}
		if got := hostsOf(popHW(t, f, c, 3, 1, t0).Leased); !slices.Equal(got, []string{"b.test"}) {
			t.Fatalf("after b's ack: %v", got)
		}
		if _, err := f.Ack(ctx, leases(first.Leased[0:1]), t0); err != nil { // a's
			t.Fatal(err)
		}
		if got := hostsOf(popHW(t, f, c, 3, 1, t0).Leased); !slices.Equal(got, []string{"a.test"}) {
			t.Fatalf("after a's ack: %v", got)
		}
	})
}
