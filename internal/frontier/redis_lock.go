package frontier

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// lockCrawlScript: ARGV P, crawlid, holder, steal, now ms, new value, the
// lock's key (lockKey).
// Returns {1, holder} when taken or renewed, {0, current holder} when not.
var lockCrawlScript = redis.NewScript(luaLib + `
local key = F .. 'cm:' .. ARGV[2]
local cur = redis.call('HGET', key, ARGV[7])
if cur then
	local h, exp = string.match(cur, '^(.*)\t(%d+)$')
	if not h then h, exp = cur, '0' end
	if h ~= ARGV[3] and (ARGV[4] == '' or h ~= ARGV[4]) and tonumber(exp) > tonumber(ARGV[5]) then
		return {0, h}
	end
end
redis.call('HSET', key, ARGV[7], ARGV[6])
return {1, ARGV[3]}
`)

// unlockCrawlScript: ARGV P, crawlid, holder, the lock's key (lockKey).
var unlockCrawlScript = redis.NewScript(luaLib + `
local key = F .. 'cm:' .. ARGV[2]
local cur = redis.call('HGET', key, ARGV[4])
if cur and string.match(cur, '^(.*)\t') == ARGV[3] then redis.call('HDEL', key, ARGV[4]) end
return 0
`)

// lockCrawl is Frontier.LockCrawl on the shard (the control one).
func (r *redisShard) lockCrawl(ctx context.Context, crawlID, holder, steal string, ttl time.Duration, now time.Time) (string, bool, error) {
	v, err := r.run(ctx, lockCrawlScript, r.prefix, crawlID, holder, steal, now.UnixMilli(), lockValue(holder, ttl, now), lockKey(holder)).Slice()
	if err != nil {
		return "", false, r.fail("lock crawl", err)
	}
	if len(v) != 2 {
		return "", false, r.fail("lock crawl", fmt.Errorf("unexpected script answer %v", v))
	}
	ok, _ := v[0].(int64)
	cur, _ := v[1].(string)
	return cur, ok == 1, nil
}

// unlockCrawl is Frontier.UnlockCrawl on the shard (the control one).
func (r *redisShard) unlockCrawl(ctx context.Context, crawlID, holder string) error {
	if err := r.run(ctx, unlockCrawlScript, r.prefix, crawlID, holder, lockKey(holder)).Err(); err != nil && err != redis.Nil {
		return r.fail("unlock crawl", err)
	}
	return nil
}
