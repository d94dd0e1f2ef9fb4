package redistest

import (
	"context"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// KeysByMaster returns the keys matching pattern (KEYS) on every master of
// the cluster c talks to, by the master's address: where a test's keys
// landed.
func KeysByMaster(t testing.TB, c *redis.ClusterClient, pattern string) map[string][]string {
	t.Helper()
	found := map[string][]string{}
	var mu sync.Mutex
	err := c.ForEachMaster(context.Background(), func(ctx context.Context, node *redis.Client) error {
		keys, err := node.Keys(ctx, pattern).Result()
		mu.Lock()
		defer mu.Unlock()
		found[node.Options().Addr] = append(found[node.Options().Addr], keys...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
