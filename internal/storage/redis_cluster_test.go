package storage

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// The tests dial a Redis Cluster too (redistest.SharedCluster),
// which this binary starts once and stops here.
func TestMain(m *testing.M) {
	code := m.Run()
	redistest.StopShared()
	os.Exit(code)
}

func TestParseClusterURL(t *testing.T) {
	for _, c := range []struct {
		url    string
		addrs  []string
		prefix string
		shards int
		user   string
		pass   string
		tls    bool
		err    string
	}{
		{url: "redis+cluster://h1:7000,h2:7001", addrs: []string{"h1:7000", "h2:7001"}},
		{url: "redis+cluster://h1,h2:7001/", addrs: []string{"h1:6379", "h2:7001"}},
		{url: "redis+cluster://h1:7000/0?prefix=shop:", addrs: []string{"h1:7000"}, prefix: "shop:"},
		{url: "redis+cluster://u:p%40ss@h1:7000,[::1]:7001,[::1]?dial_timeout=2s&db=0", addrs: []string{"h1:7000", "[::1]:7001", "[::1]:6379"}, user: "u", pass: "p@ss"},
		{url: "rediss+cluster://:secret@h1:7000", addrs: []string{"h1:7000"}, pass: "secret", tls: true},
		{url: "redis+cluster://h1:7000/3", err: "a Redis Cluster has db 0 only, not 3"},
		{url: "redis+cluster://h1:7000?db=2", err: "a Redis Cluster has db 0 only, not 2"},
		{url: "redis+cluster://h1:7000,,h2:7001", err: "an empty address"},
		{url: "redis+cluster://h1:7000?prefix=", err: "prefix= is empty"},
		{url: "redis+cluster://h1:7000?colour=blue", err: "unknown option colour="},
		{url: "redis+cluster://h1:7000?shards=12&prefix=a:", addrs: []string{"h1:7000"}, prefix: "a:", shards: 12},
		{url: "redis+cluster://h1:7000?shards=0", err: `shards="0": want how many slots`},
		{url: "redis+cluster://h1:7000?shards=257", err: `shards="257"`},
		{url: "redis+cluster://h1:7000?shards=x", err: `shards="x"`},
	} {
		opt, uo, err := parseClusterURL(c.url)
		prefix := uo.prefix
		if c.shards == 0 {
			c.shards = 1
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.url, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if !slices.Equal(opt.Addrs, c.addrs) || prefix != c.prefix || uo.shards != c.shards || opt.Username != c.user || opt.Password != c.pass || (opt.TLSConfig != nil) != c.tls {
			t.Errorf("%s: addrs %v prefix %q shards %d user %q pass %q tls %v", c.url, opt.Addrs, prefix, uo.shards, opt.Username, opt.Password, opt.TLSConfig != nil)
		}
	}
}

func TestRedisURLErrorsHideThePassword(t *testing.T) {
	for _, u := range []string{"redis+cluster://u:hunter2@h1:7000/5", "redis://:hunter2@h1:7000/x", "redis://:hunter2@h1:7000/0?prefix="} {
		_, err := DialRedis(context.Background(), u)
		if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "bad Redis URL") {
			t.Errorf("DialRedis(%s) = %v", u, err)
		}
	}
}

func TestIsRedisURL(t *testing.T) {
	for dsn, want := range map[string]bool{
		"redis://h:6379/0": true, "rediss://h": true, "unix:///run/redis.sock": true,
		"redis+cluster://h1:7000,h2:7001": true, "rediss+cluster://h1": true,
		"crawl.db": false, "redis+sentinel://h": false,
	} {
		if storeurl.IsRedisURL(dsn) != want {
			t.Errorf("storeurl.IsRedisURL(%q) = %v", dsn, !want)
		}
	}
}

func TestKeyPrefix(t *testing.T) {
	one, cluster := &RedisConn{}, &RedisConn{Cluster: true}
	for _, c := range []struct {
		conn      *RedisConn
		prefix    string
		urlPrefix string
		want      string
	}{
		{one, "", "", "crawlutils:"},
		{one, "shop:", "", "shop:"},
		{one, "", "url:", "url:"},
		{one, "opt:", "url:", "opt:"},
		{cluster, "", "", "{crawlutils:}"},
		{cluster, "", "shop:", "{shop:}"},
		{cluster, "{shop}:", "", "{shop}:"},
		{cluster, "a}b{", "", "{a}b{}"},
		{cluster, "}x", "", ""},
	} {
		c.conn.Prefix = c.urlPrefix
		got, err := c.conn.KeyPrefix(c.prefix)
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("cluster %v, KeyPrefix(%q) with prefix=%q: %q, %v; want %q", c.conn.Cluster, c.prefix, c.urlPrefix, got, err, c.want)
		}
		if c.conn.Cluster && got != "" && RedisSlot(got+"seen:a") != RedisSlot(got+"f:counts") {
			t.Errorf("keys of prefix %q in two slots", got)
		}
	}
}

// TestRedisSlot holds RedisSlot to the cluster's CLUSTER KEYSLOT.
func TestRedisSlot(t *testing.T) {
	url := redistest.SharedCluster(t)
	addr := strings.Split(strings.TrimPrefix(url, "redis+cluster://"), ",")[0]
	for _, k := range []string{"", "a", "123456789", "crawlutils:f:seq", "{crawlutils:}f:seq", "{crawlutils:}seen:c1",
		"x{}y", "{}{a}", "{a}{b}", "a{b", "a}b{c}", "héllo{wörld}", "{" + strings.Repeat("z", 300) + "}"} {
		want, err := redistest.Do(addr, "CLUSTER", "KEYSLOT", k)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(RedisSlot(k)); got != want {
			t.Errorf("RedisSlot(%q) = %s, CLUSTER KEYSLOT says %s", k, got, want)
		}
	}
}

// A URL of the wrong kind is refused when it opens, saying which to use:
// a cluster's node named as one server would fail at the first key of
// another node's slot.
func TestDialRedisWrongKind(t *testing.T) {
	ctx := context.Background()
	cluster := redistest.SharedCluster(t)
	node := strings.Split(strings.TrimPrefix(cluster, "redis+cluster://"), ",")[0]
	_, err := DialRedis(ctx, "redis://"+node+"/0")
	if err == nil || !strings.Contains(err.Error(), "is a node of a Redis Cluster: name the cluster as redis+cluster://"+node) {
		t.Errorf("one-server URL of a cluster node: %v", err)
	}
	one := redistest.Start(t)
	_, err = DialRedis(ctx, "redis+cluster://"+strings.TrimSuffix(strings.TrimPrefix(one, "redis://"), "/0"))
	if err == nil || !strings.Contains(err.Error(), "not a Redis Cluster") {
		t.Errorf("cluster URL of one server: %v", err)
	}
	_, err = DialRedis(ctx, "redis+cluster://127.0.0.1:1,127.0.0.1:2")
	if err == nil || !strings.Contains(err.Error(), "cannot reach Redis Cluster at 127.0.0.1:1,127.0.0.1:2") {
		t.Errorf("unreachable cluster: %v", err)
	}
}
