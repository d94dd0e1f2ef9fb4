package storage

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// A Redis URL's shards=K option splits each crawl's state over K hash
// slots, so that on a Redis Cluster one crawl spreads over the masters:
// the frontier puts each host's queue, and its share of the duplicate
// filter, in shard ShardOf(host, K); cdedupe puts a request's key in its
// host's shard too (so it shares the frontier's seen sets) and any other
// key in ShardOf(key's member, K); cthrottle a key's schedule and hold in
// ShardOf(key, K), the host's for a host key. Each operation on a host or
// a fingerprint still runs in one script on one slot. K is fixed when a
// prefix is first used with it (the prefix's "shards" key); every tool
// sharing the prefix must use the same K.
const shardsOption = "shards"

// MaxShards is the largest shards= a URL may ask for.
const MaxShards = 256

// takeShards removes the shards= option from u's query and returns it (1
// when absent).
func takeShards(u *url.URL) (int, error) {
	q := u.Query()
	if !q.Has(shardsOption) {
		return 1, nil
	}
	n, err := strconv.Atoi(q.Get(shardsOption))
	if err != nil || n < 1 || n > MaxShards {
		return 1, fmt.Errorf("shards=%q: want how many slots to split each crawl over, 1 to %d (such as 3 times the cluster's masters)", q.Get(shardsOption), MaxShards)
	}
	q.Del(shardsOption)
	u.RawQuery = q.Encode()
	return n, nil
}

// ShardOf is the shard, 0 to k-1, of key (a host name, a fingerprint):
// FNV-1a (32 bits) of key modulo k. It is part of the stored layout: a
// key must land in the same shard for every tool and every release.
func ShardOf(key string, k int) int {
	if k <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(k))
}

// ShardPrefixes returns the key prefixes of the k shards of base, a
// prefix from KeyPrefix. With k = 1 it is base itself, the layout of a
// crawl that is not split. Otherwise shard i's prefix is base with "#i"
// (and, on a hash tag, ".n") added to its hash tag, or "#i:" appended
// when it has none: the n is the first that puts shard i's slot in the
// middle half of the i-th of k equal ranges of the 16384 slots. So when k
// is a multiple of a cluster's masters and its slots are split evenly
// among them in order (as redis-cli --cluster create does), each master
// serves k / masters shards.
func ShardPrefixes(base string, k int) []string {
	if k <= 1 {
		return []string{base}
	}
	out := make([]string, k)
	s := strings.IndexByte(base, '{')
	tag := hashTag(base)
	for i := range out {
		if tag == "" {
			out[i] = base + "#" + strconv.Itoa(i) + ":"
			continue
		}
		head, tail := base[:s+1]+tag+"#"+strconv.Itoa(i), base[s+1+len(tag):]
		lo, hi := 16384*i/k, 16384*(i+1)/k
		quarter := (hi - lo) / 4
		for n := 0; ; n++ {
			p := head + "." + strconv.Itoa(n) + tail
			if slot := RedisSlot(p); slot >= lo+quarter && slot < hi-quarter {
				out[i] = p
				break
			}
		}
	}
	return out
}

// FrontierUsedKey is a key that exists under base when an unsplit
// frontier has used it (its request sequence, "f:seq"). Every tool passes
// it to CheckShards as used, so that the split a prefix records does not
// depend on which tool opened the prefix first.
func FrontierUsedKey(base string) string { return base + "f:seq" }

// ShardsKey is the key under base that records how many shards the
// prefix's state is split into.
func ShardsKey(base string) string { return base + "shards" }

// shardsScript records K for a prefix unless one is recorded, and returns
// the recorded K. A prefix whose frontier was used unsplit before (its
// ARGV[2] key exists) is recorded as 1.
var shardsScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return v end
if ARGV[2] ~= '' and redis.call('EXISTS', ARGV[2]) == 1 then v = '1' else v = ARGV[1] end
redis.call('SET', KEYS[1], v)
return v
`)

// CheckShards checks that the prefix base is split into c.Shards shards,
// recording it when base is new, and returns the prefixes of its shards
// (ShardPrefixes), each checked usable as CheckUsable checks base. used is a key that exists when base has held an unsplit
// store already ("" when no such key tells). With shards=1 nothing is
// written: an unsplit prefix is what every earlier release made.
func (c *RedisConn) CheckShards(ctx context.Context, base, used string) ([]string, error) {
	k := max(c.Shards, 1)
	key := ShardsKey(base)
	var got string
	err := c.Do(ctx, func(ctx context.Context) (err error) {
		if k == 1 {
			got, err = c.Client.Get(ctx, key).Result()
			if err == redis.Nil {
				got, err = "1", nil
			}
			return err
		}
		got, err = c.Script(ctx, shardsScript, []string{key}, k, used).Text()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", c.Where, err)
	}
	if got != strconv.Itoa(k) {
		split := "split into " + got + " shards"
		if got == "1" {
			split = "not split"
		}
		return nil, fmt.Errorf("the keys %s… at %s are %s, and this URL asks for shards=%d: every tool sharing them must use shards=%s (a prefix's split cannot change; use a new prefix= for a new split)",
			base, c.Where, split, k, got)
	}
	prefixes := ShardPrefixes(base, k)
	if k > 1 {
		for i, sp := range prefixes {
			if err := c.CheckUsable(ctx, sp); err != nil {
				return nil, fmt.Errorf("shard %d: %w", i, err)
			}
		}
	}
	return prefixes, nil
}

// InParallel runs fn for i from 0 to n-1 at once (each call is a script
// or a pipeline on a shard of its own, so on a cluster they run on their
// masters in parallel) and returns the error of the first that failed.
// With n = 1 it runs fn in the caller's goroutine.
func InParallel(n int, fn func(i int) error) error {
	if n == 1 {
		return fn(0)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
