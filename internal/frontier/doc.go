// Package frontier is the crawl's queue of requests, the state behind
// cqueue: a priority queue with per-host fairness, a duplicate filter,
// leases and a dead letter, crawl policy, and Scrapy Cluster's info, stop
// and expire actions. Two implementations share one interface and one
// conformance test suite (conformance_test.go): an SQLite file
// (OpenSQLite), the embedded default, safe for several processes at once,
// and a Redis server or Redis Cluster (OpenRedis), for pipelines on many
// machines, whose crawl may be split over K slots of a cluster (the URL's
// shards=K; not split, K = 1, by default).
//
// # Model
//
// A request is queued in its crawl (crawlid, "" for none) and host: each
// (crawl, host) pair is one queue. Pop serves the highest priority first,
// FIFO (or LIFO) within a priority, and rotates among the queues whose head
// has that priority, so a host with thousands of queued requests takes
// turns with one that has ten, and a new host waits at most one rotation.
//
// Each request pushed is, in order: refused if its crawl was stopped
// (ReasonStopped) or its expires has passed (ReasonExpired); refused if its
// fingerprint (Entry.Key) was already seen in its crawl (ReasonDuplicate),
// unless dont_filter; else queued. The crawl policy (maxdepth,
// allowed_domains, regexes, extensions, schema) is checked before, by
// Policy, a pure function.
//
// A popped request is in flight until Ack is called with its lease; then it
// is finished and forgotten (its fingerprint stays in the duplicate filter).
// If the lease expires first (the worker died), Reclaim (which Pop calls)
// queues it again with retries+1; after Options.MaxLeaseExpiries expiries it
// is dead-lettered, kept and reported but never handed out again. A stage
// that cannot process a request (an invalid record, too large) answers with
// a fail instead of an ack (Batch.Fails): the request is dead-lettered at
// once, with the stage's reason (Dump's Reason). Nothing is lost: a
// request leaves the frontier only when acked, purged by Stop or Expire, or
// dropped because its crawl ended while it was in flight. Done reports the
// end of the crawl: nothing queued, nothing in flight (dead requests do not
// hold it open).
//
// Pushes and acks that belong together (the follow-ups of a page and the
// page's ack) go through Apply, one transaction, so a crash keeps both or
// neither.
//
// # Time and concurrency
//
// Every method takes the time as an argument and never reads the clock, so
// lease expiry and crawl expiry are tested without sleeping. All methods
// are safe for concurrent use, and atomic: goroutines and processes sharing
// a frontier never receive the same request twice at the same time.
//
// # Errors
//
// Errors start with "frontier: " and the operation. SQLite errors say what
// went wrong with the file (see storage.DescribeSQLiteError: not a database,
// locked by another process past the busy timeout, disk full) and wrap
// storage.ErrNotDatabase, ErrLocked, ErrFull; a failed operation changes
// nothing.
package frontier
