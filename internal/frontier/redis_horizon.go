package frontier

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// popHorizon is Pop with PopOptions.Horizon: the requests the consumer has
// held longer than the horizon are counted first (a read of each shard's
// set of the consumer's leases), and the window the pop script applies is
// widened by as many. An ack that lands between the count and the pop
// can only let the pop hand out that one request more.
func (r *Redis) popHorizon(ctx context.Context, o PopOptions, now time.Time) (PopResult, error) {
	old, err := r.heldLonger(ctx, o.Consumer.ID, now.Add(-o.Horizon))
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
// other than those handed out after since (see handouts), and forgets
// the recent leases it no longer holds.
func (r *Redis) heldLonger(ctx context.Context, consumer string, since time.Time) (int, error) {
	type mine struct {
		ids    []any      // entry ids, each once
		leases [][]string // the recent leases of each id (one handed out twice has two)
	}
	per := make([]mine, len(r.shards))
	at := map[string]int{} // shard tag + id → index in its shard's ids
	for _, l := range r.handed.recent(consumer, since) {
		i, rest := r.shardOfLease(l)
		id, _, ok := parseLease(rest)
		if !ok {
			continue
		}
		k := l[:len(l)-len(rest)] + strconv.FormatInt(id, 10)
		n, seen := at[k]
		if !seen {
			n = len(per[i].ids)
			at[k] = n
			per[i].ids = append(per[i].ids, id)
			per[i].leases = append(per[i].leases, nil)
		}
		per[i].leases[n] = append(per[i].leases[n], l)
	}
	var mu sync.Mutex
	old := 0
	var gone []string
	err := r.each(ctx, func(ctx context.Context, i int, s *redisShard) error {
		key := s.prefix + "f:held:" + consumer
		var card *redis.IntCmd
		var member *redis.BoolSliceCmd
		err := s.conn.Do(ctx, func(ctx context.Context) error {
			_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
				card = p.SCard(ctx, key)
				if len(per[i].ids) > 0 {
					member = p.SMIsMember(ctx, key, per[i].ids...)
				}
				return nil
			})
			return err
		})
		if err != nil {
			return s.fail("pop", err)
		}
		n := int(card.Val())
		var out []string
		if member != nil {
			for j, in := range member.Val() {
				if in {
					n--
				} else {
					out = append(out, per[i].leases[j]...)
				}
			}
		}
		mu.Lock()
		old += n
		gone = append(gone, out...)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return 0, err
	}
	r.handed.drop(consumer, gone)
	return old, nil
}
