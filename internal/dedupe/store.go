package dedupe

import (
	"context"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// Store is a persistent, exact set of seen keys in namespaces. Both
// implementations are safe for concurrent use by several goroutines and by
// several processes sharing the file (SQLite) or the server (Redis).
type Store interface {
	// SeenBatch marks keys as seen in namespace ns at time now and reports,
	// for each, whether this call saw it first: a key repeated within the
	// batch is new only at its first position. The batch is atomic: on
	// error nothing of it is recorded. now refreshes the namespace's idle
	// expiry (see Options.TTL).
	SeenBatch(ctx context.Context, ns string, keys []Key, now time.Time) ([]bool, error)
	// Len returns the number of keys in ns (0 for an expired namespace).
	Len(ctx context.Context, ns string, now time.Time) (int64, error)
	// Export calls fn for every key of ns, in no particular order. fn must
	// not call the store.
	Export(ctx context.Context, ns string, now time.Time, fn func(Key) error) error
	// Forget deletes namespace ns and all its keys.
	Forget(ctx context.Context, ns string) error
	// Expire deletes the namespaces idle past their TTL at now and returns
	// how many it deleted. Redis expires keys by itself, so there it
	// returns 0.
	Expire(ctx context.Context, now time.Time) (int, error)
	// Close releases the store's connections.
	Close() error
}

// Options configure a Store. The zero value is ready to use: no expiry,
// the default busy timeout and key prefix.
type Options struct {
	// TTL is the idle time after which a namespace expires as a whole;
	// 0 means never.
	TTL time.Duration
	// Getenv (Redis) reads the environment (RedisRetryEnv); nil reads
	// the process's.
	Getenv func(string) string
	// BusyTimeout (SQLite) is how long to wait for another process's
	// write lock; 0 means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Prefix (Redis) is prepended to every key; "" means the Redis URL's
	// prefix= option, else DefaultPrefix. On a Redis Cluster it is put in
	// braces, a hash tag (see RedisConn.KeyPrefix).
	Prefix string
}

// Open opens the store dsn names: a Redis URL (redis://host:port/db,
// redis+cluster://host:port,…) or else the path of an SQLite file.
func Open(ctx context.Context, dsn string, o Options) (Store, error) {
	if storeurl.IsRedisURL(dsn) {
		return OpenRedis(ctx, dsn, o)
	}
	return OpenSQLite(ctx, dsn, o)
}

// expiresAt is the namespace expiry, in Unix milliseconds, that a touch at
// now sets: 0 (never) without a TTL.
func expiresAt(now time.Time, ttl time.Duration) int64 {
	if ttl <= 0 {
		return 0
	}
	return now.Add(ttl).UnixMilli()
}
