// Package storage opens the shared state every stateful crawlutils store
// lives in — an SQLite file or a Redis server or Cluster — the same way
// for all of them: the frontier, the seen-sets (dedupe), the throttle and
// the tools' stats (toolstats).
//
// # SQLite
//
// OpenDB opens a file in WAL mode with the busy timeout, BEGIN IMMEDIATE
// writes and a background checkpointer every store relies on;
// DescribeSQLiteError says what a driver error means (busy, locked, not
// a database, full).
//
// # Redis
//
// A Redis URL (IsRedisURL) names one server (redis://, rediss://,
// unix://) or a Cluster (redis+cluster://, rediss+cluster://); DialRedis
// connects to it and returns a RedisConn, which checks the URL's options
// (go-redis's, and prefix=, shards=, wait=, wait_timeout=), retries
// through an outage for $CRAWLUTILS_REDIS_RETRY (Do), waits for replicas
// after a write when asked (Script), and knows the key layout that every
// store shares: the key prefix (KeyPrefix, a hash tag on a cluster), the
// shards of a sharded prefix (ShardOf, ShardPrefixes, CheckShards).
//
// The package knows no store's own keys or tables: those are the
// frontier's, dedupe's, throttle's and toolstats'. It imports no tool.
package storage
