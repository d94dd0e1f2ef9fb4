package frontier

import (
	"slices"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// The conformance suite (see conformance_test.go): consumers.
// Per-consumer windows, heartbeats that renew leases, and the leases of
// dead consumers abandoned (no retry counted) rather than expired.

func join(t *testing.T, f Frontier, c Consumer, now time.Time) Consumer {
	t.Helper()
	c, err := f.Join(ctx, c, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ID) != 16 {
		t.Fatalf("Join gave id %q", c.ID)
	}
	return c
}

func popAs(t *testing.T, f Frontier, c Consumer, max, window int, now time.Time) PopResult {
	t.Helper()
	r, err := f.Pop(ctx, PopOptions{Max: max, Lease: time.Minute, Consumer: c, Window: window}, now)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// elsewhere is a consumer on another machine: only its heartbeats say it
// is alive.
var elsewhere = Consumer{Host: "elsewhere.test", PID: 1234, Boot: "b"}

func dumpAll(t *testing.T, f Frontier) map[string]DumpEntry {
	t.Helper()
	got := map[string]DumpEntry{}
	if err := f.Dump(ctx, func(d DumpEntry) error {
		var r record.Request
		if err := record.Decode(d.Raw, &r); err != nil {
			t.Fatal(err)
		}
		got[r.URL] = d
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestConsumerWindow(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		for _, u := range []string{"1", "2", "3", "4", "5", "6"} {
			push(t, f, t0, req(t, "http://a.test/"+u))
		}
		a := join(t, f, elsewhere, t0)
		b := join(t, f, elsewhere, t0)
		r := popAs(t, f, a, 8, 3, t0)
		if len(r.Leased) != 3 || r.Held != 3 || r.Done {
			t.Fatalf("first pop: %d leased, held %d, done %v", len(r.Leased), r.Held, r.Done)
		}
		if r2 := popAs(t, f, a, 8, 3, t0); len(r2.Leased) != 0 || r2.Held != 3 || r2.Done {
			t.Fatalf("pop with a full window: %d leased, held %d, done %v", len(r2.Leased), r2.Held, r2.Done)
		}
		// The window is a's own: b still gets its share.
		if rb := popAs(t, f, b, 8, 2, t0); len(rb.Leased) != 2 || rb.Held != 2 {
			t.Fatalf("b: %d leased, held %d", len(rb.Leased), rb.Held)
		}
		if _, err := f.Ack(ctx, leases(r.Leased[:1]), t0); err != nil {
			t.Fatal(err)
		}
		if r3 := popAs(t, f, a, 8, 3, t0); len(r3.Leased) != 1 || r3.Held != 3 {
			t.Fatalf("after an ack: %d leased, held %d", len(r3.Leased), r3.Held)
		}
		wantCounts(t, f, 0, 5, 0)
	})
}

func TestPopDone(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		r, err := f.Pop(ctx, PopOptions{Max: 1, Lease: time.Minute}, t0)
		if err != nil || !r.Done || len(r.Leased) != 0 {
			t.Fatalf("Pop of an empty frontier = %+v, %v", r, err)
		}
		push(t, f, t0, req(t, "http://a.test/"))
		ls := pop(t, f, 1, t0)
		if r, _ := f.Pop(ctx, PopOptions{Max: 1, Lease: time.Minute}, t0); r.Done {
			t.Error("Done with a request in flight")
		}
		f.Ack(ctx, leases(ls), t0)
		if r, _ := f.Pop(ctx, PopOptions{Max: 1, Lease: time.Minute}, t0); !r.Done {
			t.Error("not Done after the ack")
		}
	})
}

// TestBeatRenews: a consumer that beats keeps its leases past their first
// deadline (a request waiting out a politeness delay is not refetched).
func TestBeatRenews(t *testing.T) {
	each(t, Options{ConsumerTimeout: 30 * time.Second}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"))
		c := join(t, f, elsewhere, t0)
		r := popAs(t, f, c, 2, 0, t0)
		for now := t0.Add(20 * time.Second); now.Before(t0.Add(5 * time.Minute)); now = now.Add(20 * time.Second) {
			held, err := f.Beat(ctx, c, time.Minute, now)
			if err != nil || held != 2 {
				t.Fatalf("Beat at %v = %d, %v", now.Sub(t0), held, err)
			}
			if got := pop(t, f, 2, now); len(got) != 0 {
				t.Fatalf("a renewed lease was handed out again at %v", now.Sub(t0))
			}
		}
		a, err := f.Ack(ctx, leases(r.Leased), t0.Add(5*time.Minute))
		if err != nil || a.Acked != 2 {
			t.Fatalf("Ack after five minutes of beats = %+v, %v", a, err)
		}
		st, _ := f.Stats(ctx)
		if st[StatRequeued] != 0 || st[StatAbandoned] != 0 {
			t.Errorf("Stats = %v", st)
		}
	})
}

// TestConsumerTimeout: a consumer that stops beating is declared dead and
// its requests go back at once, with no retry counted.
func TestConsumerTimeout(t *testing.T) {
	each(t, Options{ConsumerTimeout: 30 * time.Second}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"))
		c := join(t, f, elsewhere, t0)
		first := popAs(t, f, c, 2, 0, t0)
		if got := pop(t, f, 2, t0.Add(30*time.Second)); len(got) != 0 {
			t.Fatal("handed out again before the consumer timed out")
		}
		now := t0.Add(31 * time.Second)
		again := pop(t, f, 2, now)
		if got := urls(t, again); !slices.Equal(got, []string{"http://a.test/1", "http://a.test/2"}) {
			t.Fatalf("after the timeout Pop = %v", got)
		}
		for _, l := range again {
			var r record.Request
			record.Decode(l.Raw, &r)
			if r.Retries != 0 {
				t.Errorf("an abandoned request came back with retries %d: %s", r.Retries, l.Raw)
			}
		}
		if a, _ := f.Ack(ctx, leases(first.Leased), now); a.Acked != 0 {
			t.Error("a dead consumer's lease acked a request handed out again")
		}
		d := dumpAll(t, f)
		if e := d["http://a.test/1"]; e.Abandons != 1 || e.Expiries != 0 {
			t.Errorf("Dump = %+v", e)
		}
		st, _ := f.Stats(ctx)
		if st[StatAbandoned] != 2 || st[StatConsumerDied] != 1 || st[StatRequeued] != 0 {
			t.Errorf("Stats = %v", st)
		}
		// The dead consumer beats again (it was only stalled): registered
		// again, holding nothing.
		if held, err := f.Beat(ctx, c, time.Minute, now); err != nil || held != 0 {
			t.Errorf("Beat of a consumer declared dead = %d, %v", held, err)
		}
	})
}

// TestAbandonedNotExpired: a dead consumer's requests past their deadline
// too are abandoned, not expired (no retry counted).
func TestAbandonedNotExpired(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"))
		c := join(t, f, elsewhere, t0)
		popAs(t, f, c, 1, 0, t0)
		r, err := f.Reclaim(ctx, t0.Add(time.Hour))
		if err != nil || r != (ReclaimResult{Abandoned: 1}) {
			t.Fatalf("Reclaim = %+v, %v", r, err)
		}
		if e := dumpAll(t, f)["http://a.test/1"]; e.Expiries != 0 || e.Abandons != 1 || e.State != Queued {
			t.Errorf("Dump = %+v", e)
		}
	})
}

// TestDeadProcess: a consumer on this machine whose process is gone is
// dead at once, without waiting for the timeout.
func TestDeadProcess(t *testing.T) {
	me := ThisMachine()
	if me.Boot == "" {
		t.Skip("no boot id on this system")
	}
	each(t, Options{ConsumerTimeout: time.Hour}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"))
		gone := me
		gone.PID = 1<<31 - 2 // above any pid_max
		g := join(t, f, gone, t0)
		if r := popAs(t, f, g, 1, 0, t0); len(r.Leased) != 1 {
			t.Fatalf("the doomed consumer popped %d", len(r.Leased))
		}
		alive := join(t, f, me, t0)
		r := popAs(t, f, alive, 5, 0, t0.Add(time.Second))
		if u := urls(t, r.Leased); !slices.Equal(u, []string{"http://a.test/1", "http://a.test/2"}) {
			t.Fatalf("Pop = %v, want the dead process's request again, then the other", u)
		}
		st, _ := f.Stats(ctx)
		if st[StatAbandoned] != 1 || st[StatConsumerDied] != 1 {
			t.Errorf("Stats = %v", st)
		}
		// A live consumer on this machine is not declared dead.
		if got := pop(t, f, 5, t0.Add(2*time.Second)); len(got) != 0 {
			t.Errorf("a live consumer's requests were handed out again: %v", urls(t, got))
		}
	})
}

// TestMaxAbandons: a request whose consumers keep dying is dead-lettered
// with reason consumer_died, not retried forever.
func TestMaxAbandons(t *testing.T) {
	each(t, Options{MaxAbandons: 2}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"))
		now := t0
		for i := range 2 {
			c := join(t, f, elsewhere, now)
			if r := popAs(t, f, c, 1, 0, now); len(r.Leased) != 1 {
				t.Fatalf("round %d: nothing to pop", i)
			}
			now = now.Add(time.Minute)
		}
		if _, err := f.Reclaim(ctx, now); err != nil {
			t.Fatal(err)
		}
		wantCounts(t, f, 0, 0, 1)
		if e := dumpAll(t, f)["http://a.test/1"]; e.State != Dead || e.Reason != "consumer_died" || e.Abandons != 2 {
			t.Errorf("Dump = %+v", e)
		}
	})
}

// TestLeave: a consumer that leaves gives back what it holds.
func TestLeave(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"))
		c := join(t, f, elsewhere, t0)
		r := popAs(t, f, c, 2, 0, t0)
		f.Ack(ctx, leases(r.Leased[:1]), t0)
		if err := f.Leave(ctx, c, t0); err != nil {
			t.Fatal(err)
		}
		wantCounts(t, f, 1, 0, 0)
		if got := urls(t, pop(t, f, 5, t0)); !slices.Equal(got, []string{"http://a.test/2"}) {
			t.Errorf("after Leave Pop = %v", got)
		}
	})
}
