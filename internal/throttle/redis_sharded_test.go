package throttle

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// TestRedisShardedKeys: with shards=3 on a cluster, a reservation over
// many hosts and holds on some of them leave each host's schedule and
// hold in the slot of its shard (storage.ShardOf of the host), on every
// master; Len and Holds see every shard; and a handle asking another
// split of the prefix is refused.
func TestRedisShardedKeys(t *testing.T) {
	url := redistest.SharedCluster(t)
	prefix := testPrefix("spread")
	s, err := OpenRedis(ctx, url+"?shards=3", Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.shards) != 3 {
		t.Fatalf("%d shards, want 3", len(s.shards))
	}
	r := mustRate(t, "1/s", 1)
	var reqs []Request
	for i := range 30 {
		reqs = append(reqs, Request{Key: fmt.Sprintf("host%d.test", i), N: 1 + i%2, Rate: r, MaxWait: NoMaxWait})
	}
	reply, err := s.Reserve(ctx, reqs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range reply.Grants {
		if g.Granted != reqs[i].N || g.Interval != r.Interval {
			t.Fatalf("grant %d (%s) = %+v, want %d slots", i, reqs[i].Key, g, reqs[i].N)
		}
	}
	// A second call answers each key after its first: the replies are
	// reassembled in the caller's order.
	again, err := s.Reserve(ctx, reqs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range again.Grants {
		if w := g.Wait(0); w < time.Duration(reqs[i].N-1)*r.Interval {
			t.Fatalf("key %s: second call's slot in %v, want after its first call's %d", reqs[i].Key, w, reqs[i].N)
		}
	}
	held := []string{"host1.test", "host2.test", "host3.test", "host4.test", "held-only.test"}
	for _, h := range held {
		if err := s.Hold(ctx, h, time.Now().Add(time.Minute), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Holds(ctx, append([]string{"host0.test", "nowhere.test"}, held...), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(held) {
		t.Errorf("Holds found %v, want the %d held", got, len(held))
	}
	for _, h := range held {
		if d := got[h]; d <= 50*time.Second || d > time.Minute {
			t.Errorf("hold of %s ends in %v, want a minute", h, d)
		}
	}
	if n, err := s.Len(ctx); err != nil || n != 31 {
		t.Errorf("Len %d (%v), want 31", n, err)
	}

	// Every key of the prefix, on every master.
	cc := s.client.(*redis.ClusterClient)
	found := redistest.KeysByMaster(t, cc, "*"+prefix+"*")
	n := 0
	for node, keys := range found {
		if len(keys) == 0 {
			t.Errorf("master %s holds none of the keys", node)
		}
		for _, k := range keys {
			n++
			if k == storage.ShardsKey(s.prefix) {
				continue
			}
			i, host := shardedKey(s.shards, k)
			switch {
			case i < 0:
				t.Errorf("key %q is under no shard's prefix", k)
			case storage.ShardOf(host, 3) != i:
				t.Errorf("key %q of host %s in shard %d, want %d", k, host, i, storage.ShardOf(host, 3))
			default:
				slot, err := cc.ClusterKeySlot(ctx, k).Result()
				if err != nil {
					t.Fatal(err)
				}
				if int(slot) != storage.RedisSlot(s.shards[i]) {
					t.Errorf("key %q in slot %d, want shard %d's %d", k, slot, i, storage.RedisSlot(s.shards[i]))
				}
			}
		}
	}
	if want := 30 + len(held) + 1; n != want {
		t.Errorf("%d keys, want %d: 30 schedules, %d holds and the split", n, want, len(held))
	}

	for _, q := range []string{"", "?shards=2"} {
		if o, err := OpenRedis(ctx, url+q, Options{Prefix: prefix}); err == nil || !strings.Contains(err.Error(), "split into 3 shards") {
			if o != nil {
				o.Close()
			}
			t.Errorf("opened with %q: %v, want refused", q, err)
		}
	}
}

// shardedKey returns the shard of key, a schedule or a hold, and its
// host; -1 when it is under no shard's prefix.
func shardedKey(shards []string, key string) (int, string) {
	for i, p := range shards {
		for _, part := range []string{"throttle:", "throttle-hold:"} {
			if host, ok := strings.CutPrefix(key, p+part); ok {
				return i, host
			}
		}
	}
	return -1, ""
}
