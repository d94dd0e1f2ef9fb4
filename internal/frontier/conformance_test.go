package frontier

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// The conformance suite: every test runs against every backend, an SQLite
// file in t.TempDir(), a real redis-server, and the same Redis frontier on
// a real Redis Cluster.

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

var prefixN atomic.Int64

// backends returns an opener per backend; each call opens a fresh, empty
// frontier (Redis: one server per test, a new key prefix per frontier).
func backends(t *testing.T) map[string]func(t *testing.T, o Options) Frontier {
	var once sync.Once
	var url string
	return map[string]func(t *testing.T, o Options) Frontier{
		"sqlite": func(t *testing.T, o Options) Frontier {
			f, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "frontier.db"), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
		"redis": func(t *testing.T, o Options) Frontier {
			once.Do(func() { url = redistest.Start(t) })
			return openTestRedis(t, url, o)
		},
		"cluster": func(t *testing.T, o Options) Frontier {
			return openTestRedis(t, redistest.SharedCluster(t), o)
		},
		"replayed": func(t *testing.T, o Options) Frontier {
			once.Do(func() { url = redistest.Start(t) })
			f := openTestRedis(t, url, o)
			f.replayed = true
			return f
		},
	}
}

// backendNames are the backends each runs, in order: the cluster is the
// Redis frontier on a Redis Cluster (three masters, shared by the tests);
// replayed is the Redis frontier running each pop and push twice, as
// when a retry follows a lost answer: the second run must answer and
// change exactly what the first did.
var backendNames = []string{"sqlite", "redis", "cluster", "replayed"}

// openTestRedis opens a frontier at url under a new key prefix.
func openTestRedis(t *testing.T, url string, o Options) *Redis {
	o.Prefix = fmt.Sprintf("test%d:", prefixN.Add(1))
	f, err := OpenRedis(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// each runs fn against a fresh frontier of each backend.
func each(t *testing.T, o Options, fn func(t *testing.T, f Frontier)) {
	for _, name := range backendNames {
		open := backends(t)[name]
		t.Run(name, func(t *testing.T) { fn(t, open(t, o)) })
	}
}

// req is a request record for tests: url, then key=value options.
func req(t testing.TB, url string, kv ...any) Entry {
	t.Helper()
	r := record.Request{Kind: record.KindRequest, URL: url}
	for i := 0; i+1 < len(kv); i += 2 {
		switch kv[i] {
		case "crawl":
			r.CrawlID = kv[i+1].(string)
		case "app":
			r.AppID = kv[i+1].(string)
		case "prio":
			r.Priority = kv[i+1].(int)
		case "depth":
			r.Depth = kv[i+1].(int)
		case "expires":
			r.Expires = kv[i+1].(int64)
		case "dont_filter":
			r.DontFilter = kv[i+1].(bool)
		case "method":
			r.Method = kv[i+1].(string)
		default:
			t.Fatalf("req: unknown option %v", kv[i])
		}
	}
	e, err := NewEntry(r, KeyFast)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var ctx = context.Background()

func push(t *testing.T, f Frontier, now time.Time, es ...Entry) []PushResult {
	t.Helper()
	res, err := f.Push(ctx, es, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(es) {
		t.Fatalf("Push returned %d results for %d entries", len(res), len(es))
	}
	return res
}

func pop(t *testing.T, f Frontier, max int, now time.Time) []Leased {
	t.Helper()
	res, err := f.Pop(ctx, PopOptions{Max: max, Lease: time.Minute}, now)
	if err != nil {
		t.Fatal(err)
	}
	return res.Leased
}

// urls returns the "url" of each leased request, checking each has its lease.
func urls(t *testing.T, ls []Leased) []string {
	t.Helper()
	var out []string
	for _, l := range ls {
		var r record.Request
		if err := record.Decode(l.Raw, &r); err != nil {
			t.Fatalf("popped %s: %v", l.Raw, err)
		}
		if r.Lease != l.Lease || l.Lease == "" {
			t.Fatalf("popped %s: lease field %q, Leased.Lease %q", l.Raw, r.Lease, l.Lease)
		}
		out = append(out, r.URL)
	}
	return out
}

func leases(ls []Leased) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Lease)
	}
	return out
}

func counts(t *testing.T, f Frontier) Counts {
	t.Helper()
	c, err := f.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantCounts(t *testing.T, f Frontier, queued, inFlight, dead int64) {
	t.Helper()
	if c := counts(t, f); c != (Counts{queued, inFlight, dead}) {
		t.Errorf("Counts = %+v, want queued %d, in flight %d, dead %d", c, queued, inFlight, dead)
	}
}

func TestPriorityThenFIFO(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0,
			req(t, "http://a.test/1", "prio", 1),
			req(t, "http://a.test/2", "prio", 5),
			req(t, "http://a.test/3", "prio", 3),
			req(t, "http://a.test/4", "prio", 5),
			req(t, "http://a.test/5", "prio", -2),
			req(t, "http://a.test/6", "prio", 1))
		got := urls(t, pop(t, f, 10, t0))
		want := []string{"http://a.test/2", "http://a.test/4", "http://a.test/3", "http://a.test/1", "http://a.test/6", "http://a.test/5"}
		if !slices.Equal(got, want) {
			t.Errorf("pop order\n got %v\nwant %v", got, want)
		}
	})
}

func TestLIFO(t *testing.T) {
	each(t, Options{Order: LIFO}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1"), req(t, "http://a.test/2"), req(t, "http://a.test/3", "prio", 1))
		push(t, f, t0, req(t, "http://a.test/4"))
		got := urls(t, pop(t, f, 10, t0))
		want := []string{"http://a.test/3", "http://a.test/4", "http://a.test/2", "http://a.test/1"}
		if !slices.Equal(got, want) {
			t.Errorf("pop order\n got %v\nwant %v", got, want)
		}
	})
}

// TestDepthPriority: Scrapy's DEPTH_PRIORITY = 1 gives breadth-first order.
func TestDepthPriority(t *testing.T) {
	each(t, Options{DepthPriority: 1}, func(t *testing.T, f Frontier) {
		push(t, f, t0,
			req(t, "http://a.test/deep", "depth", 2),
			req(t, "http://a.test/mid", "depth", 1),
			req(t, "http://a.test/seed"))
		ls := pop(t, f, 10, t0)
		if got, want := urls(t, ls), []string{"http://a.test/seed", "http://a.test/mid", "http://a.test/deep"}; !slices.Equal(got, want) {
			t.Errorf("pop order\n got %v\nwant %v", got, want)
		}
		if ls[2].Priority != -2 {
			t.Errorf("depth-2 request queued at priority %d, want -2", ls[2].Priority)
		}
	})
}

// TestFairAcrossHosts: a host with many queued requests takes turns with
// hosts that have few; a host arriving later joins the rotation.
func TestFairAcrossHosts(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		var big []Entry
		for i := range 1000 {
			big = append(big, req(t, fmt.Sprintf("http://big.test/%d", i)))
		}
		push(t, f, t0, big...)
		push(t, f, t0, req(t, "http://small.test/1"), req(t, "http://small.test/2"))
		first := pop(t, f, 4, t0)
		hosts := func(ls []Leased) (out []string) {
			for _, l := range ls {
				out = append(out, l.Host)
			}
			return out
		}
		if got, want := hosts(first), []string{"big.test", "small.test", "big.test", "small.test"}; !slices.Equal(got, want) {
			t.Errorf("first pops from %v, want %v", got, want)
		}
		// A newcomer waits at most one rotation, even behind 996 requests.
		push(t, f, t0, req(t, "http://late.test/1"))
		if got := hosts(pop(t, f, 2, t0)); !slices.Contains(got, "late.test") {
			t.Errorf("late host not served within 2 pops: %v", got)
		}
		// Priority wins over fairness.
		push(t, f, t0, req(t, "http://urgent.test/1", "prio", 9))
		if got := hosts(pop(t, f, 1, t0)); got[0] != "urgent.test" {
			t.Errorf("high-priority host not served first: %v", got)
		}
	})
}

// TestFairnessOnePopAtATime: the rotation holds across Pop calls, not just
// within one batch.
func TestFairnessOnePopAtATime(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		for _, h := range []string{"a", "b", "c"} {
			for i := range 3 {
				push(t, f, t0, req(t, fmt.Sprintf("http://%s.test/%d", h, i)))
			}
		}
		var got []string
		for range 9 {
			ls := pop(t, f, 1, t0)
			got = append(got, ls[0].Host[:1])
		}
		if want := strings.Split("abcabcabc", ""); !slices.Equal(got, want) {
			t.Errorf("hosts served %v, want %v", got, want)
		}
	})
}

func TestDedupe(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		res := push(t, f, t0,
			req(t, "http://a.test/p?b=2&a=1", "crawl", "c1"),
			req(t, "http://a.test/p?a=1&b=2#frag", "crawl", "c1"), // same canonical URL
			req(t, "http://a.test/p?a=1&b=2", "crawl", "c2"),      // other crawl
			req(t, "http://a.test/p?a=1&b=2", "crawl", "c1", "dont_filter", true),
			req(t, "http://a.test/p?a=1&b=2", "crawl", "c1", "method", "POST"))
		want := []PushResult{{Queued: true}, {Reason: ReasonDuplicate}, {Queued: true}, {Queued: true}, {Queued: true}}
		if !slices.Equal(res, want) {
			t.Errorf("Push = %+v\nwant %+v", res, want)
		}
		// Popped and acked, a request stays seen.
		ls := pop(t, f, 10, t0)
		if _, err := f.Ack(ctx, leases(ls), t0); err != nil {
			t.Fatal(err)
		}
		res = push(t, f, t0, req(t, "http://a.test/p?b=2&a=1", "crawl", "c1"))
		if res[0].Reason != ReasonDuplicate {
			t.Errorf("re-push after ack = %+v, want duplicate", res[0])
		}
		st, _ := f.Stats(ctx)
		if st["refused_duplicate"] != 2 || st[StatPushed] != 4 {
			t.Errorf("Stats = %v", st)
		}
	})
}

// TestDedupeTTL: a crawl's duplicate filter is forgotten after it has been
// idle for DedupeTTL.
func TestDedupeTTL(t *testing.T) {
	now := time.Now() // Redis enforces the expiry with its own clock
	each(t, Options{DedupeTTL: time.Hour}, func(t *testing.T, f Frontier) {
		push(t, f, now.Add(-3*time.Hour), req(t, "http://a.test/", "crawl", "old"))
		push(t, f, now.Add(-30*time.Minute), req(t, "http://a.test/", "crawl", "recent"))
		res := push(t, f, now, req(t, "http://a.test/", "crawl", "old"), req(t, "http://a.test/", "crawl", "recent"))
		if !res[0].Queued || res[1].Reason != ReasonDuplicate {
			t.Errorf("Push = %+v; want the idle crawl's filter expired, the recent one's kept", res)
		}
	})
}

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

func TestStop(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0,
			req(t, "http://a.test/1", "crawl", "c1"),
			req(t, "http://b.test/2", "crawl", "c1"),
			req(t, "http://a.test/3", "crawl", "c1"),
			req(t, "http://a.test/1", "crawl", "c2"))
		inflight := pop(t, f, 1, t0) // c1's a.test/1 (c1 queues come first)
		if inflight[0].CrawlID != "c1" {
			t.Fatalf("popped %+v", inflight[0])
		}
		n, err := f.Stop(ctx, "c1", t0)
		if err != nil || n != 2 {
			t.Fatalf("Stop = %d, %v; want 2 purged", n, err)
		}
		wantCounts(t, f, 1, 1, 0)
		if res := push(t, f, t0, req(t, "http://new.test/", "crawl", "c1")); res[0].Reason != ReasonStopped {
			t.Errorf("push to a stopped crawl = %+v", res[0])
		}
		// In-flight requests of a stopped crawl finish normally.
		if a, _ := f.Ack(ctx, leases(inflight), t0); a.Acked != 1 {
			t.Errorf("ack after stop = %+v", a)
		}
		// Blacklisting a crawl before it starts.
		if n, err := f.Stop(ctx, "c3", t0); n != 0 || err != nil {
			t.Errorf("Stop(new crawl) = %d, %v", n, err)
		}
		if res := push(t, f, t0, req(t, "http://a.test/", "crawl", "c3")); res[0].Reason != ReasonStopped {
			t.Errorf("push to a blacklisted crawl = %+v", res[0])
		}
		// An in-flight request of a stopped crawl whose lease expires is dropped.
		push(t, f, t0, req(t, "http://a.test/9", "crawl", "c4"))
		pop(t, f, 5, t0)
		f.Stop(ctx, "c4", t0)
		if r, _ := f.Reclaim(ctx, t0.Add(time.Hour)); r.Dropped != 1 {
			t.Errorf("Reclaim after stop = %+v, want 1 dropped", r)
		}
		info, _ := f.Info(ctx, InfoFilter{CrawlID: "c1"})
		if len(info.Crawls) != 1 || info.Crawls[0].State != StateStopped {
			t.Errorf("Info(c1) = %+v", info)
		}
	})
}

func TestExpire(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		exp := t0.Add(time.Minute).Unix()
		push(t, f, t0,
			req(t, "http://a.test/1", "crawl", "c1", "app", "app1", "expires", exp),
			req(t, "http://a.test/2", "crawl", "c1", "app", "app1", "expires", exp),
			req(t, "http://a.test/3", "crawl", "c2"))
		if res := push(t, f, t0, req(t, "http://a.test/old", "crawl", "c3", "expires", t0.Unix())); res[0].Reason != ReasonExpired {
			t.Errorf("push of an expired request = %+v", res[0])
		}
		if ex, _ := f.Expire(ctx, t0); len(ex) != 0 {
			t.Errorf("Expire before expiry = %+v", ex)
		}
		inflight := pop(t, f, 1, t0)
		after := t0.Add(2 * time.Minute)
		ex, err := f.Expire(ctx, after)
		if err != nil {
			t.Fatal(err)
		}
		if want := []Expired{{CrawlID: "c1", AppID: "app1", Expires: exp, Purged: 1}}; !slices.Equal(ex, want) {
			t.Errorf("Expire = %+v, want %+v", ex, want)
		}
		if ex, _ := f.Expire(ctx, after); len(ex) != 0 {
			t.Errorf("second Expire reported again: %+v", ex)
		}
		wantCounts(t, f, 1, 1, 0)
		f.Ack(ctx, leases(inflight), after)
		if got := urls(t, pop(t, f, 5, after)); !slices.Equal(got, []string{"http://a.test/3"}) {
			t.Errorf("Pop after expiry = %v", got)
		}
	})
}

// TestPopPurgesExpired: Pop never hands out a request of an expired crawl,
// and Expire still reports the crawl afterwards.
func TestPopPurgesExpired(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		exp := t0.Add(time.Minute).Unix()
		push(t, f, t0, req(t, "http://a.test/1", "crawl", "c1", "expires", exp), req(t, "http://b.test/1", "crawl", "c2"))
		after := t0.Add(time.Hour)
		if got := urls(t, pop(t, f, 5, after)); !slices.Equal(got, []string{"http://b.test/1"}) {
			t.Errorf("Pop = %v", got)
		}
		if ex, _ := f.Expire(ctx, after); len(ex) != 1 || ex[0].CrawlID != "c1" || ex[0].Purged != 1 {
			t.Errorf("Expire after Pop purged = %+v", ex)
		}
		// A new, later expiry revives the crawl.
		if res := push(t, f, after, req(t, "http://a.test/2", "crawl", "c1", "expires", after.Add(time.Hour).Unix())); !res[0].Queued {
			t.Errorf("push with a new expiry = %+v", res[0])
		}
		info, _ := f.Info(ctx, InfoFilter{CrawlID: "c1"})
		if info.Crawls[0].State != StateActive || info.Crawls[0].Pending != 1 {
			t.Errorf("Info = %+v", info.Crawls[0])
		}
	})
}

func TestInfo(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0,
			req(t, "http://a.test/1", "crawl", "c1", "app", "app1", "prio", 5),
			req(t, "http://a.test/2", "crawl", "c1", "app", "app1", "prio", -1),
			req(t, "http://b.test/1", "crawl", "c1", "app", "app1", "prio", 2),
			req(t, "http://a.test/1", "crawl", "c2", "app", "app2", "expires", t0.Add(time.Hour).Unix()))
		pop(t, f, 1, t0) // c1 a.test/1, priority 5
		info, err := f.Info(ctx, InfoFilter{})
		if err != nil {
			t.Fatal(err)
		}
		want := Info{Crawls: []CrawlInfo{
			{CrawlID: "c1", AppID: "app1", State: StateActive, Pending: 2, InFlight: 1, HighPriority: 2, LowPriority: -1, Hosts: []HostInfo{
				{Host: "a.test", Pending: 1, InFlight: 1, HighPriority: -1, LowPriority: -1},
				{Host: "b.test", Pending: 1, HighPriority: 2, LowPriority: 2},
			}},
			{CrawlID: "c2", AppID: "app2", State: StateActive, Expires: t0.Add(time.Hour).Unix(), Pending: 1, Hosts: []HostInfo{
				{Host: "a.test", Pending: 1},
			}},
		}}
		if g, w := jsonOf(info), jsonOf(want); g != w {
			t.Errorf("Info\n got %s\nwant %s", g, w)
		}
		info, _ = f.Info(ctx, InfoFilter{AppID: "app2"})
		if len(info.Crawls) != 1 || info.Crawls[0].CrawlID != "c2" {
			t.Errorf("Info(appid app2) = %s", jsonOf(info))
		}
		info, _ = f.Info(ctx, InfoFilter{AppID: "app2", CrawlID: "c1"})
		if len(info.Crawls) != 0 {
			t.Errorf("Info(app2, c1) = %s", jsonOf(info))
		}
		info, _ = f.Info(ctx, InfoFilter{CrawlID: "nope"})
		if len(info.Crawls) != 0 {
			t.Errorf("Info(unknown crawl) = %s", jsonOf(info))
		}
	})
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestDump(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		push(t, f, t0, req(t, "http://a.test/1", "crawl", "c"), req(t, "http://a.test/2", "crawl", "c"))
		ls := pop(t, f, 1, t0)
		got := map[string]DumpEntry{}
		err := f.Dump(ctx, func(d DumpEntry) error {
			var r record.Request
			if err := record.Decode(d.Raw, &r); err != nil {
				t.Fatalf("dumped %s: %v", d.Raw, err)
			}
			got[r.URL] = d
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		a, b := got["http://a.test/1"], got["http://a.test/2"]
		if len(got) != 2 || a.State != InFlight || a.Lease != ls[0].Lease || !a.Deadline.Equal(ls[0].Deadline) || b.State != Queued || b.Lease != "" {
			t.Errorf("Dump = %+v", got)
		}
		if !strings.Contains(string(a.Raw), `"lease":"`+ls[0].Lease+`"`) || strings.Contains(string(b.Raw), "lease") {
			t.Errorf("dumped requests %s / %s", a.Raw, b.Raw)
		}
		line := a.Record()
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil || m["frontier"].(map[string]any)["state"] != InFlight {
			t.Errorf("Record() = %s (%v)", line, err)
		}
		stop := fmt.Errorf("stop")
		if err := f.Dump(ctx, func(DumpEntry) error { return stop }); err != stop {
			t.Errorf("Dump did not return fn's error as is: %v", err)
		}
	})
}

// TestRawPassesThrough: unknown fields and exact numbers survive the
// round trip; a lease in a pushed record is dropped.
func TestRawPassesThrough(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		in := `{"kind":"request","url":"http://a.test/","attrs":{"n":12345678901234567890},"lease":"stale","x-custom":[1,"two"]}`
		e, err := ParseEntry([]byte(in), KeyFast)
		if err != nil {
			t.Fatal(err)
		}
		push(t, f, t0, e)
		ls := pop(t, f, 1, t0)
		var got, want map[string]any
		json.Unmarshal(ls[0].Raw, &got)
		json.Unmarshal([]byte(in), &want)
		want["lease"] = ls[0].Lease
		if jsonOf(got) != jsonOf(want) || !strings.Contains(string(ls[0].Raw), "12345678901234567890") {
			t.Errorf("popped %s\nwant %s", ls[0].Raw, jsonOf(want))
		}
	})
}

// TestConcurrentPoppers: goroutines popping and acking concurrently never
// get the same request twice, and together get every request exactly once.
func TestConcurrentPoppers(t *testing.T) {
	each(t, Options{}, func(t *testing.T, f Frontier) {
		const n = 600
		var es []Entry
		for i := range n {
			es = append(es, req(t, fmt.Sprintf("http://h%d.test/%d", i%7, i), "prio", i%3))
		}
		for i := 0; i < n; i += 100 {
			push(t, f, t0, es[i:i+100]...)
		}
		var mu sync.Mutex
		got := map[string]int{}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					res, err := f.Pop(ctx, PopOptions{Max: 7, Lease: time.Hour}, t0)
					ls := res.Leased
					if err != nil {
						t.Error(err)
						return
					}
					if len(ls) == 0 {
						return
					}
					mu.Lock()
					for _, u := range urls(t, ls) {
						got[u]++
					}
					mu.Unlock()
					if _, err := f.Ack(ctx, leases(ls), t0); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if len(got) != n {
			t.Errorf("%d distinct requests popped, want %d", len(got), n)
		}
		for u, c := range got {
			if c != 1 {
				t.Errorf("%s popped %d times", u, c)
			}
		}
		if done, _ := f.Done(ctx); !done {
			t.Errorf("not Done: %+v", counts(t, f))
		}
	})
}
