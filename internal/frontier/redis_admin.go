package frontier

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// The Redis frontier's views and administration: each asks every shard
// and adds up (with one shard, its answer as it is), except the crawls'
// metadata and run locks, which live in the control slot.

// gather runs fn on every shard at once and returns its answers in shard
// order.
func gather[T any](ctx context.Context, r *Redis, fn func(ctx context.Context, s *redisShard) (T, error)) ([]T, error) {
	out := make([]T, len(r.shards))
	var mu sync.Mutex
	err := r.each(ctx, func(ctx context.Context, i int, s *redisShard) error {
		v, err := fn(ctx, s)
		mu.Lock()
		out[i] = v
		mu.Unlock()
		return err
	})
	return out, err
}

// Reclaim implements Frontier, in every shard.
func (r *Redis) Reclaim(ctx context.Context, now time.Time) (ReclaimResult, error) {
	rs, err := gather(ctx, r, func(ctx context.Context, s *redisShard) (ReclaimResult, error) { return s.reclaim(ctx, now) })
	var out ReclaimResult
	for _, x := range rs {
		out.Requeued += x.Requeued
		out.DeadLettered += x.DeadLettered
		out.Abandoned += x.Abandoned
		out.Dropped += x.Dropped
	}
	return out, err
}

// Stop implements Frontier: the crawl is stopped in every shard (a push
// reaching a shard before its stop is queued, then purged by it).
func (r *Redis) Stop(ctx context.Context, crawlID string, now time.Time) (int, error) {
	ns, err := gather(ctx, r, func(ctx context.Context, s *redisShard) (int, error) { return s.stop(ctx, crawlID) })
	n := 0
	for _, x := range ns {
		n += x
	}
	return n, err
}

// Unstop implements Frontier: the crawl is made active in every shard.
func (r *Redis) Unstop(ctx context.Context, crawlID string, now time.Time) error {
	_, err := gather(ctx, r, func(ctx context.Context, s *redisShard) (struct{}, error) {
		return struct{}{}, s.unstop(ctx, crawlID)
	})
	return err
}

// Expire implements Frontier. Each shard knows the expiry of the requests
// it holds; a crawl expired in several shards at once is reported once,
// with their purged requests added up.
func (r *Redis) Expire(ctx context.Context, now time.Time) ([]Expired, error) {
	es, err := gather(ctx, r, func(ctx context.Context, s *redisShard) ([]Expired, error) { return s.expire(ctx, now) })
	if err != nil {
		return nil, err
	}
	var out []Expired
	at := map[string]int{}
	for _, list := range es {
		for _, e := range list {
			i, ok := at[e.CrawlID]
			if !ok {
				at[e.CrawlID] = len(out)
				out = append(out, e)
				continue
			}
			out[i].Purged += e.Purged
			out[i].Expires = max(out[i].Expires, e.Expires)
			if out[i].AppID == "" {
				out[i].AppID = e.AppID
			}
		}
	}
	sortExpired(out)
	return out, nil
}

// Counts implements Frontier.
func (r *Redis) Counts(ctx context.Context) (Counts, error) {
	cs, err := gather(ctx, r, func(ctx context.Context, s *redisShard) (Counts, error) { return s.counts(ctx) })
	var out Counts
	for _, c := range cs {
		out.Queued += c.Queued
		out.InFlight += c.InFlight
		out.Dead += c.Dead
	}
	return out, err
}

// Done implements Frontier.
func (r *Redis) Done(ctx context.Context) (bool, error) {
	c, err := r.Counts(ctx)
	return c.Queued == 0 && c.InFlight == 0, err
}

// Stats implements Frontier: the shards' counters added up, but for
// consumers_died: every shard declares a dead consumer dead, so it is
// the most any shard counted.
func (r *Redis) Stats(ctx context.Context) (map[string]int64, error) {
	ms, err := gather(ctx, r, func(ctx context.Context, s *redisShard) (map[string]int64, error) { return s.stats(ctx) })
	out := map[string]int64{}
	for _, m := range ms {
		for k, v := range m {
			if k == StatConsumerDied {
				out[k] = max(out[k], v)
			} else {
				out[k] += v
			}
		}
	}
	return out, err
}

// Info implements Frontier: a crawl's hosts are spread over the shards;
// its state is the most alive of theirs (active, then stopped, then
// expired) and its expiry the latest.
func (r *Redis) Info(ctx context.Context, filter InfoFilter) (Info, error) {
	is, err := gather(ctx, r, func(ctx context.Context, s *redisShard) (Info, error) { return s.info(ctx, filter) })
	if err != nil {
		return Info{}, err
	}
	rank := map[string]int{StateActive: 0, StateStopped: 1, StateExpired: 2}
	var out Info
	at := map[string]int{}
	for _, info := range is {
		for _, c := range info.Crawls {
			i, ok := at[c.CrawlID]
			if !ok {
				at[c.CrawlID] = len(out.Crawls)
				c.Hosts = slices.Clone(c.Hosts)
				out.Crawls = append(out.Crawls, c)
				continue
			}
			m := &out.Crawls[i]
			if m.AppID == "" {
				m.AppID = c.AppID
			}
			if rank[c.State] < rank[m.State] {
				m.State = c.State
			}
			m.Expires = max(m.Expires, c.Expires)
			m.Hosts = append(m.Hosts, c.Hosts...)
		}
	}
	for i := range out.Crawls {
		c := &out.Crawls[i]
		c.Pending, c.InFlight, c.Dead, c.HighPriority, c.LowPriority = 0, 0, 0, 0, 0
		slices.SortFunc(c.Hosts, func(a, b HostInfo) int { return strings.Compare(a.Host, b.Host) })
		summarize(c)
	}
	slices.SortFunc(out.Crawls, func(a, b CrawlInfo) int { return strings.Compare(a.CrawlID, b.CrawlID) })
	return out, nil
}

// Dump implements Frontier, one shard after the other.
func (r *Redis) Dump(ctx context.Context, fn func(DumpEntry) error) error {
	for _, s := range r.shards {
		if err := s.dump(ctx, fn); err != nil {
			return err
		}
	}
	return nil
}

// Consumers implements Frontier: a consumer is registered in every shard;
// its beat is the latest any shard saw, and what it holds their sum.
func (r *Redis) Consumers(ctx context.Context) ([]ConsumerInfo, error) {
	ls, err := gather(ctx, r, func(ctx context.Context, s *redisShard) ([]ConsumerInfo, error) { return s.consumers(ctx) })
	if err != nil {
		return nil, err
	}
	var out []ConsumerInfo
	at := map[string]int{}
	for _, list := range ls {
		for _, c := range list {
			i, ok := at[c.ID]
			if !ok {
				at[c.ID] = len(out)
				out = append(out, c)
				continue
			}
			out[i].Held += c.Held
			if c.Beat.After(out[i].Beat) {
				out[i].Beat = c.Beat
			}
		}
	}
	slices.SortFunc(out, func(a, b ConsumerInfo) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// CrawlMeta implements Frontier, in the control slot.
func (r *Redis) CrawlMeta(ctx context.Context, crawlID string) (map[string]string, error) {
	return r.control.crawlMeta(ctx, crawlID)
}

// SetCrawlMeta implements Frontier, in the control slot.
func (r *Redis) SetCrawlMeta(ctx context.Context, crawlID string, meta map[string]string, replace bool) (map[string]string, error) {
	return r.control.setCrawlMeta(ctx, crawlID, meta, replace)
}

// LockCrawl implements Frontier, in the control slot.
func (r *Redis) LockCrawl(ctx context.Context, crawlID, holder, steal string, ttl time.Duration, now time.Time) (string, bool, error) {
	return r.control.lockCrawl(ctx, crawlID, holder, steal, ttl, now)
}

// UnlockCrawl implements Frontier, in the control slot.
func (r *Redis) UnlockCrawl(ctx context.Context, crawlID, holder string) error {
	return r.control.unlockCrawl(ctx, crawlID, holder)
}
