package frontier

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// TestRedisLostWritesGiveBackLeases: a consumer whose last pop Redis no
// longer has (Redis restarted without the end of its append-only file)
// gives back, on its next pop, every request it holds, leases kept: the
// acks lost with that pop are never sent again, and its beats would keep
// their leases alive for ever. An ack still on its way settles its
// request until it is handed out again. Pops that lost nothing give back
// nothing, retried or not (the replayed backend, in every conformance
// test).
func TestRedisLostWritesGiveBackLeases(t *testing.T) {
	f := openTestRedis(t, redistest.Start(t), Options{})
	push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"), req(t, "http://a.test/3"))
	c := join(t, f, elsewhere, t0)
	first := popAs(t, f, c, 2, 0, t0)
	if r := popAs(t, f, c, 1, 0, t0); len(r.Leased) != 1 || r.Held != 3 {
		t.Fatalf("a pop after a pop that lost nothing = %+v, want 1 more leased, 3 held", r)
	}
	wantCounts(t, f, 0, 3, 0)

	// Redis forgets the consumer's last pop: an earlier state of the
	// frontier, as one restarted from an append-only file cut short.
	if err := f.conn.Client.HSet(ctx, f.prefix+"f:lastpop", c.ID, "0000000000000000").Err(); err != nil {
		t.Fatal(err)
	}
	r := popAs(t, f, c, 1, 0, t0)
	if len(r.Leased) != 1 || r.Held != 1 || r.GaveBack != 3 {
		t.Fatalf("the pop after lost writes = %+v, want 1 leased, 1 held, 3 given back", r)
	}
	if got := urls(t, r.Leased); got[0] != "http://a.test/1" {
		t.Errorf("the pop after lost writes handed out %v, want a.test/1 again (given back, first in line)", got)
	}
	wantCounts(t, f, 2, 1, 0)
	// a.test/2's ack, late: honoured, it was not handed out again.
	if a, err := f.Ack(ctx, leases(first.Leased[1:]), t0); err != nil || a.Acked != 1 {
		t.Errorf("a late ack of a request given back = %+v, %v; want acked", a, err)
	}
	// a.test/1's: its request went out again under a new lease.
	if a, _ := f.Ack(ctx, leases(first.Leased[:1]), t0); a.Acked != 0 {
		t.Error("the lease of a request handed out again acked it")
	}
	wantCounts(t, f, 1, 1, 0)
	if st, _ := f.Stats(ctx); st["abandoned"] != 3 {
		t.Errorf("stats abandoned = %d, want 3", st["abandoned"])
	}
}
