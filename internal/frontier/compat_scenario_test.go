package frontier

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The history and the questions of TestRedisReadsUnsplitFromBefore, on
// the Frontier interface only: testdata/compat/gen_5d09b14_test.go runs
// them on the version before (copy this file with it), this package's
// test on today's.

// compatHistory leaves a frontier with two crawls (one stopped), requests
// queued, in flight (a consumer's and a one-off pop's), acked, failed and
// refused as duplicates, a crawl's metadata and its run lock; it returns
// the leases still in flight.
func compatHistory(t *testing.T, f Frontier) []string {
	t.Helper()
	push(t, f, t0,
		req(t, "http://a.test/1", "crawl", "c1", "app", "a1"),
		req(t, "http://a.test/2", "crawl", "c1", "app", "a1", "prio", 2),
		req(t, "http://b.test/1", "crawl", "c1", "app", "a1", "prio", 1),
		req(t, "http://b.test/2", "crawl", "c1", "app", "a1"),
		req(t, "http://a.test/3", "crawl", "c1", "app", "a1", "depth", 1),
		req(t, "http://c.test/1", "crawl", "c2"),
		req(t, "http://c.test/2", "crawl", "c2"),
		req(t, "http://a.test/1", "crawl", "c1", "app", "a1")) // a duplicate
	c := join(t, f, elsewhere, t0)
	held := popAs(t, f, c, 2, 0, t0).Leased
	oneOff := pop(t, f, 1, t0)
	if _, err := f.Ack(ctx, leases(oneOff), t0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Apply(ctx, Batch{Fails: []Fail{{Lease: held[1].Lease, Reason: "too_large"}}}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stop(ctx, "c2", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.SetCrawlMeta(ctx, "c1", map[string]string{"rules": "rules.yml"}, false); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := f.LockCrawl(ctx, "c1", "host 1 boot", "", time.Hour, t0); err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	return leases(held[:1])
}

// compatAnswers asks f what it holds, then acks the leases in flight,
// pops and acks the rest and pushes again, and returns every answer as
// text (lease nonces left out: they are random).
func compatAnswers(t *testing.T, f Frontier, inFlight []string) map[string]string {
	t.Helper()
	now := t0.Add(time.Second)
	out := map[string]string{}
	must := func(what string, v any, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		out[what] = fmt.Sprint(v)
	}
	c, err := f.Counts(ctx)
	must("counts", c, err)
	info, err := f.Info(ctx, InfoFilter{})
	must("info", jsonOf(info), err)
	st, err := f.Stats(ctx)
	must("stats", st, err)
	cs, err := f.Consumers(ctx)
	must("consumers", cs, err)
	meta, err := f.CrawlMeta(ctx, "c1")
	must("crawl meta", meta, err)
	cur, ok, err := f.LockCrawl(ctx, "c1", "other 2 boot", "", time.Hour, now)
	must("lock by another", fmt.Sprint(cur, " ", ok), err)
	out["dump"] = dumpState(t, f)
	a, err := f.Ack(ctx, inFlight, now)
	must("ack in flight", a, err)
	res, err := f.Pop(ctx, PopOptions{Max: 10, Lease: time.Minute}, now)
	var popped []string
	for _, l := range res.Leased {
		popped = append(popped, fmt.Sprintf("%s %s/%s prio %d", urls(t, []Leased{l})[0], l.CrawlID, l.Host, l.Priority))
	}
	must("pop", strings.Join(popped, "; "), err)
	a, err = f.Ack(ctx, leases(res.Leased), now)
	must("ack popped", a, err)
	done, err := f.Done(ctx)
	must("done", done, err)
	pr, err := f.Push(ctx, []Entry{req(t, "http://a.test/1", "crawl", "c1", "app", "a1"), req(t, "http://c.test/3", "crawl", "c2"),
		req(t, "http://d.test/1", "crawl", "c1", "app", "a1")}, now)
	must("push again", pr, err)
	st, err = f.Stats(ctx)
	must("stats after", st, err)
	return out
}
