package frontier

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// The conformance suite (see conformance_test.go): leases, acks, expiries, Apply and releases.

func TestLeaseAck(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"))
		ls := pop(t, f, 1, t0)
		if len(ls) != 1 || !ls[0].Deadline.Equal(t0.Add(time.Minute)) {
			t.Fatalf("Pop = %+v", ls)
		}
		wantCounts(t, f, 1, 1, 0)
		r, err := f.Ack(ctx, []string{ls[0].Lease, ls[0].Lease, "bogus", "1.0000000000000000"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if r != (AckResult{Acked: 1, Unknown: 3}) {
			t.Errorf("Ack = %+v, want 1 acked, 3 unknown", r)
		}
		wantCounts(t, f, 1, 0, 0)
		if done, _ := f.Done(ctx); done {
			t.Error("Done with one request queued")
		}
		ls = pop(t, f, 5, t0)
		if len(ls) != 1 {
			t.Fatalf("second Pop = %d requests", len(ls))
		}
		if done, _ := f.Done(ctx); done {
			t.Error("Done with one request in flight")
		}
		f.Ack(ctx, leases(ls), t0)
		if done, _ := f.Done(ctx); !done {
			t.Error("not Done after everything was acked")
		}
		if ls := pop(t, f, 5, t0); len(ls) != 0 {
			t.Errorf("Pop of an empty frontier = %v", ls)
		}
	})
}

// TestLeaseExpiry: a lease that expires returns the request with retries+1;
// the old lease no longer acks it once it is handed out again; after
// MaxLeaseExpiries expiries it is dead-lettered.
func TestLeaseExpiry(t *testing.T) {
	each(t, Options{MaxLeaseExpiries: 3}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"))
		first := pop(t, f, 1, t0)
		if r, _ := f.Reclaim(ctx, t0.Add(59*time.Second)); r != (ReclaimResult{}) {
			t.Errorf("Reclaim before the deadline = %+v", r)
		}
		if ls := pop(t, f, 1, t0.Add(59*time.Second)); len(ls) != 0 {
			t.Errorf("a leased request was handed out twice")
		}
		// The deadline passes: Pop reclaims it and hands it out again.
		now := t0.Add(61 * time.Second)
		second := pop(t, f, 1, now)
		if len(second) != 1 || second[0].Lease == first[0].Lease {
			t.Fatalf("after the deadline Pop = %+v", second)
		}
		var r record.Request
		record.Decode(second[0].Raw, &r)
		if r.Retries != 1 {
			t.Errorf("retries = %d after one expiry, want 1 (%s)", r.Retries, second[0].Raw)
		}
		if a, _ := f.Ack(ctx, []string{first[0].Lease}, now); a.Acked != 0 {
			t.Error("the lease of an earlier hand-out acked the request")
		}
		// Second expiry: requeued. Third: dead.
		now = now.Add(2 * time.Minute)
		if r, _ := f.Reclaim(ctx, now); r != (ReclaimResult{Requeued: 1}) {
			t.Errorf("second Reclaim = %+v", r)
		}
		third := pop(t, f, 1, now)
		now = now.Add(2 * time.Minute)
		if r, _ := f.Reclaim(ctx, now); r != (ReclaimResult{DeadLettered: 1}) {
			t.Errorf("third Reclaim = %+v, want dead-lettered", r)
		}
		wantCounts(t, f, 0, 0, 1)
		if ls := pop(t, f, 1, now); len(ls) != 0 {
			t.Error("a dead-lettered request was handed out")
		}
		if done, _ := f.Done(ctx); !done {
			t.Error("not Done with only a dead-lettered request left")
		}
		var dumped []DumpEntry
		f.Dump(ctx, func(d DumpEntry) error { dumped = append(dumped, d); return nil })
		if len(dumped) != 1 || dumped[0].State != Dead || dumped[0].Reason != "lease_expired" || dumped[0].Expiries != 3 {
			t.Errorf("Dump = %+v", dumped)
		}
		// A worker that was only slow may still ack its dead request.
		if a, _ := f.Ack(ctx, []string{third[0].Lease}, now); a.Acked != 1 {
			t.Errorf("late ack of a dead-lettered request = %+v", a)
		}
		wantCounts(t, f, 0, 0, 0)
		st, _ := f.Stats(ctx)
		if st[StatRequeued] != 2 || st[StatDeadLettered] != 1 || st[StatPopped] != 3 {
			t.Errorf("Stats = %v", st)
		}
	})
}

// TestLateAck: an ack after the lease expired still finishes the request
// if it was not handed out again: it is not fetched twice.
func TestLateAck(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1", "prio", 3), req(t, "http://a.test/2"))
		ls := pop(t, f, 1, t0)
		if r, _ := f.Reclaim(ctx, t0.Add(time.Hour)); r.Requeued != 1 {
			t.Fatalf("Reclaim = %+v", r)
		}
		wantCounts(t, f, 2, 0, 0)
		if a, _ := f.Ack(ctx, leases(ls), t0.Add(time.Hour)); a.Acked != 1 {
			t.Errorf("late Ack = %+v", a)
		}
		wantCounts(t, f, 1, 0, 0)
		if got := urls(t, pop(t, f, 5, t0.Add(time.Hour))); !slices.Equal(got, []string{"http://a.test/2"}) {
			t.Errorf("after a late ack Pop = %v", got)
		}
	})
}

// TestApply: follow-ups and the ack of their page commit together.
func TestApply(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/", "crawl", "c"))
		page := pop(t, f, 1, t0)
		r, err := f.Apply(ctx, Batch{
			Entries: []Entry{req(t, "http://a.test/x", "crawl", "c", "depth", 1), req(t, "http://a.test/", "crawl", "c", "depth", 1)},
			Acks:    leases(page),
		}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Pushed[0].Queued || r.Pushed[1].Reason != ReasonDuplicate || r.Acks != (AckResult{Acked: 1}) {
			t.Errorf("Apply = %+v", r)
		}
		wantCounts(t, f, 1, 0, 0)
	})
}

// TestRelease: a released lease returns its request to the queue at once,
// with no retry counted, and the lease is void.
func TestRelease(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1", "crawl", "c"), req(t, "http://a.test/2", "crawl", "c"), req(t, "http://b.test/1", "crawl", "gone"))
		ls := pop(t, f, 3, t0)
		r, err := f.Apply(ctx, Batch{Releases: []string{ls[0].Lease, ls[0].Lease, "junk"}}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Released != 1 || r.ReleaseUnknown != 2 {
			t.Errorf("Apply(releases) = %+v", r)
		}
		wantCounts(t, f, 1, 2, 0)
		again := pop(t, f, 1, t0)
		if urls(t, again)[0] != urls(t, ls[0:1])[0] || strings.Contains(string(again[0].Raw), "retries") {
			t.Errorf("after release popped %s", again[0].Raw)
		}
		if a, _ := f.Ack(ctx, []string{ls[0].Lease}, t0); a.Acked != 0 {
			t.Error("a released lease acked the request")
		}
		// A request whose crawl stopped meanwhile is dropped, not queued.
		f.Stop(ctx, "gone", t0)
		var gone string
		for _, l := range ls {
			if l.CrawlID == "gone" {
				gone = l.Lease
			}
		}
		if r, _ := f.Apply(ctx, Batch{Releases: []string{gone}}, t0); r.Released != 1 {
			t.Errorf("release in a stopped crawl = %+v", r)
		}
		wantCounts(t, f, 0, 2, 0)
		st, _ := f.Stats(ctx)
		if st[StatReleased] != 2 || st[StatDropped] != 1 {
			t.Errorf("Stats = %v", st)
		}
	})
}
