package toolstats

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// On Redis, with F = the frontier's key prefix + "f:" (its hash tag on a
// cluster, so every key below is in the frontier's slot):
//
//	F tools      ZSET snapshot ID, score = when it expires (Unix ms)
//	F tools:ID   STRING the snapshot's JSON, with that expiry (PX)
//
// The index is what List reads instead of SCANning the node (whose
// keyspace holds a throttle key per host); it expires with its last
// snapshot.
type redisStore struct {
	conn  *storage.RedisConn
	index string // F tools
}

func openRedis(ctx context.Context, url string, o Options) (*redisStore, error) {
	c, err := storage.DialRedisEnv(ctx, url, o.Getenv)
	if err != nil {
		return nil, err
	}
	p, err := c.KeyPrefix(o.Prefix)
	if err == nil {
		err = c.CheckUsable(ctx, p)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return &redisStore{conn: c, index: p + "f:tools"}, nil
}

// putScript: KEYS[1] the index; ARGV now (Unix ms), then per snapshot
// its ID, expiry (Unix ms) and JSON. One call, one slot.
var putScript = redis.NewScript(`
local idx, now = KEYS[1], tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', idx, '-inf', now)
for i = 2, #ARGV - 2, 3 do
	local exp = tonumber(ARGV[i + 1])
	if exp > now then
		redis.call('SET', idx .. ':' .. ARGV[i], ARGV[i + 2], 'PX', exp - now)
		redis.call('ZADD', idx, exp, ARGV[i])
	end
end
local last = redis.call('ZRANGE', idx, -1, -1, 'WITHSCORES')
if #last == 2 then redis.call('PEXPIREAT', idx, last[2]) end
return 1
`)

// listScript: KEYS[1] the index; ARGV now. The JSON of every snapshot
// not expired.
var listScript = redis.NewScript(`
local idx = KEYS[1]
local ids = redis.call('ZRANGEBYSCORE', idx, '(' .. ARGV[1], '+inf')
local out = {}
for _, id in ipairs(ids) do
	local v = redis.call('GET', idx .. ':' .. id)
	if v then out[#out + 1] = v end
end
return out
`)

func (r *redisStore) Put(ctx context.Context, now time.Time, snaps ...statspub.Snapshot) error {
	args := make([]any, 0, 1+3*len(snaps))
	args = append(args, now.UnixMilli())
	for i := range snaps {
		b, err := json.Marshal(&snaps[i])
		if err != nil {
			return err
		}
		args = append(args, snaps[i].ID(), snaps[i].Expires().UnixMilli(), b)
	}
	if err := putScript.Run(ctx, r.conn.Client, []string{r.index}, args...).Err(); err != nil {
		return fmt.Errorf("%s: %w", r.conn.Name(), err)
	}
	return nil
}

func (r *redisStore) List(ctx context.Context, now time.Time) ([]statspub.Snapshot, error) {
	docs, err := listScript.Run(ctx, r.conn.Client, []string{r.index}, now.UnixMilli()).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.conn.Name(), err)
	}
	return sorted(decode(docs)), nil
}

func (r *redisStore) Close() error { return r.conn.Close() }
