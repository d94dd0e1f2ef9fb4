package frontier

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The shard's reclaims, administration and views: each one script or
// one read under the shard's prefix (see redis_lua.go).

// reclaim is Frontier.Reclaim on the shard.
func (r *redisShard) reclaim(ctx context.Context, now time.Time) (ReclaimResult, error) {
	gone, err := r.goneConsumers(ctx, "", now, true)
	if err != nil {
		return ReclaimResult{}, r.fail("reclaim", err)
	}
	args := make([]any, 0, 5+len(gone))
	args = append(args, r.prefix, now.UnixMilli(), r.opts.maxExpiries(), r.opts.maxAbandons(), r.beatCutoff(now))
	for _, id := range gone {
		args = append(args, id)
	}
	v, err := r.run(ctx, reclaimScript, args...).Int64Slice()
	if err != nil {
		return ReclaimResult{}, r.fail("reclaim", err)
	}
	if len(v) != 4 {
		return ReclaimResult{}, r.fail("reclaim", fmt.Errorf("unexpected script answer %v", v))
	}
	return ReclaimResult{Requeued: int(v[0]), DeadLettered: int(v[1]), Dropped: int(v[2]), Abandoned: int(v[3])}, nil
}

// stop is Frontier.Stop on the shard.
func (r *redisShard) stop(ctx context.Context, crawlID string) (int, error) {
	n, err := r.run(ctx, stopScript, r.prefix, crawlID).Int64()
	if err != nil {
		return 0, r.fail("stop", err)
	}
	return int(n), nil
}

// unstop is Frontier.Unstop on the shard.
func (r *redisShard) unstop(ctx context.Context, crawlID string) error {
	if err := r.run(ctx, unstopScript, r.prefix, crawlID).Err(); err != nil {
		return r.fail("unstop", err)
	}
	return nil
}

// expire is Frontier.Expire on the shard.
func (r *redisShard) expire(ctx context.Context, now time.Time) ([]Expired, error) {
	v, err := r.run(ctx, expireScript, r.prefix, now.Unix()).Slice()
	if err != nil {
		return nil, r.fail("expire", err)
	}
	var out []Expired
	for _, row := range v {
		f, _ := row.([]any)
		if len(f) != 4 {
			return nil, r.fail("expire", fmt.Errorf("unexpected script answer %v", row))
		}
		out = append(out, Expired{CrawlID: asString(f[0]), AppID: asString(f[1]), Expires: asInt(f[2]), Purged: int(asInt(f[3]))})
	}
	sortExpired(out)
	return out, nil
}

// counts is Frontier.Counts on the shard.
func (r *redisShard) counts(ctx context.Context) (Counts, error) {
	var v []any
	err := r.conn.Do(ctx, func(ctx context.Context) (err error) {
		v, err = r.client.HMGet(ctx, r.prefix+"f:counts", "queued", "inflight", "dead").Result()
		return err
	})
	if err != nil {
		return Counts{}, r.fail("counts", err)
	}
	return Counts{Queued: asInt(v[0]), InFlight: asInt(v[1]), Dead: asInt(v[2])}, nil
}

// stats is Frontier.Stats on the shard.
func (r *redisShard) stats(ctx context.Context) (map[string]int64, error) {
	v, err := r.client.HGetAll(ctx, r.prefix+"f:stats").Result()
	if err != nil {
		return nil, r.fail("stats", err)
	}
	out := map[string]int64{}
	for k, s := range v {
		if n, _ := strconv.ParseInt(s, 10, 64); n != 0 {
			out[k] = n
		}
	}
	return out, nil
}

// info is Frontier.Info on the shard.
func (r *redisShard) info(ctx context.Context, filter InfoFilter) (Info, error) {
	v, err := r.run(ctx, infoScript, r.prefix, filter.AppID, filter.CrawlID).Slice()
	if err != nil {
		return Info{}, r.fail("info", err)
	}
	var info Info
	for _, row := range v {
		f, _ := row.([]any)
		if len(f) != 5 {
			return Info{}, r.fail("info", fmt.Errorf("unexpected script answer %v", row))
		}
		c := CrawlInfo{CrawlID: asString(f[0]), AppID: asString(f[1]), Expires: asInt(f[2]), State: crawlStateName(int(asInt(f[3])))}
		hosts, _ := f[4].([]any)
		for _, hr := range hosts {
			h, _ := hr.([]any)
			if len(h) != 6 {
				return Info{}, r.fail("info", fmt.Errorf("unexpected script answer %v", hr))
			}
			c.Hosts = append(c.Hosts, HostInfo{Host: asString(h[0]), Pending: asInt(h[1]), InFlight: asInt(h[2]), Dead: asInt(h[3]),
				HighPriority: int(asInt(h[4])), LowPriority: int(asInt(h[5]))})
		}
		slices.SortFunc(c.Hosts, func(a, b HostInfo) int { return strings.Compare(a.Host, b.Host) })
		summarize(&c)
		info.Crawls = append(info.Crawls, c)
	}
	slices.SortFunc(info.Crawls, func(a, b CrawlInfo) int { return strings.Compare(a.CrawlID, b.CrawlID) })
	return info, nil
}

// dump is Frontier.Dump on the shard. Redis cannot hold a snapshot
// while a client pages through it, so dump walks the entries with HSCAN
// while other clients go on: every request present throughout is
// reported once, each with the state it had when its page was read;
// requests pushed or acked meanwhile may or may not appear.
func (r *redisShard) dump(ctx context.Context, fn func(DumpEntry) error) error {
	F := r.prefix + "f:"
	where := map[string][2]string{} // qid → crawl, host
	seen := map[string]bool{}
	var cursor uint64
	for {
		kv, next, err := r.client.HScan(ctx, F+"raw", cursor, "", 500).Result()
		if err != nil {
			return r.fail("dump", err)
		}
		var ids []string
		raws := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			if !seen[kv[i]] {
				seen[kv[i]] = true
				ids = append(ids, kv[i])
				raws[kv[i]] = kv[i+1]
			}
		}
		if len(ids) > 0 {
			if err := r.dumpPage(ctx, ids, raws, where, fn); err != nil {
				return err
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

func (r *redisShard) dumpPage(ctx context.Context, ids []string, raws map[string]string, where map[string][2]string, fn func(DumpEntry) error) error {
	F := r.prefix + "f:"
	pipe := r.client.Pipeline()
	metas := pipe.HMGet(ctx, F+"meta", ids...)
	leases := pipe.HMGet(ctx, F+"lease", ids...)
	inflight := pipe.ZMScore(ctx, F+"inflight", ids...)
	dead := pipe.ZMScore(ctx, F+"dead", ids...)
	abandons := pipe.HMGet(ctx, F+"abandons", ids...)
	reasons := pipe.HMGet(ctx, F+"reason", ids...)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return r.fail("dump", err)
	}
	mv, lv, iv, dv, av, rv := metas.Val(), leases.Val(), inflight.Val(), dead.Val(), abandons.Val(), reasons.Val()
	for i, id := range ids {
		meta := asString(mv[i])
		parts := strings.SplitN(meta, ":", 4)
		if len(parts) != 4 {
			continue // acked since the page was read
		}
		qid := parts[0]
		w, ok := where[qid]
		if !ok {
			v, err := r.client.HMGet(ctx, F+"qi:"+qid, "crawl", "host").Result()
			if err != nil {
				return r.fail("dump", err)
			}
			w = [2]string{asString(v[0]), asString(v[1])}
			where[qid] = w
		}
		prio, _ := strconv.Atoi(parts[1])
		expiries, _ := strconv.Atoi(parts[3])
		d := DumpEntry{State: Queued, CrawlID: w[0], Host: w[1], Priority: prio, Expiries: expiries, Abandons: int(asInt(av[i]))}
		switch {
		case iv[i] != 0:
			n, _ := strconv.ParseInt(id, 10, 64)
			nonce, _ := strconv.ParseUint(asString(lv[i]), 16, 64)
			d.State, d.Lease, d.Deadline = InFlight, r.lease(n, nonce), time.UnixMilli(int64(iv[i]))
		case dv[i] != 0:
			d.State, d.Reason = Dead, asString(rv[i])
			if d.Reason == "" {
				d.Reason = r.opts.deadReason(d.Abandons)
			}
		}
		raw, err := handout([]byte(raws[id]), d.Lease, expiries)
		if err != nil {
			return r.fail("dump", fmt.Errorf("request %s: %v", id, err))
		}
		d.Raw = raw
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}
