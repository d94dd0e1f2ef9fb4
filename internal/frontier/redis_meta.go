package frontier

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// setCrawlMetaScript: ARGV P, crawlid, replace ("1" or "0"), then key,
// value pairs. Returns the crawl's metadata after the change, as HGETALL.
var setCrawlMetaScript = redis.NewScript(luaLib + `
local key = F .. 'cm:' .. ARGV[2]
local cmd = 'HSETNX'
if ARGV[3] == '1' then cmd = 'HSET' end
for i = 4, #ARGV - 1, 2 do
	redis.call(cmd, key, ARGV[i], ARGV[i + 1])
end
return redis.call('HGETALL', key)
`)

// crawlMeta is Frontier.CrawlMeta on the shard (the control one).
func (r *redisShard) crawlMeta(ctx context.Context, crawlID string) (map[string]string, error) {
	m, err := r.client.HGetAll(ctx, r.prefix+"f:cm:"+crawlID).Result()
	if err != nil {
		return nil, r.fail("crawl meta", err)
	}
	return m, nil
}

// setCrawlMeta is Frontier.SetCrawlMeta on the shard (the control one).
func (r *redisShard) setCrawlMeta(ctx context.Context, crawlID string, meta map[string]string, replace bool) (map[string]string, error) {
	flag := "0"
	if replace {
		flag = "1"
	}
	args := make([]any, 0, 3+2*len(meta))
	args = append(args, r.prefix, crawlID, flag)
	for k, v := range meta {
		args = append(args, k, v)
	}
	v, err := r.run(ctx, setCrawlMetaScript, args...).StringSlice()
	if err != nil {
		return nil, r.fail("set crawl meta", err)
	}
	if len(v)%2 != 0 {
		return nil, r.fail("set crawl meta", fmt.Errorf("unexpected script answer %v", v))
	}
	out := make(map[string]string, len(v)/2)
	for i := 0; i+1 < len(v); i += 2 {
		out[v[i]] = v[i+1]
	}
	return out, nil
}
