package frontier

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// addCrawlCountsScript: ARGV P, crawlid, token, n, then n key, increment
// pairs, then key, value pairs to set. The token (F cc:TOKEN, kept
// REPLAY_MS) makes a call retried after its answer was lost add once.
// Returns the crawl's metadata after the change, as HGETALL.
var addCrawlCountsScript = redis.NewScript(luaLib + `
local key = F .. 'cm:' .. ARGV[2]
if not redis.call('SET', F .. 'cc:' .. ARGV[3], '1', 'NX', 'PX', REPLAY_MS) then
	return redis.call('HGETALL', key)
end
local n = tonumber(ARGV[4])
local i = 5
for _ = 1, n do
	redis.call('HINCRBY', key, ARGV[i], ARGV[i + 1])
	i = i + 2
end
while i < #ARGV do
	redis.call('HSET', key, ARGV[i], ARGV[i + 1])
	i = i + 2
end
return redis.call('HGETALL', key)
`)

// AddCrawlCounts implements Frontier, in the control slot.
func (r *Redis) AddCrawlCounts(ctx context.Context, crawlID string, add map[string]int64, set map[string]string) (map[string]string, error) {
	return r.control.addCrawlCounts(ctx, crawlID, add, set)
}

func (r *redisShard) addCrawlCounts(ctx context.Context, crawlID string, add map[string]int64, set map[string]string) (map[string]string, error) {
	args := make([]any, 0, 4+2*len(add)+2*len(set))
	args = append(args, r.prefix, crawlID, strconv.FormatUint(rand.Uint64(), 36), len(add))
	for k, n := range add {
		args = append(args, k, n)
	}
	for k, v := range set {
		args = append(args, k, v)
	}
	v, err := r.run(ctx, addCrawlCountsScript, args...).StringSlice()
	if err != nil {
		return nil, r.fail("add crawl counts", err)
	}
	if len(v)%2 != 0 {
		return nil, r.fail("add crawl counts", fmt.Errorf("unexpected script answer %v", v))
	}
	out := make(map[string]string, len(v)/2)
	for i := 0; i+1 < len(v); i += 2 {
		out[v[i]] = v[i+1]
	}
	return out, nil
}
