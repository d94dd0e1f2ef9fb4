package frontier

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage"
)

// Redis is a Frontier in a Redis server or a Redis Cluster: any number of
// processes on any number of machines may share it. Every operation is
// one Lua script per shard, atomic in Redis (see redis_lua.go for the key
// layout); Dump is the exception (it pages through the entries).
//
// A Redis frontier has K shards (a Redis URL's shards=K; 1 when not
// given). Each shard is a whole frontier under a key prefix of its own
// (storage.ShardPrefixes), in one slot of a cluster (its prefix carries a
// hash tag, see storage.RedisConn.KeyPrefix), so each script runs whole on
// the one node serving that slot, exactly as on one server. A host's
// queue, with the host's share of the duplicate filter, lives in shard
// storage.ShardOf(host, K): every push, pop and ack, and the reclaims they
// do, still run as one script in one slot. The crawls' metadata and run
// locks live under the unsplit prefix (the control slot).
//
// With K = 1, the default, the one shard is the unsplit prefix itself:
// every method is that shard's script, with no step and no round trip
// added, leases are "ID.NONCE" and the keys are those of earlier
// releases. With K > 1 (a split, so that on a Redis Cluster one crawl's
// load spreads over the masters) a lease carries its shard
// ("3:ID.NONCE"), and what the split gives up, as a Frontier: an Apply
// whose requests and acks fall in several shards is applied shard by
// shard, the shards that only get requests first and those with acks
// (each with its own requests, in one step) last, so that a crash midway
// can leave a page unacked with its follow-ups queued (it is fetched
// again, its links found seen), never acked with its follow-ups lost; Pop
// goes by priority across the shards as they said at its previous pop
// (see Redis.Pop), and hosts of one priority take turns within their
// shard, the shards taking turns. A consumer's Window is counted from what
// each shard last said it holds.
//
// Durability is Redis's: with the default RDB snapshots a Redis crash loses
// the writes since the last snapshot; run Redis with appendonly yes
// (appendfsync everysec) to lose at most a second.
type Redis struct {
	conn    *storage.RedisConn
	prefix  string        // the unsplit prefix (hash-tagged on a cluster)
	control *redisShard   // the unsplit prefix: crawl metadata, run locks (shards[0] when K = 1)
	shards  []*redisShard // shard i; with K > 1 its leases start "i:"
	split   *split        // what a pop of K > 1 shards remembers; nil when K = 1
	handed  handouts      // when this process handed out its consumers' leases (PopOptions.Horizon)
}

// split is what a Redis frontier of several shards keeps between calls.
type split struct {
	next atomic.Uint64 // the shard whose turn it is to come first

	mu    sync.Mutex
	held  map[string][]int // consumer id → requests it holds per shard, as last seen
	heads []shardHead      // what each shard last said is at its head (Pop)

	applyHook func(shard int, b Batch) // tests: called before each shard's part of an Apply
}

// OpenRedis connects to the Redis server or cluster at url
// (redis://[user:pass@]host:port/db, rediss:// for TLS,
// redis+cluster://host:port,host:port… for a cluster: see
// storage.DialRedis), where the frontier's keys start with Options.Prefix
// (else the URL's prefix=, else storage.DefaultPrefix), split over the
// URL's shards=K (default 1). It checks that the prefix's recorded split
// is K and, on a cluster, that the frontier's slots are served.
func OpenRedis(ctx context.Context, url string, o Options) (*Redis, error) {
	c, err := storage.DialRedisEnv(ctx, url, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("frontier: open: %w", err)
	}
	f, err := openOn(ctx, c, o)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("frontier: open: %w", err)
	}
	return f, nil
}

func openOn(ctx context.Context, c *storage.RedisConn, o Options) (*Redis, error) {
	p, err := c.KeyPrefix(o.Prefix)
	if err != nil {
		return nil, err
	}
	if err := c.CheckUsable(ctx, p); err != nil {
		return nil, err
	}
	prefixes, err := c.CheckShards(ctx, p, storage.FrontierUsedKey(p))
	if err != nil {
		return nil, err
	}
	r := &Redis{conn: c, prefix: p}
	if len(prefixes) == 1 {
		r.control = newShard(c, p, o)
		r.shards = []*redisShard{r.control}
		return r, nil
	}
	r.control = newShard(c, p, o)
	r.split = &split{held: map[string][]int{}, heads: make([]shardHead, len(prefixes))}
	for i, sp := range prefixes {
		s := newShard(c, sp, o)
		s.leaseTag = strconv.Itoa(i) + ":"
		r.shards = append(r.shards, s)
	}
	return r, nil
}

// Close implements Frontier.
func (r *Redis) Close() error { return r.conn.Close() }

// Shards is how many shards r is split into (the URL's shards=K).
func (r *Redis) Shards() int { return len(r.shards) }

// each runs fn on every shard at once (storage.InParallel; with one shard,
// in the caller's goroutine) and returns the error of the first shard
// that failed.
func (r *Redis) each(ctx context.Context, fn func(ctx context.Context, i int, s *redisShard) error) error {
	return storage.InParallel(len(r.shards), func(i int) error { return fn(ctx, i, r.shards[i]) })
}

// shardOfLease returns the shard a lease is of and the lease as that
// shard's script knows it. With one shard, every lease is its own. A
// lease of no shard goes to shard 0 as a lease no script can match, so
// that it is counted unknown there, in the answer and in the stats, as
// an unsplit frontier counts it.
func (r *Redis) shardOfLease(l string) (i int, rest string) {
	if len(r.shards) == 1 {
		return 0, l
	}
	n, rest, found := strings.Cut(l, ":")
	i, err := strconv.Atoi(n)
	if !found || err != nil || i < 0 || i >= len(r.shards) || n != strconv.Itoa(i) {
		return 0, "!" + l
	}
	return i, rest
}

// Push implements Frontier.
func (r *Redis) Push(ctx context.Context, entries []Entry, now time.Time) ([]PushResult, error) {
	res, err := r.Apply(ctx, Batch{Entries: entries}, now)
	return res.Pushed, err
}

// Ack implements Frontier.
func (r *Redis) Ack(ctx context.Context, leases []string, now time.Time) (AckResult, error) {
	res, err := r.Apply(ctx, Batch{Acks: leases}, now)
	return res.Acks, err
}

// Apply implements Frontier: one script, or with K > 1 one per shard
// concerned (see Redis).
func (r *Redis) Apply(ctx context.Context, b Batch, now time.Time) (BatchResult, error) {
	if r.split == nil {
		return r.shards[0].apply(ctx, b, now)
	}
	return r.applySplit(ctx, b, now)
}

// Pop implements Frontier: one script, or with K > 1 a script per shard,
// by priority across the shards (see popSplit).
func (r *Redis) Pop(ctx context.Context, o PopOptions, now time.Time) (PopResult, error) {
	if o.Max <= 0 {
		return PopResult{}, nil
	}
	if o.Lease <= 0 {
		return PopResult{}, fmt.Errorf("frontier: pop: lease duration must be positive, got %v", o.Lease)
	}
	if o.horizonOn() {
		return r.popHorizon(ctx, o, now)
	}
	return r.pop(ctx, o, now)
}

// pop is Pop on one shard or several.
func (r *Redis) pop(ctx context.Context, o PopOptions, now time.Time) (PopResult, error) {
	if r.split == nil {
		res, _, err := r.shards[0].pop(ctx, o, shardPop{}, now)
		return res, err
	}
	return r.popSplit(ctx, o, now)
}

// Join implements Frontier: the consumer is registered in every shard
// under one id.
func (r *Redis) Join(ctx context.Context, c Consumer, now time.Time) (Consumer, error) {
	c.ID = newConsumerID()
	err := r.each(ctx, func(ctx context.Context, _ int, s *redisShard) error { return s.join(ctx, c, now) })
	if err != nil {
		return Consumer{}, err
	}
	return c, nil
}

// Beat implements Frontier, in every shard.
func (r *Redis) Beat(ctx context.Context, c Consumer, lease time.Duration, now time.Time) (int, error) {
	if c.ID == "" {
		return 0, fmt.Errorf("frontier: beat: consumer without id (not joined)")
	}
	var held atomic.Int64
	err := r.each(ctx, func(ctx context.Context, i int, s *redisShard) error {
		n, err := s.beat(ctx, c, lease, now)
		if err == nil {
			held.Add(int64(n))
			r.split.setHeld(c.ID, i, n)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	return int(held.Load()), nil
}

// Leave implements Frontier, in every shard.
func (r *Redis) Leave(ctx context.Context, c Consumer, now time.Time) error {
	if c.ID == "" {
		return nil // never joined: holds nothing
	}
	err := r.each(ctx, func(ctx context.Context, _ int, s *redisShard) error { return s.leave(ctx, c, now) })
	r.split.forget(c.ID)
	r.handed.forget(c.ID)
	return err
}
