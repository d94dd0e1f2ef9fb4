package dedupe

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// TestRedisShardedKeys: with shards=3 on a cluster, a namespace's
// request keys (fast and Scrapy) live in the shard of their host and
// other keys in the shard of their member, each shard's set (and its
// replay keys) in its shard's slot, the three on all three masters; Len
// adds the shards up, Export walks them all, a batch touches every
// shard's expiry, and Forget clears them all.
func TestRedisShardedKeys(t *testing.T) {
	ctx := context.Background()
	url := redistest.SharedCluster(t) + "?shards=3"
	prefix := fmt.Sprintf("spread%d:", clusterPrefixN.Add(1))
	s, err := OpenRedis(ctx, url, Options{Prefix: prefix, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var batch []Key
	for i := range 40 {
		k, err := RequestKey("GET", fmt.Sprintf("http://host%d.test/p%d", i%10, i), "", i%2 == 1)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, k)
	}
	for i := range 20 {
		batch = append(batch, KeyOf([]byte(fmt.Sprint("item", i))))
	}
	now := time.Now()
	got, err := s.SeenBatch(ctx, "c", batch, now)
	if err != nil {
		t.Fatal(err)
	}
	for i, isNew := range got {
		if !isNew {
			t.Errorf("key %d (%v) not new", i, batch[i])
		}
	}
	// Again, with the keys in another order and one new: the answers
	// come back in the caller's order.
	again := append([]Key{HashKey(7)}, batch[30:]...)
	again = append(again, batch[:30]...)
	got, err = s.SeenBatch(ctx, "c", again, now)
	if err != nil {
		t.Fatal(err)
	}
	for i, isNew := range got {
		if isNew != (i == 0) {
			t.Errorf("second batch, key %d (%v): new %v", i, again[i], isNew)
		}
	}
	if n, err := s.Len(ctx, "c", now); err != nil || n != 61 {
		t.Errorf("Len %d (%v), want 61", n, err)
	}
	exported := map[string]bool{}
	if err := s.Export(ctx, "c", now, func(k Key) error { exported[k.Member()] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(exported) != 61 {
		t.Errorf("exported %d keys, want 61", len(exported))
	}

	// Each key in its shard's set.
	for _, k := range append(batch, HashKey(7)) {
		want := storage.ShardOf(k.Member(), 3)
		if k.Host != "" {
			want = storage.ShardOf(k.Host, 3)
		}
		for i, p := range s.shards {
			in, err := s.client.SIsMember(ctx, RedisSeenKey(p, "c"), k.Member()).Result()
			if err != nil {
				t.Fatal(err)
			}
			if in != (i == want) {
				t.Errorf("key %v (host %q) in shard %d: %v; want it in shard %d only", k, k.Host, i, in, want)
			}
		}
	}
	// A batch of one shard's keys refreshes the expiry of all three.
	later := now.Add(30 * time.Minute)
	if _, err := s.SeenBatch(ctx, "c", batch[:1], later); err != nil {
		t.Fatal(err)
	}
	for i, p := range s.shards {
		at, err := s.client.PExpireTime(ctx, RedisSeenKey(p, "c")).Result()
		if err != nil {
			t.Fatal(err)
		}
		if want := later.Add(time.Hour).UnixMilli(); at.Milliseconds() != want {
			t.Errorf("shard %d expires at %d, want %d (the last batch's now + TTL)", i, at.Milliseconds(), want)
		}
	}

	// Every key of the prefix, on every master.
	cc := s.client.(*redis.ClusterClient)
	found := redistest.KeysByMaster(t, cc, "*"+prefix+"*")
	if len(found) != 3 {
		t.Fatalf("%d masters, want 3", len(found))
	}
	sets := 0
	for node, keys := range found {
		if len(keys) == 0 {
			t.Errorf("master %s holds none of the keys", node)
		}
		for _, k := range keys {
			if k == storage.ShardsKey(s.prefix) {
				continue
			}
			shard := -1
			for i, p := range s.shards {
				if strings.HasPrefix(k, p+"seen:c") {
					shard = i
				}
			}
			if shard < 0 {
				t.Errorf("key %q is under no shard's seen set", k)
				continue
			}
			if k == RedisSeenKey(s.shards[shard], "c") {
				sets++
			}
			slot, err := cc.ClusterKeySlot(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			if int(slot) != storage.RedisSlot(s.shards[shard]) {
				t.Errorf("key %q in slot %d, want shard %d's %d", k, slot, shard, storage.RedisSlot(s.shards[shard]))
			}
		}
	}
	if sets != 3 {
		t.Errorf("%d seen sets, want one per shard", sets)
	}

	if err := s.Forget(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Len(ctx, "c", now); err != nil || n != 0 {
		t.Errorf("Len after Forget %d (%v)", n, err)
	}
	for i, p := range s.shards {
		if n, err := s.client.Exists(ctx, RedisSeenKey(p, "c")).Result(); err != nil || n != 0 {
			t.Errorf("shard %d's set left after Forget (%v)", i, err)
		}
	}
}

// TestRedisShardsAgree: a prefix keeps its split; a store asking
// another is refused, and so is shards=K on a prefix an unsplit frontier
// has used.
func TestRedisShardsAgree(t *testing.T) {
	ctx := context.Background()
	url := redistest.SharedCluster(t)
	prefix := fmt.Sprintf("agree%d:", clusterPrefixN.Add(1))
	s, err := OpenRedis(ctx, url+"?shards=3", Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, q := range []string{"", "?shards=2"} {
		if o, err := OpenRedis(ctx, url+q, Options{Prefix: prefix}); err == nil || !strings.Contains(err.Error(), "split into 3 shards") {
			if o != nil {
				o.Close()
			}
			t.Errorf("opened with %q: %v, want refused", q, err)
		}
	}
	used := fmt.Sprintf("used%d:", clusterPrefixN.Add(1))
	c, err := storage.DialRedis(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, _ := c.KeyPrefix(used)
	if err := c.Client.Set(ctx, storage.FrontierUsedKey(p), 1, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if o, err := OpenRedis(ctx, url+"?shards=3", Options{Prefix: used}); err == nil || !strings.Contains(err.Error(), "are not split") {
		if o != nil {
			o.Close()
		}
		t.Errorf("shards=3 on a prefix an unsplit frontier used: %v, want refused", err)
	}
}

// TestRedisShardedBatchFailsWhole: a batch over three shards whose one
// shard's master is down fails, and the keys it had added in the other
// shards are taken back, so that running it again (cdedupe passes
// nothing of a failed batch) passes every record, none taken for a
// duplicate of itself.
func TestRedisShardedBatchFailsWhole(t *testing.T) {
	ctx := context.Background()
	cluster := redistest.NewCluster(t, redistest.ClusterOptions{})
	noRetry := func(k string) string {
		if k == storage.RedisRetryEnv {
			return "0"
		}
		return ""
	}
	s, err := OpenRedis(ctx, cluster.URL+"?shards=3", Options{Prefix: "undo:", Getenv: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var batch []Key
	inShard := map[int]int{}
	for i := range 30 {
		k, err := RequestKey("GET", fmt.Sprintf("http://host%d.test/", i), "", false)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, k)
		inShard[s.shardOf(k)]++
	}
	if len(inShard) != 3 {
		t.Fatalf("the batch's keys are in %d shards, want 3", len(inShard))
	}
	down, err := cluster.MasterOf(RedisSeenKey(s.shards[1], "ns"))
	if err != nil {
		t.Fatal(err)
	}
	cluster.Kill(down)
	if _, err := s.SeenBatch(ctx, "ns", batch, time.Now()); err == nil {
		t.Fatal("a batch with a shard's master down succeeded")
	}
	for j, p := range s.shards {
		if j == 1 {
			continue
		}
		if n, err := s.client.SCard(ctx, RedisSeenKey(p, "ns")).Result(); err != nil || n != 0 {
			t.Errorf("shard %d keeps %d keys of the failed batch (%v)", j, n, err)
		}
	}
}
