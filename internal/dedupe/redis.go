package dedupe

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Store in a Redis server or cluster: one SET per namespace,
// at key RedisSeenKey(prefix, ns), where prefix is RedisConn.KeyPrefix's
// (on a cluster every namespace of one prefix is in one slot, that of the
// frontier sharing the prefix, whose scripts add to these sets). It is
// safe for concurrent use, and any number of processes on any number of
// machines may share the server.
type Redis struct {
	conn   *RedisConn
	client redis.UniversalClient
	prefix string // the key prefix, hash-tagged on a cluster
	ttl    time.Duration

	replayed bool // tests: see runSeen
}

// seenScript adds members (ARGV[3] on) to one namespace's set and
// reports, per member, 1 when it was new; then sets the set's expiry
// (ARGV[1], Unix ms, 0 for none). Redis runs a script atomically. A call
// run a second time (a retry after its answer was lost, or a command that
// reached the server late) answers what the first run did, changing
// nothing: ARGV[2] names the call, and its answer is kept two minutes at
// KEYS[2] (in KEYS[1]'s slot).
var seenScript = redis.NewScript(`
local prev = redis.call('GET', KEYS[2])
if prev then return cjson.decode(prev) end
local out = {}
for i = 3, #ARGV do
	out[i - 2] = redis.call('SADD', KEYS[1], ARGV[i])
end
local exp = tonumber(ARGV[1])
if exp > 0 then
	redis.call('PEXPIREAT', KEYS[1], exp)
end
redis.call('SET', KEYS[2], cjson.encode(out), 'PX', 120000)
return out
`)

// redisReplayKey is where the answer of call token on namespace key
// seen is kept (see seenScript).
func redisReplayKey(seen, token string) string { return seen + ":replay:" + token }

// RedisSeenKey is the Redis key of namespace ns's seen set, for the key
// prefix RedisConn.KeyPrefix returned ("" is DefaultPrefix).
func RedisSeenKey(prefix, ns string) string {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return prefix + "seen:" + ns
}

// OpenRedis connects to the Redis server or cluster at url (see DialRedis
// for the forms: redis://[user:pass@]host:port/db, rediss:// for TLS,
// redis+cluster://host:port,host:port for a cluster) and checks it
// answers.
func OpenRedis(ctx context.Context, url string, o Options) (*Redis, error) {
	c, err := DialRedisEnv(ctx, url, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	p, err := c.KeyPrefix(o.Prefix)
	if err == nil {
		err = c.CheckUsable(ctx, p)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	return &Redis{conn: c, client: c.Client, prefix: p, ttl: o.TTL}, nil
}

// Close implements Store.
func (r *Redis) Close() error { return r.conn.Close() }

// SeenBatch implements Store. now sets the namespace's expiry (now+TTL),
// which Redis enforces with its own clock.
func (r *Redis) SeenBatch(ctx context.Context, ns string, keys []Key, now time.Time) ([]bool, error) {
	out := make([]bool, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	token := fmt.Sprintf("%016x", rand.Uint64())
	args := make([]any, 0, len(keys)+2)
	args = append(args, expiresAt(now, r.ttl), token)
	for _, k := range keys {
		args = append(args, k.Member())
	}
	seen := RedisSeenKey(r.prefix, ns)
	res, err := r.runSeen(ctx, []string{seen, redisReplayKey(seen, token)}, args)
	if err != nil {
		return nil, fmt.Errorf("dedupe: seen: %s: %w", r.conn.Name(), err)
	}
	if len(res) != len(keys) {
		return nil, fmt.Errorf("dedupe: seen: %s: script returned %d answers for %d keys", r.conn.Name(), len(res), len(keys))
	}
	for i, n := range res {
		out[i] = n == 1
	}
	return out, nil
}

// runSeen runs seenScript, retried while the server cannot be reached
// (RedisConn.Do); r.replayed (tests) runs it twice and answers
// the second run, as a retry does when the first answer was lost.
func (r *Redis) runSeen(ctx context.Context, keys []string, args []any) (res []int64, err error) {
	err = r.conn.Do(ctx, func(ctx context.Context) error {
		if r.replayed {
			r.conn.Script(ctx, seenScript, keys, args...)
		}
		res, err = r.conn.Script(ctx, seenScript, keys, args...).Int64Slice()
		return err
	})
	return res, err
}

// Len implements Store.
func (r *Redis) Len(ctx context.Context, ns string, _ time.Time) (int64, error) {
	n, err := r.client.SCard(ctx, RedisSeenKey(r.prefix, ns)).Result()
	if err != nil {
		return 0, fmt.Errorf("dedupe: len: %s: %w", r.conn.Name(), err)
	}
	return n, nil
}

// Export implements Store. It walks the set with SSCAN while writers go on:
// every key present throughout is reported, keys added meanwhile may or may
// not be, and a key may be reported twice if Redis resizes the set.
func (r *Redis) Export(ctx context.Context, ns string, _ time.Time, fn func(Key) error) error {
	key := RedisSeenKey(r.prefix, ns)
	var cursor uint64
	for {
		members, next, err := r.client.SScan(ctx, key, cursor, "", 1000).Result()
		if err != nil {
			return fmt.Errorf("dedupe: export: %s: %w", r.conn.Name(), err)
		}
		for _, m := range members {
			k, err := keyFromMember(m)
			if err != nil {
				return err
			}
			if err := fn(k); err != nil {
				return err
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

// Forget implements Store.
func (r *Redis) Forget(ctx context.Context, ns string) error {
	if err := r.client.Del(ctx, RedisSeenKey(r.prefix, ns)).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("dedupe: forget: %s: %w", r.conn.Name(), err)
	}
	return nil
}

// Expire implements Store: Redis expires namespaces itself, so it does
// nothing and returns 0.
func (r *Redis) Expire(context.Context, time.Time) (int, error) { return 0, nil }
