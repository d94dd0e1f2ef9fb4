package frontier

import (
	"context"
	"encoding/json"
	"time"

	"github.com/redis/go-redis/v9"
)

// consumers is Frontier.Consumers on the shard: F consumers and F beats in one MULTI,
// then each one's F held:CID (see redis_lua.go).
func (r *redisShard) consumers(ctx context.Context) ([]ConsumerInfo, error) {
	var all *redis.MapStringStringCmd
	var beats *redis.ZSliceCmd
	_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		all = p.HGetAll(ctx, r.prefix+"f:consumers")
		beats = p.ZRangeWithScores(ctx, r.prefix+"f:beats", 0, -1)
		return nil
	})
	if err != nil {
		return nil, r.fail("consumers", err)
	}
	beat := map[string]int64{}
	for _, z := range beats.Val() {
		if id, ok := z.Member.(string); ok {
			beat[id] = int64(z.Score)
		}
	}
	var out []ConsumerInfo
	for id, info := range all.Val() {
		var c ConsumerInfo
		if json.Unmarshal([]byte(info), &c.Consumer) != nil {
			continue
		}
		c.ID, c.Beat = id, time.UnixMilli(beat[id])
		out = append(out, c)
	}
	if len(out) > 0 {
		held := make([]*redis.IntCmd, len(out))
		_, err = r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, c := range out {
				held[i] = p.SCard(ctx, r.prefix+"f:held:"+c.ID)
			}
			return nil
		})
		if err != nil {
			return nil, r.fail("consumers", err)
		}
		for i := range out {
			out[i].Held = int(held[i].Val())
		}
	}
	sortConsumers(out)
	return out, nil
}
