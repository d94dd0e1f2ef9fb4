package dedupe

import (
	"context"
	"errors"
	"fmt"
	"github.com/crawlutils/crawlutils/internal/storage"
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
//
// With the URL's shards=K (K > 1) each namespace is split into K sets,
// one under each shard's prefix (ShardPrefixes), on as many slots: a
// request key (one with a Key.Host) lives in the shard of its host,
// ShardOf(host, K), as in the frontier, whose seen set of a crawl is the
// namespace named by the crawl ID, so the two go on sharing it; any other
// key in the shard of its Member. A SeenBatch is split by shard and the
// parts run at once, each one script on its slot (answered again, not
// run twice, when retried). What the split gives up: a batch is atomic
// per shard, not as a whole (a batch that fails in a shard takes back
// what it added in the others, see undo); and a request's fingerprint must
// come with its host (RequestKey), or it lands in another shard than the
// same request's with it: so a requests.seen file, which has no hosts,
// cannot be imported into a split namespace (cdedupe refuses to).
type Redis struct {
	conn   *storage.RedisConn
	client redis.UniversalClient
	prefix string   // the key prefix, hash-tagged on a cluster
	shards []string // the shards' prefixes; [prefix] when not split
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
		prefix = storage.DefaultPrefix
	}
	return prefix + "seen:" + ns
}

// OpenRedis connects to the Redis server or cluster at url (see DialRedis
// for the forms: redis://[user:pass@]host:port/db, rediss:// for TLS,
// redis+cluster://host:port,host:port for a cluster) and checks it
// answers. With the URL's shards=K it checks that the prefix is split
// into K shards (CheckShards: the frontier and cthrottle sharing it must
// say the same K) and that each shard's slot is served.
func OpenRedis(ctx context.Context, url string, o Options) (*Redis, error) {
	c, err := storage.DialRedisEnv(ctx, url, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	r, err := openRedisOn(ctx, c, o)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	return r, nil
}

func openRedisOn(ctx context.Context, c *storage.RedisConn, o Options) (*Redis, error) {
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
	return &Redis{conn: c, client: c.Client, prefix: p, shards: shards, ttl: o.TTL}, nil
}

// Close implements Store.
func (r *Redis) Close() error { return r.conn.Close() }

// Shards is how many shards the store's namespaces are split into (the
// URL's shards=, 1 when absent).
func (r *Redis) Shards() int { return len(r.shards) }

// shardOf is the shard of k: its host's for a request key, else its
// member's.
func (r *Redis) shardOf(k Key) int {
	switch {
	case len(r.shards) == 1:
		return 0
	case k.Host != "":
		return storage.ShardOf(k.Host, len(r.shards))
	}
	return storage.ShardOf(k.Member(), len(r.shards))
}

// SeenBatch implements Store, one script per shard of the keys, the
// shards at once. now sets the namespace's expiry (now+TTL), which Redis
// enforces with its own clock: in every shard, those without keys in
// the batch too (one pipelined PEXPIREAT each), so that a split
// namespace expires as a whole.
func (r *Redis) SeenBatch(ctx context.Context, ns string, keys []Key, now time.Time) ([]bool, error) {
	out := make([]bool, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	token := fmt.Sprintf("%016x", rand.Uint64())
	exp := expiresAt(now, r.ttl)
	where := make([][]int, len(r.shards)) // shard → indexes of its keys
	for i, k := range keys {
		j := r.shardOf(k)
		where[j] = append(where[j], i)
	}
	var idle []string // the seen sets of the shards without keys
	for j, idx := range where {
		if len(idx) == 0 && exp > 0 {
			idle = append(idle, RedisSeenKey(r.shards[j], ns))
		}
	}
	tasks := len(r.shards) // and one to touch the idle shards, if any
	if len(idle) > 0 {
		tasks++
	}
	stored := make([]bool, len(r.shards)) // the shards whose part ran
	err := storage.InParallel(tasks, func(j int) error {
		if j == len(r.shards) {
			return r.touch(ctx, idle, exp)
		}
		if len(where[j]) == 0 {
			return nil
		}
		args := make([]any, 0, len(where[j])+2)
		args = append(args, exp, token)
		for _, i := range where[j] {
			args = append(args, keys[i].Member())
		}
		seen := RedisSeenKey(r.shards[j], ns)
		res, err := r.runSeen(ctx, []string{seen, redisReplayKey(seen, token)}, args)
		if err != nil {
			return fmt.Errorf("dedupe: seen: %s: %w", r.conn.Name(), err)
		}
		if len(res) != len(where[j]) {
			return fmt.Errorf("dedupe: seen: %s: script returned %d answers for %d keys", r.conn.Name(), len(res), len(where[j]))
		}
		for n, i := range where[j] {
			out[i] = res[n] == 1
		}
		stored[j] = true
		return nil
	})
	if err != nil {
		return nil, r.undo(ctx, ns, keys, where, stored, out, err)
	}
	return out, nil
}

// undo takes back what a SeenBatch that failed in some shards added in
// the others: the keys they reported new are removed again, so that the
// batch, whose records the caller does not pass on, is as if it had not
// run, and running it again passes them (a batch is atomic per shard
// only). A key another batch met meanwhile was dropped there as a
// duplicate of this one, which then passes when run again. It returns
// err, saying whether the undo was done.
func (r *Redis) undo(ctx context.Context, ns string, keys []Key, where [][]int, stored, added []bool, err error) error {
	for j, ok := range stored {
		if !ok {
			continue
		}
		var members []any
		for _, i := range where[j] {
			if added[i] {
				members = append(members, keys[i].Member())
			}
		}
		if len(members) == 0 {
			continue
		}
		seen := RedisSeenKey(r.shards[j], ns)
		if e := r.conn.Do(ctx, func(ctx context.Context) error { return r.client.SRem(ctx, seen, members...).Err() }); e != nil {
			return fmt.Errorf("%w; and the %d keys it had added to shard %d could not be taken back (%v): records of this batch may be taken for duplicates when it is run again", err, len(members), j, e)
		}
	}
	return err
}

// touch sets the expiry of the seen sets keys to exp (Unix ms), in one
// pipeline (one round trip per node on a cluster).
func (r *Redis) touch(ctx context.Context, keys []string, exp int64) error {
	if len(keys) == 0 {
		return nil
	}
	err := r.conn.Do(ctx, func(ctx context.Context) error {
		_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range keys {
				p.PExpireAt(ctx, k, time.UnixMilli(exp))
			}
			return nil
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("dedupe: seen: %s: %w", r.conn.Name(), err)
	}
	return nil
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

// Len implements Store: the keys of every shard.
func (r *Redis) Len(ctx context.Context, ns string, _ time.Time) (int64, error) {
	counts := make([]int64, len(r.shards))
	err := storage.InParallel(len(r.shards), func(j int) (err error) {
		counts[j], err = r.client.SCard(ctx, RedisSeenKey(r.shards[j], ns)).Result()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("dedupe: len: %s: %w", r.conn.Name(), err)
	}
	var n int64
	for _, c := range counts {
		n += c
	}
	return n, nil
}

// Export implements Store, shard after shard. It walks each set with
// SSCAN while writers go on: every key present throughout is reported,
// keys added meanwhile may or may not be, and a key may be reported twice
// if Redis resizes the set.
func (r *Redis) Export(ctx context.Context, ns string, _ time.Time, fn func(Key) error) error {
	for _, p := range r.shards {
		if err := r.exportSet(ctx, RedisSeenKey(p, ns), fn); err != nil {
			return err
		}
	}
	return nil
}

// exportSet calls fn for every member of the set key (see Export).
func (r *Redis) exportSet(ctx context.Context, key string, fn func(Key) error) error {
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

// Forget implements Store, in every shard (one DEL each: a crash midway
// leaves some shards of the namespace; Forget again finishes it).
func (r *Redis) Forget(ctx context.Context, ns string) error {
	err := storage.InParallel(len(r.shards), func(j int) error {
		if err := r.client.Del(ctx, RedisSeenKey(r.shards[j], ns)).Err(); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dedupe: forget: %s: %w", r.conn.Name(), err)
	}
	return nil
}

// Expire implements Store: Redis expires namespaces itself, so it does
// nothing and returns 0.
func (r *Redis) Expire(context.Context, time.Time) (int, error) { return 0, nil }
