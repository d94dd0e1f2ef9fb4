package frontier

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// The conformance suite: one behaviour suite for the Frontier interface,
// as restic's internal/backend/test is one for its backends. Every test
// of the conformance_*_test.go files runs against every backend
// (backendNames), each a fresh, empty frontier opened through the
// package's openers, OpenSQLite and OpenRedis:
//
//	sqlite    an SQLite file in t.TempDir()
//	redis     the Redis frontier on a real redis-server (one shard, the default)
//	cluster   the same on a real Redis Cluster of three masters (one shard, one slot)
//	sharded   the same cluster, the frontier split in three (shards=3), a shard a master
//	replayed  the Redis frontier running each pop and push twice, as when a
//	          retry follows a lost answer: the second run must answer and
//	          change exactly what the first did
//
// The files: conformance_order (priority, FIFO and LIFO, the turns of
// hosts, the duplicate filter), _lease (leases, acks, expiries, Apply,
// releases), _fail, _admin (stop, expire, info, dump, concurrent
// poppers), _consumer and _hostwindow (consumers, windows, heartbeats),
// _consumers_list, _crawlmeta, and _agree (seeded random histories on
// which the backends must answer alike at every step). What only one
// implementation has is tested beside it: sqlite_test.go and
// redis_*_test.go.

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

// backendNames are the backends each runs, in order (see above).
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

// invariants checks f's bookkeeping against its rows or keys.
func invariants(t *testing.T, f Frontier) {
	t.Helper()
	switch f := f.(type) {
	case *SQLite:
		sqliteInvariants(t, f)
	case *Redis:
		for _, s := range f.shards {
			redisInvariants(t, s)
		}
	}
}
