package storage

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

func TestShardOf(t *testing.T) {
	// The layout is stored: these must never change.
	for _, c := range []struct {
		key  string
		k    int
		want int
	}{
		{"shop.example", 1, 0},
		{"shop.example", 3, int(fnv32a("shop.example") % 3)},
		{"", 7, int(fnv32a("") % 7)},
	} {
		if got := ShardOf(c.key, c.k); got != c.want {
			t.Errorf("ShardOf(%q, %d) = %d, want %d", c.key, c.k, got, c.want)
		}
	}
	// FNV-1a 32 of "a" is 0xe40c292c.
	if got := ShardOf("a", 1<<30); got != 0xe40c292c%(1<<30) {
		t.Errorf("ShardOf(a) = %#x", got)
	}
	// Hosts spread: 3,000 hosts over 12 shards, each shard 150–350.
	n := make([]int, 12)
	for i := range 3000 {
		n[ShardOf("h"+strconv.Itoa(i)+".example", 12)]++
	}
	for i, c := range n {
		if c < 150 || c > 350 {
			t.Errorf("shard %d has %d of 3000 hosts: %v", i, c, n)
		}
	}
}

func fnv32a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func TestShardPrefixes(t *testing.T) {
	if got := ShardPrefixes("{crawlutils:}", 1); len(got) != 1 || got[0] != "{crawlutils:}" {
		t.Errorf("one shard: %q", got)
	}
	// The stored layout (docs/distributed.md names these): it must never change.
	if got, want := ShardPrefixes("{crawlutils:}", 3), []string{"{crawlutils:#0.1}", "{crawlutils:#1.0}", "{crawlutils:#2.21}"}; !slices.Equal(got, want) {
		t.Errorf("shards=3: %q, want %q", got, want)
	}
	if got := ShardPrefixes("crawlutils:", 2); got[0] != "crawlutils:#0:" || got[1] != "crawlutils:#1:" {
		t.Errorf("one server: %q", got)
	}
	for _, base := range []string{"{crawlutils:}", "{shop}:", "a{b}c:"} {
		for _, k := range []int{2, 3, 12, 256} {
			ps := ShardPrefixes(base, k)
			seen := map[string]bool{}
			for i, p := range ps {
				slot := RedisSlot(p + "f:counts")
				w := 16384 / k
				if slot < 16384*i/k || slot >= 16384*(i+1)/k {
					t.Errorf("%s k=%d: shard %d %q in slot %d, outside its range of %d", base, k, i, p, slot, w)
				}
				if seen[p] || !strings.HasSuffix(p, strings.SplitN(base, "}", 2)[1]) {
					t.Errorf("%s k=%d: shard %d prefix %q", base, k, i, p)
				}
				seen[p] = true
			}
		}
	}
	// Three masters with the slots split as redis-cli --cluster create
	// does: 0–5460, 5461–10922, 10923–16383. Twelve shards, four a master.
	per := make([]int, 3)
	for _, p := range ShardPrefixes("{crawlutils:}", 12) {
		switch s := RedisSlot(p); {
		case s <= 5460:
			per[0]++
		case s <= 10922:
			per[1]++
		default:
			per[2]++
		}
	}
	if per[0] != 4 || per[1] != 4 || per[2] != 4 {
		t.Errorf("12 shards over 3 masters: %v", per)
	}
}

func TestCheckShards(t *testing.T) {
	url := redistest.Start(t)
	ctx := context.Background()
	open := func(q string) *RedisConn {
		c, err := DialRedis(ctx, url+q)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// A new prefix takes the split it is first opened with.
	ps, err := open("?shards=3").CheckShards(ctx, "new:", "new:f:seq")
	if err != nil || len(ps) != 3 {
		t.Fatalf("first open: %q %v", ps, err)
	}
	if _, err := open("?shards=3").CheckShards(ctx, "new:", "new:f:seq"); err != nil {
		t.Errorf("same split: %v", err)
	}
	for _, q := range []string{"", "?shards=4"} {
		_, err := open(q).CheckShards(ctx, "new:", "new:f:seq")
		if err == nil || !strings.Contains(err.Error(), "split into 3 shards") || !strings.Contains(err.Error(), "shards=3") {
			t.Errorf("%q on a prefix of 3 shards: %v", q, err)
		}
	}
	// An unsplit prefix already used stays unsplit, and is not written.
	c := open("")
	if err := c.Client.Set(ctx, "old:f:seq", 5, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if ps, err := c.CheckShards(ctx, "old:", "old:f:seq"); err != nil || len(ps) != 1 || ps[0] != "old:" {
		t.Errorf("unsplit: %q %v", ps, err)
	}
	if n, _ := c.Client.Exists(ctx, ShardsKey("old:")).Result(); n != 0 {
		t.Errorf("shards=1 wrote %s", ShardsKey("old:"))
	}
	if _, err := open("?shards=2").CheckShards(ctx, "old:", "old:f:seq"); err == nil || !strings.Contains(err.Error(), "are not split") {
		t.Errorf("shards=2 on a used unsplit prefix: %v", err)
	}
}
