package frontier

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// Redis is a Frontier in a Redis server or a Redis Cluster (see
// redis_lua.go for the key layout): any number of processes on any number
// of machines may share it. Every operation is one Lua script, atomic in
// Redis; Dump is the exception (it pages through the entries, see Dump).
// On a cluster every key of the frontier is in one slot (its key prefix
// carries a hash tag, see storage.RedisConn.KeyPrefix), so each script runs
// whole on the one node serving that slot, exactly as on one server.
//
// Durability is Redis's: with the default RDB snapshots a Redis crash loses
// the writes since the last snapshot; run Redis with appendonly yes
// (appendfsync everysec) to lose at most a second.
type Redis struct {
	conn   *storage.RedisConn
	client redis.UniversalClient
	opts   Options
	prefix string   // P: every key name starts with it (hash-tagged on a cluster)
	keys   []string // KEYS of every script: one key of the frontier's slot
	url    string
	// leaseTag (a shard of a Sharded frontier: "3:") starts every lease
	// it hands out, so that an ack finds its shard; "" otherwise.
	leaseTag string

	procs processCheck // the looks for gone processes (see goneConsumers)

	// lastPop holds each consumer's last pop token (see popScript).
	lastPopMu sync.Mutex
	lastPop   map[string]string

	// replayed (tests) runs pop and apply twice, answering the second
	// run: as a retry does when the first answer was lost.
	replayed bool
}

// OpenRedis connects to the Redis server or cluster at url
// (redis://[user:pass@]host:port/db, rediss:// for TLS,
// redis+cluster://host:port,host:port… for a cluster: see
// storage.DialRedis), where the frontier's keys start with Options.Prefix
// (else the URL's prefix=, else storage.DefaultPrefix). On a cluster it
// checks that the frontier's slots are served. With the URL's shards=K
// (K > 1) it is a Sharded frontier over K slots; otherwise a *Redis.
func OpenRedis(ctx context.Context, url string, o Options) (Frontier, error) {
	c, err := storage.DialRedisEnv(ctx, url, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("frontier: open: %w", err)
	}
	f, err := openOn(ctx, c, url, o)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("frontier: open: %w", err)
	}
	return f, nil
}

func openOn(ctx context.Context, c *storage.RedisConn, url string, o Options) (Frontier, error) {
	p, err := c.KeyPrefix(o.Prefix)
	if err != nil {
		return nil, err
	}
	if err := c.CheckUsable(ctx, p); err != nil {
		return nil, err
	}
	prefixes, err := c.CheckShards(ctx, p, p+"f:seq")
	if err != nil {
		return nil, err
	}
	if len(prefixes) == 1 {
		return newRedis(c, p, o, url), nil
	}
	s := &Sharded{conn: c, control: newRedis(c, p, o, url), held: map[string][]int{}, heads: make([]shardHead, len(prefixes))}
	for i, sp := range prefixes {
		r := newRedis(c, sp, o, url)
		r.leaseTag = strconv.Itoa(i) + ":"
		s.shards = append(s.shards, r)
	}
	return s, nil
}

// newRedis is the frontier under prefix p on c.
func newRedis(c *storage.RedisConn, p string, o Options, url string) *Redis {
	return &Redis{conn: c, client: c.Client, opts: o, prefix: p, keys: []string{p + "f:counts"}, url: url}
}

// lease is the lease of entry id's hand-out nonce, with the shard's tag.
func (r *Redis) lease(id int64, nonce uint64) string { return r.leaseTag + formatLease(id, nonce) }

// Close implements Frontier.
func (r *Redis) Close() error { return r.conn.Close() }

func (r *Redis) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("frontier: %s: %s: %w", op, r.conn.Name(), err)
}

// run runs one of the frontier's scripts (with the URL's wait=N, it
// returns once N replicas have its writes: see storage.RedisConn.Script).
// The scripts name their keys
// from P (ARGV[1]); KEYS[1], a key of the same slot, is what sends the
// script to the node serving it on a cluster.
// A call is retried while the server cannot be reached (see
// storage.RedisConn.Do): pop and push answer a second run of the same call
// without changing anything (see REPLAY_MS), and the other scripts change
// nothing a first run had not.
func (r *Redis) run(ctx context.Context, s *redis.Script, args ...any) *redis.Cmd {
	var cmd *redis.Cmd
	err := r.conn.Do(ctx, func(ctx context.Context) error {
		if r.replayed && (s == popScript || s == applyScript) {
			r.conn.Script(ctx, s, r.keys, args...) // its answer is lost
		}
		cmd = r.conn.Script(ctx, s, r.keys, args...)
		return cmd.Err()
	})
	if err != nil {
		cmd.SetErr(err) // what Do says of the retries, if it gave up
	}
	return cmd
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

// Apply implements Frontier.
func (r *Redis) Apply(ctx context.Context, b Batch, now time.Time) (BatchResult, error) {
	if len(b.Entries) == 0 && len(b.Acks) == 0 && len(b.Fails) == 0 && len(b.Releases) == 0 {
		return BatchResult{}, nil
	}
	lifo := "0"
	if r.opts.Order == LIFO {
		lifo = "1"
	}
	var seenExp int64
	if r.opts.DedupeTTL > 0 {
		seenExp = now.Add(r.opts.DedupeTTL).UnixMilli()
	}
	args := make([]any, 0, 11+10*len(b.Entries)+len(b.Acks)+2*len(b.Fails)+len(b.Releases))
	args = append(args, r.prefix, now.UnixMilli(), now.Unix(), seenExp, lifo, len(b.Entries), len(b.Acks), dedupe.RedisSeenKey(r.prefix, ""),
		len(b.Releases), len(b.Fails), fmt.Sprintf("a%016x", newNonce()))
	for i := range b.Entries {
		e := &b.Entries[i]
		if err := checkEntry(e); err != nil {
			return BatchResult{}, fmt.Errorf("frontier: push: entry %d: %v", i, err)
		}
		dont := "0"
		if e.DontFilter {
			dont = "1"
		}
		args = append(args, e.CrawlID, e.AppID, e.Host, r.opts.queuePriority(e), e.Expires, dont, e.Key.Member(), e.Raw,
			SeenNamespace(e.CrawlID, e.Round), freshNamespaces(e))
	}
	for _, l := range b.Acks {
		args = append(args, l)
	}
	for _, fl := range b.Fails {
		args = append(args, fl.Lease, FailReason(fl.Reason))
	}
	for _, l := range b.Releases {
		args = append(args, l)
	}
	v, err := r.run(ctx, applyScript, args...).Slice()
	if err != nil {
		return BatchResult{}, r.fail("push", err)
	}
	if len(v) != 7 {
		return BatchResult{}, r.fail("push", fmt.Errorf("unexpected script answer %v", v))
	}
	reasons, _ := v[0].([]any)
	var out BatchResult
	if len(b.Entries) > 0 {
		out.Pushed = make([]PushResult, len(b.Entries))
		for i := range out.Pushed {
			reason := ""
			if i < len(reasons) {
				reason, _ = reasons[i].(string)
			}
			out.Pushed[i] = PushResult{Queued: reason == "", Reason: reason}
		}
	}
	out.Acks.Acked = int(asInt(v[1]))
	out.Acks.Unknown = int(asInt(v[2]))
	out.Released = int(asInt(v[3]))
	out.ReleaseUnknown = int(asInt(v[4]))
	out.Failed = int(asInt(v[5]))
	out.FailUnknown = int(asInt(v[6]))
	return out, nil
}

// checkEntry refuses what the Lua script could not handle safely.
func checkEntry(e *Entry) error {
	switch {
	case e.Host == "":
		return errors.New("no host")
	case len(e.Raw) < 2 || e.Raw[0] != '{' || e.Raw[len(e.Raw)-1] != '}':
		return errors.New("raw is not a JSON object")
	}
	return nil
}

// Pop implements Frontier.
func (r *Redis) Pop(ctx context.Context, o PopOptions, now time.Time) (PopResult, error) {
	if o.Max <= 0 {
		return PopResult{}, nil
	}
	if o.Lease <= 0 {
		return PopResult{}, fmt.Errorf("frontier: pop: lease duration must be positive, got %v", o.Lease)
	}
	c := o.Consumer
	info, window, hostWindow := "", 0, 0
	if c.ID != "" {
		info = consumerJSON(c)
		window, hostWindow = max(o.Window, 0), max(o.HostWindow, 0)
	}
	if o.full {
		window = -1 // the script hands out nothing
	}
	gone, err := r.goneConsumers(ctx, c.ID, now, false)
	if err != nil {
		return PopResult{}, r.fail("pop", err)
	}
	deadline := now.Add(o.Lease)
	floor := ""
	if o.floor != nil {
		floor = strconv.Itoa(*o.floor)
	}
	args := make([]any, 0, 15+len(gone)+o.Max)
	args = append(args, r.prefix, now.UnixMilli(), now.Unix(), deadline.UnixMilli(), o.Max, r.opts.maxExpiries(),
		r.opts.maxAbandons(), r.beatCutoff(now), c.ID, info, window, hostWindow, len(gone), floor)
	for _, id := range gone {
		args = append(args, id)
	}
	for range o.Max {
		args = append(args, fmt.Sprintf("%016x", newNonce()))
	}
	token := args[len(args)-o.Max].(string) // the first nonce names the call
	args = append(args, r.swapLastPop(c.ID, ""))
	v, err := r.run(ctx, popScript, args...).Slice()
	if err != nil {
		return PopResult{}, r.fail("pop", err)
	}
	r.swapLastPop(c.ID, token)
	if len(v) != 5 {
		return PopResult{}, r.fail("pop", fmt.Errorf("unexpected script answer %v", v))
	}
	rows, _ := v[0].([]any)
	res := PopResult{Held: int(asInt(v[1])), Done: asInt(v[2]) == 1, GaveBack: int(asInt(v[3])), head: headOf(asString(v[4]))}
	if len(rows) > 0 {
		res.Leased = make([]Leased, 0, len(rows))
	}
	for _, row := range rows {
		f, _ := row.([]any)
		if len(f) != 7 {
			return PopResult{}, r.fail("pop", fmt.Errorf("unexpected script answer %v", row))
		}
		id := asInt(f[0])
		nonce, err := strconv.ParseUint(asString(f[1]), 16, 64)
		if err != nil {
			return PopResult{}, r.fail("pop", fmt.Errorf("bad nonce %v", f[1]))
		}
		l := r.lease(id, nonce)
		raw, err := handout([]byte(asString(f[2])), l, int(asInt(f[3])))
		if err != nil {
			return PopResult{}, r.fail("pop", fmt.Errorf("request %d: %v", id, err))
		}
		res.Leased = append(res.Leased, Leased{Lease: l, Raw: raw, Deadline: time.UnixMilli(deadline.UnixMilli()),
			CrawlID: asString(f[4]), Host: asString(f[5]), Priority: int(asInt(f[6]))})
	}
	return res, nil
}

// headOf reads the pop script's head priority: "-" none, "" unknown.
func headOf(s string) shardHead {
	if s == "" {
		return shardHead{}
	}
	if s == "-" {
		return shardHead{known: true, empty: true}
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return shardHead{}
	}
	return shardHead{known: true, prio: n}
}

// swapLastPop sets consumer id's last pop token to token and returns the
// one it had. Taken ("" put in its place) while a pop runs, so that a pop
// that failed, and may or may not have run, is not taken for lost writes.
func (r *Redis) swapLastPop(id, token string) string {
	if id == "" {
		return ""
	}
	r.lastPopMu.Lock()
	defer r.lastPopMu.Unlock()
	if r.lastPop == nil {
		r.lastPop = map[string]string{}
	}
	prev := r.lastPop[id]
	r.lastPop[id] = token
	return prev
}

// Reclaim implements Frontier.
func (r *Redis) Reclaim(ctx context.Context, now time.Time) (ReclaimResult, error) {
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

// Stop implements Frontier.
func (r *Redis) Stop(ctx context.Context, crawlID string, now time.Time) (int, error) {
	n, err := r.run(ctx, stopScript, r.prefix, crawlID).Int64()
	if err != nil {
		return 0, r.fail("stop", err)
	}
	return int(n), nil
}

// Unstop implements Frontier.
func (r *Redis) Unstop(ctx context.Context, crawlID string, now time.Time) error {
	if err := r.run(ctx, unstopScript, r.prefix, crawlID).Err(); err != nil {
		return r.fail("unstop", err)
	}
	return nil
}

// Expire implements Frontier.
func (r *Redis) Expire(ctx context.Context, now time.Time) ([]Expired, error) {
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

// Counts implements Frontier.
func (r *Redis) Counts(ctx context.Context) (Counts, error) {
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

// Done implements Frontier.
func (r *Redis) Done(ctx context.Context) (bool, error) {
	c, err := r.Counts(ctx)
	return c.Queued == 0 && c.InFlight == 0, err
}

// Stats implements Frontier.
func (r *Redis) Stats(ctx context.Context) (map[string]int64, error) {
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

// Info implements Frontier.
func (r *Redis) Info(ctx context.Context, filter InfoFilter) (Info, error) {
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

// Dump implements Frontier. Redis cannot hold a snapshot while a client
// pages through it, so Dump walks the entries with HSCAN while other
// clients go on: every request present throughout is reported once, each
// with the state it had when its page was read; requests pushed or acked
// meanwhile may or may not appear.
func (r *Redis) Dump(ctx context.Context, fn func(DumpEntry) error) error {
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

func (r *Redis) dumpPage(ctx context.Context, ids []string, raws map[string]string, where map[string][2]string, fn func(DumpEntry) error) error {
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

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}
