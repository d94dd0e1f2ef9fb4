package frontier

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// redisShard runs the frontier's Lua scripts (see redis_lua.go for the
// key layout) on the keys under one prefix: the whole frontier when it is
// not split (Redis with one shard), else one of its shards. Every
// operation is one script, atomic in Redis; dump is the exception (it
// pages through the entries). On a cluster every key under the prefix is
// in one slot (the prefix carries a hash tag, see
// storage.RedisConn.KeyPrefix), so each script runs whole on the one node
// serving that slot, exactly as on one server.
type redisShard struct {
	conn   *storage.RedisConn
	client redis.UniversalClient
	opts   Options
	prefix string   // P: every key name starts with it (hash-tagged on a cluster)
	keys   []string // KEYS of every script: one key of the prefix's slot
	// leaseTag (shard i of a split frontier: "i:") starts every lease it
	// hands out, so that an ack finds its shard; "" when not split, so
	// the leases are those of earlier releases.
	leaseTag string

	procs processCheck // the looks for gone processes (see goneConsumers)

	// lastPop holds each consumer's last pop token (see popScript).
	lastPopMu sync.Mutex
	lastPop   map[string]string

	// replayed (tests) runs pop and apply twice, answering the second
	// run: as a retry does when the first answer was lost.
	replayed bool
}

// newShard is the shard under prefix p on c.
func newShard(c *storage.RedisConn, p string, o Options) *redisShard {
	return &redisShard{conn: c, client: c.Client, opts: o, prefix: p, keys: []string{p + "f:counts"}}
}

// lease is the lease of entry id's hand-out nonce, with the shard's tag.
func (r *redisShard) lease(id int64, nonce uint64) string { return r.leaseTag + formatLease(id, nonce) }

func (r *redisShard) fail(op string, err error) error {
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
func (r *redisShard) run(ctx context.Context, s *redis.Script, args ...any) *redis.Cmd {
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

// apply is Frontier.Apply on the shard: every entry's host and every
// lease is the shard's.
func (r *redisShard) apply(ctx context.Context, b Batch, now time.Time) (BatchResult, error) {
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

// shardPop is what a split frontier asks of one shard's pop, beyond
// PopOptions; the zero value asks nothing more (a frontier of one shard).
type shardPop struct {
	// full: the consumer's Window is taken in the other shards, or the
	// shard is only asked what is at its head: hand out nothing here.
	full bool
	// floor, when set, is the lowest priority to hand out: the other
	// shards have requests above the rest of this one's.
	floor *int
}

// shardHead is what a pop saw at the head of a shard's queues once it
// was done: the priority of the next request, or none.
type shardHead struct {
	known bool // false: not known (a replayed pop, or never asked)
	empty bool // nothing queued
	prio  int
}

// pop is Frontier.Pop on the shard, with what a split frontier asks
// more (sp); it also returns what is at the shard's head after it. o.Max
// is positive and o.Lease too (Redis.Pop checks).
func (r *redisShard) pop(ctx context.Context, o PopOptions, sp shardPop, now time.Time) (PopResult, shardHead, error) {
	c := o.Consumer
	info, window, hostWindow := "", 0, 0
	if c.ID != "" {
		info = consumerJSON(c)
		window, hostWindow = max(o.Window, 0), max(o.HostWindow, 0)
	}
	if sp.full {
		window = -1 // the script hands out nothing
	}
	gone, err := r.goneConsumers(ctx, c.ID, now, false)
	if err != nil {
		return PopResult{}, shardHead{}, r.fail("pop", err)
	}
	deadline := now.Add(o.Lease)
	floor := ""
	if sp.floor != nil {
		floor = strconv.Itoa(*sp.floor)
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
		return PopResult{}, shardHead{}, r.fail("pop", err)
	}
	r.swapLastPop(c.ID, token)
	if len(v) != 5 {
		return PopResult{}, shardHead{}, r.fail("pop", fmt.Errorf("unexpected script answer %v", v))
	}
	rows, _ := v[0].([]any)
	res := PopResult{Held: int(asInt(v[1])), Done: asInt(v[2]) == 1, GaveBack: int(asInt(v[3]))}
	if len(rows) > 0 {
		res.Leased = make([]Leased, 0, len(rows))
	}
	for _, row := range rows {
		f, _ := row.([]any)
		if len(f) != 7 {
			return PopResult{}, shardHead{}, r.fail("pop", fmt.Errorf("unexpected script answer %v", row))
		}
		id := asInt(f[0])
		nonce, err := strconv.ParseUint(asString(f[1]), 16, 64)
		if err != nil {
			return PopResult{}, shardHead{}, r.fail("pop", fmt.Errorf("bad nonce %v", f[1]))
		}
		l := r.lease(id, nonce)
		raw, err := handout([]byte(asString(f[2])), l, int(asInt(f[3])))
		if err != nil {
			return PopResult{}, shardHead{}, r.fail("pop", fmt.Errorf("request %d: %v", id, err))
		}
		res.Leased = append(res.Leased, Leased{Lease: l, Raw: raw, Deadline: time.UnixMilli(deadline.UnixMilli()),
			CrawlID: asString(f[4]), Host: asString(f[5]), Priority: int(asInt(f[6]))})
	}
	return res, headOf(asString(v[4])), nil
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
func (r *redisShard) swapLastPop(id, token string) string {
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
