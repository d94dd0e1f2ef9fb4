package frontier

import (
	"context"
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
		"sharded": func(t *testing.T, o Options) Frontier {
			return openTestSharded(t, redistest.SharedCluster(t), 3, o)
		},
		"replayed": func(t *testing.T, o Options) Frontier {
			once.Do(func() { url = redistest.Start(t) })
			f := openTestRedis(t, url, o)
			for _, s := range f.shards {
				s.replayed = true
			}
			return f
		},
	}
}

// backendNames are the backends each runs, in order: the cluster is the
// Redis frontier on a Redis Cluster (three masters, shared by the tests);
// replayed is the Redis frontier running each pop and push twice, as
// when a retry follows a lost answer: the second run must answer and
// change exactly what the first did.
// sharded is the Redis frontier split over three slots of the cluster
// (shards=3), one a master.
var backendNames = []string{"sqlite", "redis", "cluster", "sharded", "replayed"}

// openTestRedis opens a frontier at url under a new key prefix, not
// split (one shard, the default).
func openTestRedis(t *testing.T, url string, o Options) *Redis {
	o.Prefix = fmt.Sprintf("test%d:", prefixN.Add(1))
	f, err := OpenRedis(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if f.Shards() != 1 {
		t.Fatalf("%s opened a frontier of %d shards, want 1", url, f.Shards())
	}
	return f
}

// openTestSharded opens a frontier at url split into k shards (the URL's
// shards=k), under a new key prefix.
func openTestSharded(t *testing.T, url string, k int, o Options) *Redis {
	o.Prefix = fmt.Sprintf("test%d:", prefixN.Add(1))
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	f, err := OpenRedis(context.Background(), fmt.Sprintf("%s%sshards=%d", url, sep, k), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if f.Shards() != k {
		t.Fatalf("shards=%d opened a frontier of %d shards", k, f.Shards())
	}
	return f
}

// each runs fn against a fresh frontier of each backend.
func each(t *testing.T, o Options, fn func(t *testing.T, f Frontier)) {
	for _, name := range backendNames {
		open := backends(t)[name]
		t.Run(name, func(t *testing.T) { fn(t, open(t, o)) })
	}
}

// eachOrdered is each over the backends that put every host of a
// priority in one rotation: all but the sharded one, whose hosts take
// turns within their shard, the shards taking turns (see
// TestShardedTurns, TestShardedPriorityWins).
func eachOrdered(t *testing.T, o Options, fn func(t *testing.T, f Frontier)) {
	for _, name := range backendNames {
		if name == "sharded" {
			continue
		}
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
	eachOrdered(t, Options{}, func(t *testing.T, f Frontier) {
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
	eachOrdered(t, Options{}, func(t *testing.T, f Frontier) {
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
