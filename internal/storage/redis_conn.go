package storage

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// A Redis URL names one server or a Redis Cluster; every crawlutils store
// (the seen-sets, the frontier, the throttle) opens it with DialRedis:
//
//	redis://[user:password@]host[:port][/db][?option=value&…]
//	rediss://…                        the same over TLS
//	unix://[user:password@]/path/to/redis.sock[?db=N&…]
//	redis+cluster://[user:password@]host[:port][,host[:port]…][/0][?option=value&…]
//	rediss+cluster://…                a cluster over TLS
//
// A cluster's hosts are seeds: any one that answers tells the client
// where every slot is. A cluster has db 0 only. The options are
// go-redis's (dial_timeout=5s, read_timeout=3s, max_retries=3, …; for a
// cluster also max_redirects=…) and prefix=STRING, the key prefix of every
// store (default DefaultPrefix): on a cluster, where there are no db
// numbers, it is what keeps two crawls apart.
const (
	schemeCluster    = "redis+cluster"
	schemeClusterTLS = "rediss+cluster"
)

// DefaultPrefix is the Redis key prefix of every crawlutils store.
const DefaultPrefix = "crawlutils:"

// RedisConn is a connection to one Redis server or to a Redis Cluster,
// as a Redis URL names them. Client runs the commands: on a cluster it
// sends each to the node serving the slot of its first key, a Lua script
// by its first KEYS entry. It is safe for concurrent use.
type RedisConn struct {
	Client redis.UniversalClient
	// Cluster is set for a redis+cluster:// (rediss+cluster://) URL.
	Cluster bool
	// Prefix is the URL's prefix= option, "" when it has none.
	Prefix string
	// Shards is the URL's shards= option, 1 when it has none (see
	// CheckShards).
	Shards int
	// Where names the server for messages, without a password:
	// "Redis at HOST:PORT (db N)" or "Redis Cluster at HOST:PORT,…".
	Where string

	retry time.Duration // how long Do retries (RedisRetryEnv)
	rep   replication   // the URL's wait= and wait_timeout= (see Script)
	out   outage
}

// DialRedis connects to the Redis server or cluster url names (see the
// forms above) and checks that it answers: PING, and that a server named
// by redis:// is not a cluster node (its scripts would fail on keys of
// other nodes' slots) and one named by redis+cluster:// is one. Errors
// name the server (never the password).
func DialRedis(ctx context.Context, rawURL string) (*RedisConn, error) {
	return DialRedisEnv(ctx, rawURL, nil)
}

// DialRedisEnv is DialRedis reading the environment (RedisRetryEnv)
// through getenv: a command's own (cli.Env.Getenv), so that nothing but
// what it was given reaches it; nil reads the process's.
func DialRedisEnv(ctx context.Context, rawURL string, getenv func(string) string) (*RedisConn, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	retry, err := retryFor(getenv)
	if err != nil {
		return nil, err
	}
	c, err := dialRedis(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	c.retry = retry
	return c, nil
}

func dialRedis(ctx context.Context, rawURL string) (*RedisConn, error) {
	quietRedisLog.Do(func() { redis.SetLogger(quietLogger{}) })
	if storeurl.IsRedisClusterURL(rawURL) {
		return dialCluster(ctx, rawURL)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, badURL(rawURL, err)
	}
	query := u.RawQuery
	uo, err := takeOptions(u)
	if err != nil {
		return nil, badURL(rawURL, err)
	}
	if err := checkGoRedisOptions(u.Query()); err != nil {
		return nil, badURL(rawURL, err)
	}
	if u.Scheme != "unix" {
		if err := checkDBPath(u.Path, u.Query()); err != nil {
			return nil, badURL(rawURL, err)
		}
	}
	goURL := rawURL
	if u.RawQuery != query {
		goURL = u.String()
	}
	opt, err := redis.ParseURL(goURL)
	if err != nil {
		return nil, badURL(rawURL, err)
	}
	where := fmt.Sprintf("Redis at %s (db %d)", opt.Addr, opt.DB)
	c := redis.NewClient(opt)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, reachErr(where, err)
	}
	// INFO may be refused (renamed, ACL): then nothing is known, and a
	// cluster node shows itself at the first MOVED.
	if info, err := c.Info(ctx, "cluster").Result(); err == nil && strings.Contains(info, "cluster_enabled:1") {
		c.Close()
		return nil, fmt.Errorf("%s is a node of a Redis Cluster: name the cluster as %s://%s (any of its nodes, comma-separated)",
			strings.TrimSuffix(where, fmt.Sprintf(" (db %d)", opt.DB)), schemeCluster, opt.Addr)
	}
	return &RedisConn{Client: c, Prefix: uo.prefix, Shards: uo.shards, Where: where, rep: uo.rep}, nil
}

func dialCluster(ctx context.Context, rawURL string) (*RedisConn, error) {
	opt, uo, err := parseClusterURL(rawURL)
	if err != nil {
		return nil, badURL(rawURL, err)
	}
	where := "Redis Cluster at " + strings.Join(opt.Addrs, ",")
	c := redis.NewClusterClient(opt)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		if strings.Contains(err.Error(), "cluster support disabled") {
			//lint:ignore ST1005 the message starts with a name, Redis, as the others do
			return nil, fmt.Errorf("Redis at %s is not a Redis Cluster (%v): name one server as redis://%s/0",
				strings.Join(opt.Addrs, ","), strings.TrimPrefix(err.Error(), "ERR "), opt.Addrs[0])
		}
		return nil, reachErr(where, err)
	}
	return &RedisConn{Client: c, Cluster: true, Prefix: uo.prefix, Shards: uo.shards, Where: where, rep: uo.rep}, nil
}

// parseClusterURL reads a redis+cluster:// URL into go-redis's options
// (through redis.ParseClusterURL, which takes the first seed as its host
// and the others as addr= options) and our own options (takeOptions).
func parseClusterURL(raw string) (opt *redis.ClusterOptions, uo urlOptions, err error) {
	scheme, rest, _ := strings.Cut(raw, "://")
	authority, tail := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, tail = rest[:i], rest[i:]
	}
	userinfo, hosts := "", authority
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		userinfo, hosts = authority[:i+1], authority[i+1:]
	}
	path, query, _ := strings.Cut(tail, "?")
	if strings.Contains(query, "#") || strings.Contains(path, "#") {
		return nil, uo, errors.New("a fragment (#…) has no meaning here")
	}
	if path != "" && path != "/" && path != "/0" {
		return nil, uo, fmt.Errorf("a Redis Cluster has db 0 only, not %s (keep crawls apart with prefix=NAME: instead)", strings.TrimPrefix(path, "/"))
	}
	u := &url.URL{RawQuery: query}
	if uo, err = takeOptions(u); err != nil {
		return nil, uo, err
	}
	q := u.Query()
	if err := checkGoRedisOptions(q); err != nil {
		return nil, uo, err
	}
	if db := q.Get("db"); q.Has("db") && db != "0" {
		return nil, uo, fmt.Errorf("a Redis Cluster has db 0 only, not %s (keep crawls apart with prefix=NAME: instead)", db)
	}
	q.Del("db")
	var seeds []string
	for _, h := range strings.Split(hosts, ",") {
		if h == "" {
			return nil, uo, errors.New("an empty address in the list of seeds")
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), "6379")
		}
		seeds = append(seeds, h)
	}
	for _, s := range seeds[1:] {
		q.Add("addr", s)
	}
	goScheme := "redis"
	if scheme == schemeClusterTLS {
		goScheme = "rediss"
	}
	opt, err = redis.ParseClusterURL(goScheme + "://" + userinfo + seeds[0] + "/?" + q.Encode())
	if err != nil {
		return nil, uo, err
	}
	return opt, uo, nil
}

// urlOptions are the options of a Redis URL that are ours, not go-redis's.
type urlOptions struct {
	prefix string      // prefix=
	rep    replication // wait=, wait_timeout=
	shards int         // shards=
}

// takeOptions removes our options from u's query and returns them.
func takeOptions(u *url.URL) (uo urlOptions, err error) {
	if uo.prefix, err = takePrefix(u); err != nil {
		return uo, err
	}
	if uo.rep, err = takeWait(u); err != nil {
		return uo, err
	}
	uo.shards, err = takeShards(u)
	return uo, err
}

// takePrefix removes the prefix= option from u's query and returns it.
func takePrefix(u *url.URL) (string, error) {
	q := u.Query()
	if !q.Has("prefix") {
		return "", nil
	}
	p := q.Get("prefix")
	if p == "" {
		return "", errors.New("prefix= is empty")
	}
	q.Del("prefix")
	u.RawQuery = q.Encode()
	return p, nil
}

// reachErr is the error of a first PING that failed: the server cannot
// be reached, or what answered is not Redis (an HTTP server, say).
func reachErr(where string, err error) error {
	if strings.HasPrefix(err.Error(), "redis: invalid reply") || strings.HasPrefix(err.Error(), "redis: can't parse") {
		return fmt.Errorf("%s does not answer as Redis does: is it a Redis server? (%v)", where, err)
	}
	return fmt.Errorf("cannot reach %s: %v", where, err)
}

func badURL(raw string, err error) error {
	return &badURLError{fmt.Sprintf("bad Redis URL %s: %v", storeurl.RedactRedisURL(raw), strings.TrimPrefix(err.Error(), "redis: "))}
}

// KeyPrefix returns what every key name of a store starts with, for the
// store's Options.Prefix (""; the URL's prefix=, else DefaultPrefix). On
// one server it is the prefix itself, so the key names are those of
// earlier releases. On a cluster it carries a hash tag, so that all the
// keys of the store are in one slot and every Lua script, which touches
// many of them, runs on one node: the prefix itself when it holds a tag
// already ("{shop}:"), else the prefix in braces ("{crawlutils:}").
func (c *RedisConn) KeyPrefix(prefix string) (string, error) {
	if prefix == "" {
		prefix = c.Prefix
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if !c.Cluster || hashTag(prefix) != "" {
		return prefix, nil
	}
	if strings.HasPrefix(prefix, "}") {
		return "", fmt.Errorf("key prefix %q: on a Redis Cluster it cannot start with } unless it holds a hash tag {…}", prefix)
	}
	return "{" + prefix + "}", nil
}

// CheckUsable checks that the keys starting with keyPrefix can be used,
// so that a store fails when it opens rather than at its first call: on a
// cluster, that their slot is served; and that the server serving them
// runs Lua scripts (every operation of every store is one), which a
// server configured with rename-command EVAL "" (or an ACL that denies
// EVAL or EVALSHA to the user) does not.
func (c *RedisConn) CheckUsable(ctx context.Context, keyPrefix string) error {
	if c.Cluster {
		if err := c.Client.Exists(ctx, keyPrefix).Err(); err != nil {
			return fmt.Errorf("%s: slot %d (keys %s…) cannot be used: %v", c.Where, RedisSlot(keyPrefix), keyPrefix, err)
		}
	}
	// EVALSHA of a script the server cannot know: NOSCRIPT when it runs
	// scripts; an unknown command, or NOPERM, when it does not. Nothing
	// runs either way.
	err := c.Client.EvalSha(ctx, "0000000000000000000000000000000000000000", []string{keyPrefix}).Err()
	if err == nil || strings.HasPrefix(err.Error(), "NOSCRIPT") {
		err = c.Client.Eval(ctx, "return 1", []string{keyPrefix}).Err()
	}
	if err != nil {
		if Retryable(err) {
			return fmt.Errorf("cannot reach %s: %v", c.Where, err)
		}
		return fmt.Errorf("%s does not run Lua scripts, which every crawlutils store needs (are EVAL and EVALSHA renamed or disabled with rename-command, or denied to this user by an ACL?): %v", c.Where, err)
	}
	c.warnEviction(ctx, keyPrefix)
	return nil
}

// warnEviction warns, once per process and server, when the server may
// delete keys of its own accord when full (maxmemory-policy allkeys-…):
// a store's keys, the frontier's requests among them, would go without an
// error. CONFIG is often renamed or denied (hosted Redis): then nothing is
// known and nothing said. On a cluster it asks the master serving the
// keys starting with keyPrefix.
func (c *RedisConn) warnEviction(ctx context.Context, keyPrefix string) {
	node, err := c.Node(ctx, keyPrefix)
	if err != nil {
		return
	}
	policy, err := node.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil || !strings.HasPrefix(policy["maxmemory-policy"], "allkeys-") {
		return
	}
	if _, told := evictionTold.LoadOrStore(c.Where, true); !told {
		Warnf("%s: maxmemory-policy is %s: when it is full, Redis deletes keys to make room, the crawl's among them (requests lost without an error); set maxmemory-policy noeviction", c.Where, policy["maxmemory-policy"])
	}
}

// evictionTold holds the servers warnEviction has warned about.
var evictionTold sync.Map

// OutOfMemory reports whether err is Redis refusing a write because its
// maxmemory is reached (OOM), with maxmemory-policy noeviction or nothing
// left to evict. A script refused so has written nothing: Redis refuses
// it at its first write.
func OutOfMemory(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "OOM ")
}

// Node returns the client of the server holding key: the Client itself on
// one server, the master serving key's slot on a cluster. Commands that
// name no key (SCAN, KEYS) must go there.
func (c *RedisConn) Node(ctx context.Context, key string) (redis.UniversalClient, error) {
	if cc, ok := c.Client.(*redis.ClusterClient); ok {
		return cc.MasterForKey(ctx, key)
	}
	return c.Client, nil
}

// Name is how errors name the server after it opened: "redis", as
// earlier releases did, or "redis cluster HOST:PORT,…".
func (c *RedisConn) Name() string {
	if c.Cluster {
		return "redis cluster " + strings.TrimPrefix(c.Where, "Redis Cluster at ")
	}
	return "redis"
}

// Close closes the connections.
func (c *RedisConn) Close() error { return c.Client.Close() }

// RedisSlot is the Redis Cluster hash slot of key: CRC16 (XMODEM) of its
// hash tag (the text between the first { and the next }, when not empty)
// or of the whole key, modulo 16384, as CLUSTER KEYSLOT computes it.
func RedisSlot(key string) int {
	if t := hashTag(key); t != "" {
		key = t
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

// hashTag returns key's hash tag, "" when it has none.
func hashTag(key string) string {
	s := strings.IndexByte(key, '{')
	if s < 0 {
		return ""
	}
	e := strings.IndexByte(key[s+1:], '}')
	if e <= 0 {
		return ""
	}
	return key[s+1 : s+1+e]
}

// quietRedisLog silences go-redis's own log, which it writes to stderr in
// its own format (connection retries, pool messages): every error it
// meets reaches the user once, as the error of the call, through the
// command's message format.
var quietRedisLog sync.Once

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
