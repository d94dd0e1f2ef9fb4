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
// idle keys by itself. Every reservation is one Lua script, which Redis
// runs atomically, reading the server's clock (TIME) inside it: every
// machine sharing the server sees one schedule on one clock, whatever
// their own clocks say. The waits it returns are durations, which mean the
// same on every machine.
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

// reserveScript reserves slots for each key of KEYS. ARGV[1] is now in
// microseconds, or "" to read the server's clock; ARGV[2] the expiry
// margin in milliseconds; then four per key: slots asked, interval, tau
// and max wait (microseconds, -1: none). It returns now, then per key the
// base and the number granted. Lua numbers are doubles: integers are exact
// below 2^53 (microseconds until the year 2255), and fdiv keeps the
// division exact.
var reserveScript = redis.NewScript(`
local now
if ARGV[1] == '' then
	local t = redis.call('TIME')
	now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
	now = tonumber(ARGV[1])
end
local keep = tonumber(ARGV[2])
local function fdiv(x, y)
	local q = math.floor(x / y)
	while q * y > x do q = q - 1 end
	while (q + 1) * y <= x do q = q + 1 end
	return q
end
local out = {now}
for i, key in ipairs(KEYS) do
	local a = 2 + (i - 1) * 4
	local asked, iv, tau, maxw = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
	local t0 = now
	local tat = tonumber(redis.call('GET', key) or '')
	if tat and tat > now then t0 = tat end
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
	end
	out[#out + 1] = base
	out[#out + 1] = granted
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

// OpenRedis connects to the Redis server or cluster at url
// (redis://[user:pass@]host:port/db, rediss:// for TLS,
// redis+cluster://host:port,host:port… for a cluster: see
// dedupe.DialRedis) and checks it answers.
func OpenRedis(ctx context.Context, url string, o Options) (*Redis, error) {
	c, err := dedupe.DialRedis(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("throttle: %w", err)
	}
	p, err := c.KeyPrefix(o.Prefix)
	if err == nil {
		err = c.CheckSlot(ctx, p)
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
		keys := make([]string, len(chunk))
		args := make([]any, 0, 2+4*len(chunk))
		if r.caller {
			args = append(args, micros(now))
		} else {
			args = append(args, "")
		}
		args = append(args, r.keep.Milliseconds())
		for i, q := range chunk {
			keys[i] = RedisKey(r.prefix, q.Key)
			args = append(args, q.N, int64(q.Rate.Interval/time.Microsecond), int64(q.Rate.tolerance()/time.Microsecond), maxWaitMicros(q.MaxWait))
		}
		res, err := reserveScript.Run(ctx, r.client, keys, args...).Int64Slice()
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

// Purge implements Store: Redis expires idle keys itself, so it does
// nothing and returns 0.
func (r *Redis) Purge(context.Context, time.Time) (int, error) { return 0, nil }

// Len implements Store, with SCAN on the node holding the keys: for tests
// and small servers.
func (r *Redis) Len(ctx context.Context) (int, error) {
	node, err := r.conn.Node(ctx, r.prefix)
	if err != nil {
		return 0, fmt.Errorf("throttle: count: %s: %w", r.conn.Name(), err)
	}
	var cursor uint64
	n := 0
	for {
		keys, next, err := node.Scan(ctx, cursor, globEscape(RedisKey(r.prefix, ""))+"*", 1000).Result()
		if err != nil {
			return 0, fmt.Errorf("throttle: count: %s: %w", r.conn.Name(), err)
		}
		n += len(keys)
		if next == 0 {
			return n, nil
		}
		cursor = next
	}
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
