package throttle

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/dedupe"
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
// All keys of one reservation are passed to one script, so on a cluster
// they must be in one slot: PREFIX carries a hash tag there (see
// dedupe.RedisConn.KeyPrefix), which puts every key of one prefix on one
// node, that of the frontier and seen sets of the same prefix.
type Redis struct {
	conn   *dedupe.RedisConn
	client redis.UniversalClient
	prefix string // hash-tagged on a cluster
	keep   time.Duration
	caller bool
}

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
// dedupe.RedisConn.KeyPrefix returned ("" is dedupe.DefaultPrefix).
func RedisKey(prefix, key string) string {
	if prefix == "" {
		prefix = dedupe.DefaultPrefix
	}
	return prefix + "throttle:" + key
}

// RedisHoldKey is the Redis key of key's hold (see RedisKey).
func RedisHoldKey(prefix, key string) string {
	if prefix == "" {
		prefix = dedupe.DefaultPrefix
	}
	return prefix + "throttle-hold:" + key
}

// OpenRedis connects to the Redis server or cluster at url
// (redis://[user:pass@]host:port/db, rediss:// for TLS,
// redis+cluster://host:port,host:port… for a cluster: see
// dedupe.DialRedis) and checks it answers.
func OpenRedis(ctx context.Context, url string, o Options) (*Redis, error) {
	c, err := dedupe.DialRedisEnv(ctx, url, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("throttle: %w", err)
	}
	p, err := c.KeyPrefix(o.Prefix)
	if err == nil {
		err = c.CheckUsable(ctx, p)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("throttle: %w", err)
	}
	r := &Redis{conn: c, client: c.Client, prefix: p, keep: o.Keep, caller: o.CallerClock}
	if r.keep <= 0 {
		r.keep = DefaultKeep
	}
	return r, nil
}

// Close implements Store.
func (r *Redis) Close() error { return r.conn.Close() }

// redisChunk is the most keys one script call takes.
const redisChunk = 256

// Reserve implements Store: one script call per chunk of keys. Unless
// Options.CallerClock is set, now is ignored and the server's clock used.
func (r *Redis) Reserve(ctx context.Context, reqs []Request, now time.Time) (Reply, error) {
	if err := checkRequests(reqs); err != nil {
		return Reply{}, err
	}
	var reply Reply
	reply.Grants = make([]Grant, len(reqs))
	bases := make([]int64, len(reqs))
	var last int64
	for start := 0; start < len(reqs); start += redisChunk {
		chunk := reqs[start:min(start+redisChunk, len(reqs))]
		keys := make([]string, 0, 2*len(chunk))
		args := make([]any, 0, 2+4*len(chunk))
		if r.caller {
			args = append(args, micros(now))
		} else {
			args = append(args, "")
		}
		args = append(args, r.keep.Milliseconds())
		for _, q := range chunk {
			keys = append(keys, RedisKey(r.prefix, q.Key), RedisHoldKey(r.prefix, q.Key))
			args = append(args, q.N, int64(q.Rate.Interval/time.Microsecond), int64(q.Rate.tolerance()/time.Microsecond), maxWaitMicros(q.MaxWait))
		}
		var res []int64
		err := r.conn.Do(ctx, func(ctx context.Context) (err error) {
			res, err = r.conn.Script(ctx, reserveScript, keys, args...).Int64Slice()
			return err
		})
		if err != nil {
			return Reply{}, fmt.Errorf("throttle: reserve: %s: %w", r.conn.Name(), err)
		}
		if len(res) != 1+2*len(chunk) {
			return Reply{}, fmt.Errorf("throttle: reserve: %s: script returned %d values for %d keys", r.conn.Name(), len(res), len(chunk))
		}
		last = max(last, res[0])
		for i, q := range chunk {
			bases[start+i] = res[1+2*i]
			reply.Grants[start+i] = Grant{Granted: int(res[2+2*i]), Interval: q.Rate.Interval}
		}
	}
	// The waits count from the last chunk's clock: an earlier chunk's
	// slot that is already past by then waits 0, from a later instant,
	// so no slot is ever made earlier.
	reply.Now = time.UnixMicro(last)
	for i := range reply.Grants {
		reply.Grants[i].Base = time.Duration(bases[i]-last) * time.Microsecond
	}
	return reply, nil
}

// Hold implements Store: one script call. Unless Options.CallerClock is
// set, the key is held until-now past the server's clock.
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
	if err := r.conn.Do(ctx, func(ctx context.Context) error {
		return r.conn.Script(ctx, holdScript, []string{RedisHoldKey(r.prefix, key)}, at, untilUS-nowUS, margin).Err()
	}); err != nil {
		return fmt.Errorf("throttle: hold: %s: %w", r.conn.Name(), err)
	}
	return nil
}

// Holds implements Store: one script call per chunk of keys.
func (r *Redis) Holds(ctx context.Context, keys []string, now time.Time) (map[string]time.Duration, error) {
	held := map[string]time.Duration{}
	var at any = ""
	if r.caller {
		at = micros(now)
	}
	for start := 0; start < len(keys); start += redisChunk {
		chunk := keys[start:min(start+redisChunk, len(keys))]
		rkeys := make([]string, len(chunk))
		for i, k := range chunk {
			rkeys[i] = RedisHoldKey(r.prefix, k)
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

// Len implements Store, with SCAN on the node holding the keys: the keys
// with a schedule or a hold (or both, counted once). For tests and small
// servers.
func (r *Redis) Len(ctx context.Context) (int, error) {
	node, err := r.conn.Node(ctx, r.prefix)
	if err != nil {
		return 0, fmt.Errorf("throttle: count: %s: %w", r.conn.Name(), err)
	}
	seen := map[string]bool{}
	for _, prefix := range []string{RedisKey(r.prefix, ""), RedisHoldKey(r.prefix, "")} {
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
	return r.client.PTTL(ctx, RedisKey(r.prefix, key)).Result()
}

// holdPTTL returns the time to live of key's hold (tests).
func (r *Redis) holdPTTL(ctx context.Context, key string) (time.Duration, error) {
	return r.client.PTTL(ctx, RedisHoldKey(r.prefix, key)).Result()
}
