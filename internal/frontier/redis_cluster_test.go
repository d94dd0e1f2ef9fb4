package frontier

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
	"github.com/crawlutils/crawlutils/internal/throttle"
)

// The conformance suite and TestBackendsAgree run the Redis frontier on a
// Redis Cluster too (the "cluster" backend), where a script touching a key
// outside its slot fails: passing them shows no script does. This test
// looks at the keys themselves.

// TestRedisClusterKeysInOneSlot runs every operation of the frontier, the
// seen-sets and the throttle under one prefix on a cluster, then finds
// every key of that prefix on every master: all are on one node, in the
// slot CLUSTER KEYSLOT gives the prefix, the slot storage.RedisSlot
// computes; and the names are the single-server ones with the prefix in
// braces.
func TestRedisClusterKeysInOneSlot(t *testing.T) {
	url := redistest.SharedCluster(t)
	prefix := fmt.Sprintf("slots%d:", prefixN.Add(1))
	f := openTestRedisPrefix(t, url, Options{Prefix: prefix, DedupeTTL: time.Hour})
	if want := "{" + prefix + "}"; f.prefix != want {
		t.Fatalf("key prefix %q on a cluster, want %q", f.prefix, want)
	}

	c, err := f.Join(ctx, Consumer{Host: "elsewhere.test", PID: 1, Boot: "b"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	push(t, f, t0,
		req(t, "http://a.test/1", "crawl", "c1", "expires", t0.Add(time.Hour).Unix()),
		req(t, "http://b.test/2", "crawl", "c1"),
		req(t, "http://a.test/3", "crawl", "c2"),
		req(t, "http://b.test/4", "crawl", "c2"),
		req(t, "http://c.test/5", "crawl", "c2"))
	res, err := f.Pop(ctx, PopOptions{Max: 3, Lease: time.Minute, Consumer: c, Window: 8}, t0)
	if err != nil || len(res.Leased) != 3 {
		t.Fatalf("pop: %v, %d leased", err, len(res.Leased))
	}
	if _, err := f.Beat(ctx, c, time.Minute, t0); err != nil {
		t.Fatal(err)
	}
	l := res.Leased
	if _, err := f.Apply(ctx, Batch{Acks: []string{l[0].Lease}, Fails: []Fail{{Lease: l[1].Lease, Reason: "bad"}},
		Releases: []string{l[2].Lease}, Entries: []Entry{req(t, "http://a.test/6", "crawl", "c1", "depth", 1)}}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.SetCrawlMeta(ctx, "c1", map[string]string{"rules": "r.yml"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CrawlMeta(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Info(ctx, InfoFilter{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stats(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.Dump(ctx, func(DumpEntry) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Pop(ctx, PopOptions{Max: 1, Lease: time.Minute, Consumer: c, Window: 8}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stop(ctx, "c2", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Expire(ctx, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Reclaim(ctx, t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	c2, err := f.Join(ctx, Consumer{Host: "elsewhere.test", PID: 2, Boot: "b"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Pop(ctx, PopOptions{Max: 1, Lease: time.Minute, Consumer: c2, Window: 8}, t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := f.Leave(ctx, c, t0); err != nil {
		t.Fatal(err)
	}

	d, err := dedupe.OpenRedis(ctx, url, dedupe.Options{Prefix: prefix, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.SeenBatch(ctx, "ns", []dedupe.Key{dedupe.HashKey(1)}, t0); err != nil {
		t.Fatal(err)
	}
	th, err := throttle.OpenRedis(ctx, url, throttle.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	rate, _ := throttle.ParseRate("1/s")
	if _, err := th.Reserve(ctx, []throttle.Request{{Key: "a.test", N: 2, Rate: rate, MaxWait: throttle.NoMaxWait},
		{Key: "b.test", N: 1, Rate: rate, MaxWait: throttle.NoMaxWait}}, t0); err != nil {
		t.Fatal(err)
	}

	// Every key of the prefix, on every master.
	cc := f.conn.Client.(*redis.ClusterClient)
	found := redistest.KeysByMaster(t, cc, "*"+prefix+"*") // node → keys
	var nodes, keys []string
	for n, ks := range found {
		if len(ks) > 0 {
			nodes = append(nodes, n)
			keys = append(keys, ks...)
		}
	}
	if len(nodes) != 1 {
		t.Fatalf("the prefix's keys are on %d nodes: %v", len(nodes), found)
	}
	slot := storage.RedisSlot(f.prefix)
	slices.Sort(keys)
	for _, k := range keys {
		got, err := cc.ClusterKeySlot(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if int(got) != slot || !strings.HasPrefix(k, f.prefix) {
			t.Errorf("key %q: slot %d, want %d (the prefix's)", k, got, slot)
		}
	}
	// What the operations above leave behind, by the single-server names.
	for _, want := range []string{"f:seq", "f:qseq", "f:raw", "f:meta", "f:lease", "f:dead", "f:reason", "f:counts",
		"f:stats", "f:crawls", "f:c:c1", "f:cq:c1", "f:cm:c1", "f:qid", "f:consumers", "f:beats", "seen:c1", "seen:c2",
		"seen:ns", "throttle:a.test", "throttle:b.test"} {
		if !slices.Contains(keys, f.prefix+want) {
			t.Errorf("no key %s%s among %v", f.prefix, want, keys)
		}
	}
}

// openTestRedisPrefix opens a frontier at url with o as it is.
func openTestRedisPrefix(t *testing.T, url string, o Options) *Redis {
	f, err := OpenRedis(ctx, url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestRedisOneServerKeyNamesUnchanged: on one server the key names are
// those of earlier releases (no hash tag), so a frontier, seen-set or
// schedule an earlier release left is used as it is.
func TestRedisOneServerKeyNamesUnchanged(t *testing.T) {
	url := redistest.Start(t)
	f := openTestRedisPrefix(t, url, Options{})
	push(t, f, t0, req(t, "http://a.test/1", "crawl", "c1"))
	th, err := throttle.OpenRedis(ctx, url, throttle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	rate, _ := throttle.ParseRate("1/s")
	if _, err := th.Reserve(ctx, []throttle.Request{{Key: "a.test", N: 1, Rate: rate, MaxWait: throttle.NoMaxWait}}, t0); err != nil {
		t.Fatal(err)
	}
	keys, err := f.conn.Client.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"crawlutils:f:seq", "crawlutils:f:raw", "crawlutils:f:q:1", "crawlutils:seen:c1", "crawlutils:throttle:a.test"} {
		if !slices.Contains(keys, want) {
			t.Errorf("no key %s among %v", want, keys)
		}
	}
}
