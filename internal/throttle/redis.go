package throttle

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/storage"
)

// Redis is a Store in a Redis server or a Redis Cluster: one string per
// key, at PREFIX+"throttle:"+key, holding its schedule (tat, in
// microseconds) and expiring Keep after its last slot, so Redis forgets
// idle keys by itself; and, for a key under a hold, a second string at
// PREFIX+"throttle-hold:"+key holding the hold. Every reservation is one
// Lua script, which Redis runs atomically, reading the server's clock
// (TIME) inside it: every machine sharing the server sees one schedule
// on one clock, whatever their own clocks say. The waits it returns are
// durations, which mean the same on every machine.
//
// The hold is a key of its own, not a field next to tat, so that the
// schedule stays the plain string programs that predate holds read and
// write: they go on sharing it (ignoring holds) rather than failing on a
// value they do not know.
//
// All keys of one script are in one slot on a cluster: PREFIX carries a
// hash tag there (see storage.RedisConn.KeyPrefix), which puts every key of
// one prefix on one node, that of the frontier and seen sets of the same
// prefix.
//
// With the URL's shards=K (K > 1) the keys are split over K slots as the
// frontier's are: key's schedule and hold live under the prefix of shard
// storage.ShardOf(key, K) (storage.ShardPrefixes), so on a cluster the
// schedules spread over the masters; for a host key without a port that
// is the shard of the frontier's queue of the host. A Reserve is split by
// shard and the parts run at once, one script per shard (per 256 keys),
// each on its slot. Nothing is lost by the split: a reservation was only
// ever atomic per key (Store.Reserve), and every key's schedule and hold
// stay in one shard, read and written by one script.
type Redis struct {
	conn   *storage.RedisConn
	client redis.UniversalClient
	prefix string   // hash-tagged on a cluster; the unsplit prefix
	shards []string // the shards' prefixes; [prefix] when not split
	keep   time.Duration
	caller bool
}

// shardOf returns the shard of key (its index in r.shards).
func (r *Redis) shardOf(key string) int { return storage.ShardOf(key, len(r.shards)) }

// reserveScript reserves slots for each key: KEYS are pairs, the key's
// schedule and its hold. ARGV[1] is now in microseconds, or "" to read
// the server's clock; ARGV[2] the expiry margin in milliseconds; then
// four per key: slots asked, interval, tau and max wait (microseconds,
// -1: none). It returns now, then per key the base and the number
// granted: reserve's arithmetic. A reservation that takes slots after a
// hold has its tat past hold + tau, which answers for the hold from then
// on: the hold key then expires with the schedule. Lua numbers are
// doubles: integers are exact below 2^53 (microseconds until the year
// 2255), and fdiv keeps the division exact.
var reserveScript = redis.NewScript(luaNow + `
local keep = tonumber(ARGV[2])
local function fdiv(x, y)
	local q = math.floor(x / y)
	while q * y > x do q = q - 1 end
	while (q + 1) * y <= x do q = q + 1 end
	return q
end
local out = {now}
for i = 1, #KEYS / 2 do
	local key, holdkey = KEYS[2 * i - 1], KEYS[2 * i]
	local a = 2 + (i - 1) * 4
	local asked, iv, tau, maxw = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
	local t0 = now
	local got = redis.call('MGET', key, holdkey)
	local tat, hold = tonumber(got[1] or ''), tonumber(got[2] or '')
	if tat and tat > now then t0 = tat end
	if hold and hold > 0 and hold + tau > t0 then t0 = hold + tau end
	local base = t0 - tau
	local granted = asked
	if maxw >= 0 then
		local x = maxw - (base - now)
		local q = 0
		if x >= 0 then q = fdiv(x, iv) + 1 end
		if q < granted then granted = q end
	end
	if granted > 0 then
		local newtat = t0 + granted * iv
		local ttl = math.ceil((newtat - now) / 1000) + keep
		redis.call('SET', key, string.format('%.0f', newtat), 'PX', ttl)
		if hold then redis.call('PEXPIRE', holdkey, ttl) end
	end
	out[#out + 1] = base
	out[#out + 1] = granted
end
return out
`)

// holdScript sets the hold of KEYS[1] to ARGV[2] microseconds past now
// (ARGV[1], or "" for the server's clock), unless it holds a later one;
// the key expires ARGV[3] milliseconds after the hold (HoldMargin, or
// Keep when longer: the key's tolerance is not known here). It returns
// the key's hold.
var holdScript = redis.NewScript(luaNow + `
local hold = now + tonumber(ARGV[2])
local old = tonumber(redis.call('GET', KEYS[1]) or '')
if old and old >= hold then return old end
redis.call('SET', KEYS[1], string.format('%.0f', hold), 'PX', math.ceil((hold - now) / 1000) + tonumber(ARGV[3]))
return hold
`)

// luaNow sets now, in microseconds: ARGV[1], or the server's clock (TIME)
// when ARGV[1] is "".
const luaNow = `local now
if ARGV[1] == '' then
	local t = redis.call('TIME')
	now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
	now = tonumber(ARGV[1])
end
`

// holdsScript returns, for each of KEYS (hold keys), how many
// microseconds past now (ARGV[1], or "" for the server's clock) its hold
// ends, 0 for none or one over.
var holdsScript = redis.NewScript(luaNow + `
local got = redis.call('MGET', unpack(KEYS))
local out = {}
for i = 1, #KEYS do
	local hold = tonumber(got[i] or '')
	if hold and hold > now then out[i] = hold - now else out[i] = 0 end
end
return out
`)

// RedisKey is the Redis key of key's schedule, for the key prefix
// storage.RedisConn.KeyPrefix returned ("" is storage.DefaultPrefix).
func RedisKey(prefix, key string) string {
	if prefix == "" {
		prefix = storage.DefaultPrefix
	}
	return prefix + "throttle:" + key
}

// RedisHoldKey is the Redis key of key's hold (see RedisKey).
func RedisHoldKey(prefix, key string) string {
	if prefix == "" {
		prefix = storage.DefaultPrefix
	}
	return prefix + "throttle-hold:" + key
}

// OpenRedis connects to the Redis server or cluster at url
// (redis://[user:pass@]host:port/db, rediss:// for TLS,
// redis+cluster://host:port,host:port… for a cluster: see
// storage.DialRedis) and checks it answers. With the URL's shards=K it
// checks that the prefix is split into K shards (dedupe.CheckShards: the
// frontier and cdedupe sharing it must say the same K) and that each
// shard's slot is served.
func OpenRedis(ctx context.Context, url string, o Options) (*Redis, error) {
	c, err := storage.DialRedisEnv(ctx, url, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("throttle: %w", err)
	}
	r, err := openOn(ctx, c, o)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("throttle: %w", err)
	}
	return r, nil
}

func openOn(ctx context.Context, c *storage.RedisConn, o Options) (*Redis, error) {
	p, err := c.KeyPrefix(o.Prefix)
	if err != nil {
		return nil, err
	}
	if err := c.CheckUsable(ctx, p); err != nil {
		return nil, err
	}
	shards, err := c.CheckShards(ctx, p, storage.FrontierUsedKey(p))
	if err != nil {
		return nil, err
	}
	r := &Redis{conn: c, client: c.Client, prefix: p, shards: shards, keep: o.Keep, caller: o.CallerClock}
	if r.keep <= 0 {
		r.keep = DefaultKeep
	}
	return r, nil
}

// Close implements Store.
func (r *Redis) Close() error { return r.conn.Close() }

// redisChunk is the most keys one script call takes.
const redisChunk = 256

// Reserve implements Store: one script call per shard and chunk of keys,
// the shards at once. Unless Options.CallerClock is set, now is ignored
// and the server's clock used: on a cluster split into shards, each
// shard's master's own, so a grant's waits count from the clock of its
// shard (read before the answer left it: counted from the answer's
// arrival, they start nothing early), and Reply.Now is the latest of the
// shards' clocks.
func (r *Redis) Reserve(ctx context.Context, reqs []Request, now time.Time) (Reply, error) {
	if err := checkRequests(reqs); err != nil {
		return Reply{}, err
	}
	reply := Reply{Grants: make([]Grant, len(reqs))}
	where := make([][]int, len(r.shards)) // shard → indexes of its requests
	for i, q := range reqs {
		j := r.shardOf(q.Key)
		where[j] = append(where[j], i)
	}
	clocks := make([]int64, len(r.shards))
	err := storage.InParallel(len(r.shards), func(j int) (err error) {
		if len(where[j]) > 0 {
			clocks[j], err = r.reserveShard(ctx, r.shards[j], reqs, where[j], reply.Grants, now)
		}
		return err
	})
	if err != nil {
		return Reply{}, err
	}
	reply.Now = time.UnixMicro(slices.Max(clocks))
	return reply, nil
}

// reserveShard reserves the requests reqs[i] for i in idx, all of one
// shard (key prefix p), and sets their grants, their bases counted from
// the clock it returns: the last chunk's. An earlier chunk's slot that is
// already past by then waits 0, from a later instant, so no slot is ever
// made earlier.
func (r *Redis) reserveShard(ctx context.Context, p string, reqs []Request, idx []int, grants []Grant, now time.Time) (int64, error) {
	bases := make([]int64, len(idx))
	var last int64
	for start := 0; start < len(idx); start += redisChunk {
		chunk := idx[start:min(start+redisChunk, len(idx))]
		keys := make([]string, 0, 2*len(chunk))
		args := make([]any, 0, 2+4*len(chunk))
		if r.caller {
			args = append(args, micros(now))
		} else {
			args = append(args, "")
		}
		args = append(args, r.keep.Milliseconds())
		for _, i := range chunk {
			q := reqs[i]
			keys = append(keys, RedisKey(p, q.Key), RedisHoldKey(p, q.Key))
			args = append(args, q.N, int64(q.Rate.Interval/time.Microsecond), int64(q.Rate.tolerance()/time.Microsecond), maxWaitMicros(q.MaxWait))
		}
		var res []int64
		err := r.conn.Do(ctx, func(ctx context.Context) (err error) {
			res, err = r.conn.Script(ctx, reserveScript, keys, args...).Int64Slice()
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("throttle: reserve: %s: %w", r.conn.Name(), err)
		}
		if len(res) != 1+2*len(chunk) {
			return 0, fmt.Errorf("throttle: reserve: %s: script returned %d values for %d keys", r.conn.Name(), len(res), len(chunk))
		}
		last = max(last, res[0])
		for n, i := range chunk {
			bases[start+n] = res[1+2*n]
			grants[i] = Grant{Granted: int(res[2+2*n]), Interval: reqs[i].Rate.Interval}
		}
	}
	for n, i := range idx {
		grants[i].Base = time.Duration(bases[n]-last) * time.Microsecond
	}
	return last, nil
}

// Hold implements Store: one script call, on the key's shard. Unless
// Options.CallerClock is set, the key is held until-now past the server's
// clock.
func (r *Redis) Hold(ctx context.Context, key string, until, now time.Time) error {
	untilUS, nowUS, ok := holdMicros(key, until, now)
	if !ok {
		return nil
	}
	var at any = ""
	if r.caller {
		at = nowUS
	}
	margin := max(HoldMargin, r.keep).Milliseconds()
	hk := RedisHoldKey(r.shards[r.shardOf(key)], key)
	if err := r.conn.Do(ctx, func(ctx context.Context) error {
		return r.conn.Script(ctx, holdScript, []string{hk}, at, untilUS-nowUS, margin).Err()
	}); err != nil {
		return fmt.Errorf("throttle: hold: %s: %w", r.conn.Name(), err)
	}
	return nil
}

// Holds implements Store: one script call per shard and chunk of keys,
// the shards at once.
func (r *Redis) Holds(ctx context.Context, keys []string, now time.Time) (map[string]time.Duration, error) {
	var at any = ""
	if r.caller {
		at = micros(now)
	}
	where := make([][]string, len(r.shards))
	for _, k := range keys {
		j := r.shardOf(k)
		where[j] = append(where[j], k)
	}
	found := make([]map[string]time.Duration, len(r.shards))
	err := storage.InParallel(len(r.shards), func(j int) (err error) {
		found[j], err = r.holdsShard(ctx, r.shards[j], where[j], at)
		return err
	})
	if err != nil {
		return nil, err
	}
	held := found[0]
	for _, m := range found[1:] {
		maps.Copy(held, m)
	}
	return held, nil
}

// holdsShard reads the holds of keys, all of the shard of prefix p.
func (r *Redis) holdsShard(ctx context.Context, p string, keys []string, at any) (map[string]time.Duration, error) {
	held := map[string]time.Duration{}
	for start := 0; start < len(keys); start += redisChunk {
		chunk := keys[start:min(start+redisChunk, len(keys))]
		rkeys := make([]string, len(chunk))
		for i, k := range chunk {
			rkeys[i] = RedisHoldKey(p, k)
		}
		res, err := holdsScript.Run(ctx, r.client, rkeys, at).Int64Slice()
		if err != nil {
			return nil, fmt.Errorf("throttle: read holds: %s: %w", r.conn.Name(), err)
		}
		if len(res) != len(chunk) {
			return nil, fmt.Errorf("throttle: read holds: %s: script returned %d values for %d keys", r.conn.Name(), len(res), len(chunk))
		}
		for i, us := range res {
			if us > 0 {
				held[chunk[i]] = time.Duration(us) * time.Microsecond
			}
		}
	}
	return held, nil
}

// Purge implements Store: Redis expires idle keys itself, so it does
// nothing and returns 0.
func (r *Redis) Purge(context.Context, time.Time) (int, error) { return 0, nil }

// Len implements Store, with SCAN on the node holding each shard's keys:
// the keys with a schedule or a hold (or both, counted once). For tests
// and small servers.
func (r *Redis) Len(ctx context.Context) (int, error) {
	counts := make([]int, len(r.shards))
	err := storage.InParallel(len(r.shards), func(j int) (err error) {
		counts[j], err = r.lenShard(ctx, r.shards[j])
		return err
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	return n, nil
}

// lenShard counts the keys of the shard of prefix p (see Len).
func (r *Redis) lenShard(ctx context.Context, p string) (int, error) {
	node, err := r.conn.Node(ctx, p)
	if err != nil {
		return 0, fmt.Errorf("throttle: count: %s: %w", r.conn.Name(), err)
	}
	seen := map[string]bool{}
	for _, prefix := range []string{RedisKey(p, ""), RedisHoldKey(p, "")} {
		var cursor uint64
		for {
			keys, next, err := node.Scan(ctx, cursor, globEscape(prefix)+"*", 1000).Result()
			if err != nil {
				return 0, fmt.Errorf("throttle: count: %s: %w", r.conn.Name(), err)
			}
			for _, k := range keys {
				seen[strings.TrimPrefix(k, prefix)] = true
			}
			if next == 0 {
				break
			}
			cursor = next
		}
	}
	return len(seen), nil
}

// globEscape escapes the characters special in a SCAN MATCH pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// pttl returns the time to live of key's schedule (tests).
func (r *Redis) pttl(ctx context.Context, key string) (time.Duration, error) {
	return r.client.PTTL(ctx, RedisKey(r.shards[r.shardOf(key)], key)).Result()
}

// holdPTTL returns the time to live of key's hold (tests).
func (r *Redis) holdPTTL(ctx context.Context, key string) (time.Duration, error) {
	return r.client.PTTL(ctx, RedisHoldKey(r.shards[r.shardOf(key)], key)).Result()
}
