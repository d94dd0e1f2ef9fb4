package frontier

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// TestShardedKeysSpread: a crawl split over three slots of a three-master
// cluster (shards=3) puts each host's keys, and its share of the
// duplicate filter, in its shard's slot, one shard a master; the unsplit
// prefix keeps the split, the crawl's metadata and its run lock (in the
// metadata's hash). Every
// key of the prefix is in one of those four slots.
func TestShardedKeysSpread(t *testing.T) {
	url := redistest.SharedCluster(t)
	s := openTestSharded(t, url, 3, Options{})
	base := s.prefix
	var es []Entry
	hosts := map[int][]string{} // shard → hosts
	for h := range 30 {
		host := fmt.Sprintf("h%d.test", h)
		es = append(es, req(t, "http://"+host+"/1", "crawl", "c1"))
		i := storage.ShardOf(host, 3)
		hosts[i] = append(hosts[i], host)
	}
	push(t, s, t0, es...)
	ls := pop(t, s, 10, t0)
	if _, err := s.Ack(ctx, leases(ls), t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetCrawlMeta(ctx, "c1", map[string]string{"rules": "r.yml"}, false); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.LockCrawl(ctx, "c1", "me", "", time.Minute, t0); err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	for i := range 3 {
		if len(hosts[i]) == 0 {
			t.Fatalf("no host of 30 in shard %d", i)
		}
	}

	cc := s.conn.Client.(*redis.ClusterClient)
	byNode := redistest.KeysByMaster(t, cc, "*"+strings.Trim(base, "{}")+"*")
	slots := map[int]string{storage.RedisSlot(base): "control"}
	for i, r := range s.shards {
		slots[storage.RedisSlot(r.prefix)] = fmt.Sprint("shard ", i)
	}
	nodesOfShards := map[string]bool{}
	for node, keys := range byNode {
		for _, k := range keys {
			where, ok := slots[storage.RedisSlot(k)]
			if !ok {
				t.Errorf("key %q (node %s) in slot %d, none of the crawl's", k, node, storage.RedisSlot(k))
			}
			if strings.HasPrefix(where, "shard") {
				nodesOfShards[node] = true
			}
		}
	}
	if len(nodesOfShards) != 3 {
		t.Errorf("the shards are on %d masters, want 3: %v", len(nodesOfShards), byNode)
	}
	// What lives where.
	all := flatten(byNode)
	for _, want := range []string{base + "shards", base + "f:cm:c1"} { // the run lock is in f:cm
		if !slices.Contains(all, want) {
			t.Errorf("no key %s among %v", want, all)
		}
	}
	for i, r := range s.shards {
		for _, want := range []string{r.prefix + "f:counts", r.prefix + "seen:c1"} {
			if !slices.Contains(all, want) {
				t.Errorf("shard %d: no key %s", i, want)
			}
		}
		n, err := cc.SCard(ctx, r.prefix+"seen:c1").Result()
		if err != nil || int(n) != len(hosts[i]) {
			t.Errorf("shard %d: its seen set holds %d fingerprints, %v; want its %d hosts' one each", i, n, err, len(hosts[i]))
		}
	}
	if slices.ContainsFunc(all, func(k string) bool { return strings.HasPrefix(k, base+"f:q") || k == base+"f:raw" }) {
		t.Errorf("requests under the unsplit prefix: %v", all)
	}
}

func flatten(m map[string][]string) []string {
	var out []string
	for _, ks := range m {
		out = append(out, ks...)
	}
	return out
}

// TestShardedTurns: a pop asks every shard for its share and hands their
// requests out interleaved; within a shard, priority and the turns of its
// hosts hold; a lease names its shard, and a lease of no shard is unknown.
func TestShardedTurns(t *testing.T) {
	s := openTestSharded(t, redistest.SharedCluster(t), 3, Options{})
	// One host per shard, three requests each, and a fourth host sharing
	// shard 0 with a priority above the others.
	hostIn := func(i int, not string) string {
		for h := 0; ; h++ {
			host := fmt.Sprintf("s%d-%d.test", i, h)
			if storage.ShardOf(host, 3) == i && host != not {
				return host
			}
		}
	}
	a, b, c := hostIn(0, ""), hostIn(1, ""), hostIn(2, "")
	urgent := hostIn(0, a)
	for n := range 3 {
		push(t, s, t0, req(t, fmt.Sprintf("http://%s/%d", a, n)), req(t, fmt.Sprintf("http://%s/%d", b, n)), req(t, fmt.Sprintf("http://%s/%d", c, n)))
	}
	push(t, s, t0, req(t, "http://"+urgent+"/1", "prio", 5))
	ls := pop(t, s, 6, t0)
	var got []string
	for _, l := range ls {
		got = append(got, l.Host)
		if i, _ := s.shardOfLease(l.Lease); l.Lease[:2] != fmt.Sprint(i, ":") || storage.ShardOf(l.Host, 3) != i {
			t.Errorf("lease %q of %s: shard %d", l.Lease, l.Host, i)
		}
	}
	// Two from each shard: shard 0 its urgent host first, then a.
	slices.Sort(got)
	want := []string{a, b, b, c, c, urgent}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("first pop of 6: %v, want %v", got, want)
	}
	if r, err := s.Ack(ctx, []string{"9:1.0123456789abcdef", "x", "1.0123456789abcdef", ls[0].Lease}, t0); err != nil || r.Acked != 1 || r.Unknown != 3 {
		t.Errorf("acks of leases of no shard: %+v, %v", r, err)
	}
	st, _ := s.Stats(ctx)
	if st[StatAckUnknown] != 3 {
		t.Errorf("Stats = %v", st)
	}
}

// TestShardedApplyOrder: a batch whose requests and acks fall in
// different shards stores the shards that only get requests before those
// with acks, so that no page is acked with its follow-ups still unstored.
func TestShardedApplyOrder(t *testing.T) {
	s := openTestSharded(t, redistest.SharedCluster(t), 3, Options{})
	var es []Entry
	for h := range 12 {
		es = append(es, req(t, fmt.Sprintf("http://h%d.test/1", h)))
	}
	push(t, s, t0, es...)
	ls := pop(t, s, 1, t0)
	ackShard, _ := s.shardOfLease(ls[0].Lease)
	var mu sync.Mutex
	var order []string
	s.split.applyHook = func(i int, b Batch) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, fmt.Sprintf("%d:%d/%d", i, len(b.Entries), len(b.Acks)))
	}
	var follow []Entry
	for h := range 12 {
		follow = append(follow, req(t, fmt.Sprintf("http://h%d.test/2", h)))
	}
	r, err := s.Apply(ctx, Batch{Entries: follow, Acks: leases(ls)}, t0)
	if err != nil || r.Acks.Acked != 1 || len(r.Pushed) != 12 {
		t.Fatalf("apply: %+v %v", r, err)
	}
	if len(order) != 3 || !strings.HasPrefix(order[2], fmt.Sprint(ackShard, ":")) || strings.HasSuffix(order[0], "/1") || strings.HasSuffix(order[1], "/1") {
		t.Errorf("shards applied in the order %v; the ack is in shard %d and must come last", order, ackShard)
	}
}

// TestShardedPriorityWins: a split frontier weighs its shards by the
// priority at their heads: a request of a higher priority than every
// other is handed out by the next pop when this process pushed it, and
// within two when another did (the first pop learns of it); one pop's
// requests come highest priority first.
func TestShardedPriorityWins(t *testing.T) {
	url := redistest.SharedCluster(t)
	s := openTestSharded(t, url, 3, Options{})
	var es []Entry
	for h := range 30 {
		es = append(es, req(t, fmt.Sprintf("http://h%d.test/1", h)), req(t, fmt.Sprintf("http://h%d.test/2", h)))
	}
	push(t, s, t0, es...)
	pop(t, s, 3, t0) // every shard says what is at its head
	push(t, s, t0, req(t, "http://urgent.test/1", "prio", 9))
	if ls := pop(t, s, 1, t0); ls[0].Host != "urgent.test" {
		t.Errorf("pushed here, the urgent request was not the next handed out: %s", ls[0].Host)
	}

	// Pushed by another process.
	other, err := OpenRedis(ctx, fmt.Sprintf("%s?shards=3", url), Options{Prefix: strings.Trim(s.prefix, "{}")})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	push(t, other, t0, req(t, "http://later.test/1", "prio", 8))
	var hosts []string
	for range 2 {
		hosts = append(hosts, pop(t, s, 1, t0)[0].Host)
	}
	if !slices.Contains(hosts, "later.test") {
		t.Errorf("pushed by another process, the urgent request was not handed out within two pops: %v", hosts)
	}

	// Pops of one follow the priorities across the shards, each pop
	// learning every shard's head: after the first, which may not know of
	// the new ones yet, the priorities go down.
	push(t, other, t0, req(t, "http://a.test/1", "prio", 3), req(t, "http://b.test/1", "prio", 5), req(t, "http://c.test/1", "prio", 4))
	var prios []int
	for range 4 {
		prios = append(prios, pop(t, s, 1, t0)[0].Priority)
	}
	if !slices.IsSortedFunc(prios[1:], func(a, b int) int { return b - a }) || !slices.Contains(prios, 5) || !slices.Contains(prios, 4) || !slices.Contains(prios, 3) {
		t.Errorf("four pops of one: priorities %v, want 5, 4 and 3 among them, going down after the first", prios)
	}
	// A pop of 8: each shard's best first, highest first.
	push(t, other, t0, req(t, "http://a.test/2", "prio", 3), req(t, "http://b.test/2", "prio", 5), req(t, "http://c.test/2", "prio", 4))
	prios = nil
	for _, l := range pop(t, s, 8, t0) {
		prios = append(prios, l.Priority)
	}
	if len(prios) != 8 || !slices.Equal(prios[:3], []int{5, 4, 3}) || !slices.IsSortedFunc(prios, func(a, b int) int { return b - a }) {
		t.Errorf("a pop of 8: priorities %v, want 8, 5 4 3 first", prios)
	}
}
