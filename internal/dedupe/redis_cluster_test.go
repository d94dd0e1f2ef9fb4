package dedupe

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// The seen-set's tests run on a Redis Cluster too (backends' "cluster"),
// which this binary starts once and stops here.
func TestMain(m *testing.M) {
	code := m.Run()
	redistest.StopShared()
	os.Exit(code)
}

// TestRedisClusterPrefixesSpread: on a cluster each prefix is one slot,
// and different prefixes land on different nodes: these twelve on all
// three masters (redis-cli gives each a third of the slots).
func TestRedisClusterPrefixesSpread(t *testing.T) {
	ctx := context.Background()
	url := redistest.SharedCluster(t)
	nodes := map[string]bool{}
	for i := range 12 {
		s, err := OpenRedis(ctx, url+"?prefix="+fmt.Sprintf("crawl%d:", i), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SeenBatch(ctx, "c", keys(1, 2), t0); err != nil {
			t.Fatal(err)
		}
		node, err := s.conn.Client.(*redis.ClusterClient).MasterForKey(ctx, s.prefix)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := node.Exists(ctx, RedisSeenKey(s.prefix, "c")).Result(); err != nil || n != 1 {
			t.Errorf("prefix %s: its set is not on the node of its slot (%v)", s.prefix, err)
		}
		nodes[node.Options().Addr] = true
		s.Close()
	}
	if len(nodes) != 3 {
		t.Errorf("12 prefixes on %d of the 3 masters: %v", len(nodes), nodes)
	}
}
