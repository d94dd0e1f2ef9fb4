package frontier

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// popHorizon is Pop with PopOptions.Horizon: the requests the consumer has
// held longer than the horizon are counted first (a read of each shard's
// set of the consumer's leases), and the window the pop script applies is
// widened by as many. An ack that lands between the count and the pop
// can only let the pop hand out that one request more.
func (r *Redis) popHorizon(ctx context.Context, o PopOptions, now time.Time) (PopResult, error) {
	old, err := r.heldLonger(ctx, o.Consumer.ID, r.handed.recent(o.Consumer.ID, now.Add(-o.Horizon)))
	if err != nil {
		return PopResult{}, err
	}
	o.Window += old
	res, err := r.pop(ctx, o, now)
	if err == nil {
		r.handed.add(o.Consumer.ID, res.Leased, now)
	}
	return res, err
}

// heldLonger returns how many requests consumer holds, over every shard,
// that are not among recent (see handouts).
func (r *Redis) heldLonger(ctx context.Context, consumer string, recent []string) (int, error) {
	ids := make([][]any, len(r.shards))
	seen := make(map[string]bool, len(recent)) // an id handed out twice is held once
	for _, l := range recent {
		i, rest := r.shardOfLease(l)
		if id, _, ok := parseLease(rest); ok {
			if k := l[:len(l)-len(rest)] + strconv.FormatInt(id, 10); !seen[k] {
				seen[k] = true
				ids[i] = append(ids[i], id)
			}
		}
	}
	var old atomic.Int64
	err := r.each(ctx, func(ctx context.Context, i int, s *redisShard) error {
		key := s.prefix + "f:held:" + consumer
		var card *redis.IntCmd
		var member *redis.BoolSliceCmd
		err := s.conn.Do(ctx, func(ctx context.Context) error {
			_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
				card = p.SCard(ctx, key)
				if len(ids[i]) > 0 {
					member = p.SMIsMember(ctx, key, ids[i]...)
				}
				return nil
			})
			return err
		})
		if err != nil {
			return s.fail("pop", err)
		}
		n := card.Val()
		if member != nil {
			for _, in := range member.Val() {
				if in {
					n--
				}
			}
		}
		old.Add(n)
		return nil
	})
	return int(old.Load()), err
}
