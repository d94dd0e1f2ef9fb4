package frontier

import (
	"fmt"
	"testing"
	"time"
)

// The conformance suite (see conformance_test.go): the window's horizon
// (PopOptions.Horizon).

// popHz pops as c with a window, a host window and a horizon.
func popHz(t *testing.T, f Frontier, c Consumer, max, window, hostWindow int, horizon time.Duration, now time.Time) PopResult {
	t.Helper()
	r, err := f.Pop(ctx, PopOptions{Max: max, Lease: time.Minute, Consumer: c, Window: window, HostWindow: hostWindow, Horizon: horizon}, now)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWindowHorizon: with a horizon, only the requests handed out less
// than the horizon ago and still held count against the window; older
// ones (waiting downstream for their host) make room for more. Held
// still counts every request in flight, and settling an old request
// frees no room in the window (it was not counted).
func TestWindowHorizon(t *testing.T) {
	const hz = 10 * time.Second
	each(t, Options{}, func(t *testing.T, f Frontier) {
		for i := range 6 {
			push(t, f, t0, req(t, fmt.Sprintf("http://delayed.test/%d", i)), req(t, fmt.Sprintf("http://fast.test/%d", i)))
		}
		c := join(t, f, elsewhere, t0)
		step := func(at time.Duration, wantLeased, wantHeld int) PopResult {
			t.Helper()
			r := popHz(t, f, c, 10, 4, 0, hz, t0.Add(at))
			if len(r.Leased) != wantLeased || r.Held != wantHeld || r.Done {
				t.Fatalf("pop at +%v: %d leased, held %d, done %v; want %d leased, held %d", at, len(r.Leased), r.Held, r.Done, wantLeased, wantHeld)
			}
			return r
		}
		first := step(0, 4, 4)
		step(5*time.Second, 0, 4) // all four handed out less than 10s ago
		second := step(hz, 4, 8)  // the first four are 10s old: they no longer count
		if _, err := f.Ack(ctx, leases(second.Leased[:1]), t0.Add(11*time.Second)); err != nil {
			t.Fatal(err)
		}
		step(11*time.Second, 1, 8) // a recent one acked: one place
		if _, err := f.Apply(ctx, Batch{Releases: leases(first.Leased[:1])}, t0.Add(11*time.Second)); err != nil {
			t.Fatal(err)
		}
		step(11*time.Second, 0, 7) // an old one released: no place (it was not counted)
		step(21*time.Second, 4, 11)
	})
}

// TestWindowHorizonKeepsHostWindow: a request held longer than the
// horizon still counts against its host's window, so what a consumer
// holds of one host stays bounded.
func TestWindowHorizonKeepsHostWindow(t *testing.T) {
	const hz = 10 * time.Second
	each(t, Options{}, func(t *testing.T, f Frontier) {
		for i := range 6 {
			push(t, f, t0, req(t, fmt.Sprintf("http://delayed.test/%d", i)))
		}
		push(t, f, t0, req(t, "http://fast.test/0"), req(t, "http://fast.test/1"))
		c := join(t, f, elsewhere, t0)
		if r := popHz(t, f, c, 10, 4, 2, hz, t0); len(r.Leased) != 4 {
			t.Fatalf("first pop: %v", hostsOf(r.Leased))
		}
		if r := popHz(t, f, c, 10, 4, 2, hz, t0.Add(hz)); len(r.Leased) != 0 || r.Held != 4 {
			t.Fatalf("old requests at the host window: %v, held %d", hostsOf(r.Leased), r.Held)
		}
		push(t, f, t0.Add(hz), req(t, "http://other.test/0"))
		if r := popHz(t, f, c, 10, 4, 2, hz, t0.Add(hz)); len(r.Leased) != 1 || r.Leased[0].Host != "other.test" {
			t.Fatalf("another host: %v", hostsOf(r.Leased))
		}
	})
}
