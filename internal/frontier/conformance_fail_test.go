package frontier

import (
	"strings"
	"testing"
	"time"
)

// The conformance suite (see conformance_test.go): fails (Batch.Fails).
// A stage that cannot process a leased request answers with a reason,
// and the request is dead-lettered with it.

func apply(t *testing.T, f Frontier, b Batch, now time.Time) BatchResult {
	t.Helper()
	r, err := f.Apply(ctx, b, now)
	if err != nil {
		t.Fatal(err)
	}
	invariants(t, f)
	return r
}

// leaseOf returns the lease of each popped request by URL.
func leaseOf(t *testing.T, ls []Leased) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, u := range urls(t, ls) {
		out[u] = ls[i].Lease
	}
	return out
}

// TestFail: a failed request is dead with its reason, at once: not queued,
// never handed out again, counted dead by Counts and Info, shown by Dump;
// an ack of another lease in the same batch finishes its request.
func TestFail(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1", "crawl", "c"), req(t, "http://a.test/2", "crawl", "c"), req(t, "http://b.test/1", "crawl", "c"))
		l := leaseOf(t, pop(t, f, 3, t0))
		r := apply(t, f, Batch{
			Acks:  []string{l["http://a.test/2"]},
			Fails: []Fail{{Lease: l["http://a.test/1"], Reason: "Invalid record: nested too deep"}},
		}, t0)
		if r.Acks != (AckResult{Acked: 1}) || r.Failed != 1 || r.FailUnknown != 0 {
			t.Errorf("Apply(ack, fail) = %+v", r)
		}
		wantCounts(t, f, 0, 1, 1)
		if res, _ := f.Pop(ctx, PopOptions{Max: 5, Lease: time.Minute}, t0); len(res.Leased) != 0 || res.Done {
			t.Errorf("Pop with one request in flight and one dead = %+v", res)
		}
		d := dumpAll(t, f)["http://a.test/1"]
		if d.State != Dead || d.Reason != "invalid_record_nested_too_deep" || d.Lease != "" || d.Expiries != 0 {
			t.Errorf("Dump of the failed request = %+v", d)
		}
		if rec := string(d.Record()); !strings.Contains(rec, `"frontier":{"state":"dead","priority":0,"reason":"invalid_record_nested_too_deep"}`) {
			t.Errorf("dump record %s", rec)
		}
		info, _ := f.Info(ctx, InfoFilter{CrawlID: "c"})
		want := `{"crawls":[{"crawlid":"c","state":"active","total_pending":0,"in_flight":1,"dead":1,"high_priority":0,"low_priority":0,"domains":[` +
			`{"domain":"a.test","total":0,"in_flight":0,"dead":1,"high_priority":0,"low_priority":0},` +
			`{"domain":"b.test","total":0,"in_flight":1,"dead":0,"high_priority":0,"low_priority":0}]}]}`
		if got := jsonOf(info); got != want {
			t.Errorf("Info\n got %s\nwant %s", got, want)
		}

		// The last request fails too, with no reason: the crawl is over,
		// dead requests do not hold it open.
		if r := apply(t, f, Batch{Fails: []Fail{{Lease: l["http://b.test/1"]}}}, t0); r.Failed != 1 {
			t.Errorf("Apply(fail) = %+v", r)
		}
		if d := dumpAll(t, f)["http://b.test/1"]; d.Reason != DefaultFailReason {
			t.Errorf("reason of a fail without one = %q", d.Reason)
		}
		wantCounts(t, f, 0, 0, 2)
		if res, _ := f.Pop(ctx, PopOptions{Max: 5, Lease: time.Minute}, t0); len(res.Leased) != 0 || !res.Done {
			t.Errorf("Pop with only dead requests left = %+v, want Done", res)
		}
		if done, _ := f.Done(ctx); !done {
			t.Error("not Done with only dead requests left")
		}

		// Dead is final: its lease neither fails (the reason stays) nor
		// releases it again; a late ack still finishes it, as it does any
		// dead request.
		r = apply(t, f, Batch{Fails: []Fail{{Lease: l["http://a.test/1"], Reason: "other"}}, Releases: []string{l["http://a.test/1"]}}, t0)
		if r.Failed != 0 || r.FailUnknown != 1 || r.Released != 0 || r.ReleaseUnknown != 1 {
			t.Errorf("Apply(fail, release of a failed lease) = %+v", r)
		}
		if d := dumpAll(t, f)["http://a.test/1"]; d.Reason != "invalid_record_nested_too_deep" {
			t.Errorf("a second fail changed the reason to %q", d.Reason)
		}
		if a := apply(t, f, Batch{Acks: []string{l["http://a.test/1"]}}, t0); a.Acks.Acked != 1 {
			t.Errorf("late ack of a failed request = %+v", a)
		}
		wantCounts(t, f, 0, 0, 1)
		st, _ := f.Stats(ctx)
		if st[StatFailed] != 2 || st[StatFailUnknown] != 1 || st[StatAcked] != 2 || st[StatDeadLettered] != 0 {
			t.Errorf("Stats = %v", st)
		}
	})
}

// TestFailUnknown: a fail whose lease matches nothing that could still be
// failed (malformed, acked, released, handed out again since) changes
// nothing and is counted unknown.
func TestFailUnknown(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"))
		first := pop(t, f, 1, t0)
		now := t0.Add(2 * time.Minute) // the lease expired: handed out again
		second := pop(t, f, 1, now)
		if len(second) != 1 {
			t.Fatalf("after the deadline Pop = %+v", second)
		}
		r := apply(t, f, Batch{Fails: []Fail{
			{Lease: first[0].Lease, Reason: "stale"},
			{Lease: "bogus", Reason: "x"},
			{Lease: "1.0000000000000000", Reason: "x"},
			{Lease: "99.0123456789abcdef", Reason: "x"},
		}}, now)
		if r.Failed != 0 || r.FailUnknown != 4 {
			t.Errorf("Apply(unknown fails) = %+v", r)
		}
		wantCounts(t, f, 0, 1, 0)
		// Acked, then failed in the same batch: the ack comes first.
		r = apply(t, f, Batch{Acks: leases(second), Fails: []Fail{{Lease: second[0].Lease, Reason: "late"}}}, now)
		if r.Acks.Acked != 1 || r.Failed != 0 || r.FailUnknown != 1 {
			t.Errorf("Apply(ack and fail of one lease) = %+v", r)
		}
		// Released: the lease is void.
		push(t, f, now, req(t, "http://a.test/2"))
		ls := pop(t, f, 1, now)
		apply(t, f, Batch{Releases: leases(ls)}, now)
		if r := apply(t, f, Batch{Fails: []Fail{{Lease: ls[0].Lease}}}, now); r.FailUnknown != 1 {
			t.Errorf("fail of a released lease = %+v", r)
		}
		wantCounts(t, f, 1, 0, 0)
		st, _ := f.Stats(ctx)
		if st[StatFailUnknown] != 6 || st[StatFailed] != 0 {
			t.Errorf("Stats = %v", st)
		}
	})
}

// TestLateFail: a fail after the lease expired still dead-letters the
// request if it was not handed out again (as a late ack finishes it), and
// the queue's head moves on.
func TestLateFail(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1", "prio", 3), req(t, "http://a.test/2"))
		ls := pop(t, f, 1, t0)
		later := t0.Add(time.Hour)
		if r, _ := f.Reclaim(ctx, later); r.Requeued != 1 {
			t.Fatalf("Reclaim = %+v", r)
		}
		wantCounts(t, f, 2, 0, 0)
		if r := apply(t, f, Batch{Fails: []Fail{{Lease: ls[0].Lease, Reason: "too_large"}}}, later); r.Failed != 1 {
			t.Errorf("late fail = %+v", r)
		}
		wantCounts(t, f, 1, 0, 1)
		if got := urls(t, pop(t, f, 5, later)); len(got) != 1 || got[0] != "http://a.test/2" {
			t.Errorf("after a late fail Pop = %v", got)
		}
		if d := dumpAll(t, f)["http://a.test/1"]; d.State != Dead || d.Reason != "too_large" || d.Expiries != 1 {
			t.Errorf("Dump = %+v", d)
		}
	})
}

// TestFailWithPushes: a page's follow-ups and its fail commit in one
// Apply, and the follow-ups go through the duplicate filter as usual.
func TestFailWithPushes(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/", "crawl", "c"))
		page := pop(t, f, 1, t0)
		r := apply(t, f, Batch{
			Entries: []Entry{req(t, "http://a.test/x", "crawl", "c", "depth", 1), req(t, "http://a.test/", "crawl", "c", "depth", 1)},
			Fails:   []Fail{{Lease: page[0].Lease, Reason: "too_large"}},
		}, t0)
		if len(r.Pushed) != 2 || !r.Pushed[0].Queued || r.Pushed[1].Reason != ReasonDuplicate || r.Failed != 1 {
			t.Errorf("Apply(push, fail) = %+v", r)
		}
		wantCounts(t, f, 1, 0, 1)
		if got := urls(t, pop(t, f, 5, t0)); len(got) != 1 || got[0] != "http://a.test/x" {
			t.Errorf("Pop = %v", got)
		}
	})
}

// TestFailEndsCrawl: a crawl loop whose stage fails some pages still ends
// (Pop says Done) with the failed pages dead, and a consumer's window is
// freed by its fails.
func TestFailEndsCrawl(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/p"))
		c := join(t, f, elsewhere, t0)
		pages, failed := 0, 0
		for turn := 0; ; turn++ {
			if turn > 50 {
				t.Fatalf("the crawl did not end: %+v", counts(t, f))
			}
			res := popAs(t, f, c, 10, 2, t0)
			if len(res.Leased) == 0 {
				if !res.Done {
					t.Fatalf("nothing handed out, not Done: %+v", counts(t, f))
				}
				break
			}
			var b Batch
			for i, u := range urls(t, res.Leased) {
				pages++
				lease := res.Leased[i].Lease
				if strings.HasSuffix(u, "/bad") {
					b.Fails = append(b.Fails, Fail{Lease: lease, Reason: "invalid_record"})
					failed++
					continue
				}
				if depth := strings.Count(u, "/") - 2; depth < 3 {
					b.Entries = append(b.Entries, req(t, u+"/ok", "depth", depth), req(t, u+"/bad", "depth", depth))
				}
				b.Acks = append(b.Acks, lease)
			}
			if r := apply(t, f, b, t0); r.Failed != len(b.Fails) || r.Acks.Acked != len(b.Acks) {
				t.Fatalf("Apply = %+v for %d acks, %d fails", r, len(b.Acks), len(b.Fails))
			}
		}
		if pages != 5 || failed != 2 {
			t.Errorf("%d pages, %d failed; want 5, 2", pages, failed)
		}
		wantCounts(t, f, 0, 0, 2)
		if held, _ := f.Beat(ctx, c, time.Minute, t0); held != 0 {
			t.Errorf("the consumer still holds %d", held)
		}
	})
}
