// Package dedupe is the persistent "seen" set behind cdedupe and the
// frontier's duplicate filter: it answers, for a batch of keys in a
// namespace, which are seen for the first time, and remembers them all.
//
// # Model
//
// A Store holds namespaces (by convention one per crawlid, "" for records
// with none); a namespace holds keys. SeenBatch marks a batch of keys as
// seen, atomically, and reports which were new. The set is exact: a key is
// reported new exactly once (per namespace, until the namespace expires),
// whatever the size of the set; nothing is probabilistic.
//
// A Key is a 64-bit hash (fingerprint.Key64 of a request, or KeyOf of an
// item field), optionally with the 20-byte SHA-1 Scrapy uses (ScrapyKey),
// which is stored too, so a namespace can be exported as a Scrapy JOBDIR
// requests.seen file (WriteSeenFile) and one imported (ReadSeenFile). In a
// Scrapy-compatible namespace the 64-bit hash is the SHA-1's first 8 bytes;
// use one kind of key per namespace, since the two kinds of a same request
// differ.
//
// # Expiry
//
// With Options.TTL set, a namespace expires as a whole once it has been idle
// (no SeenBatch) for TTL: Scrapy Cluster's dupefilter, whose per-crawl Redis
// set is given EXPIRE DUPEFILTER_TIMEOUT on every request. Each SeenBatch
// sets the namespace's expiry to now+TTL; a namespace past its expiry is
// empty to SeenBatch at once, and Expire reclaims its space. TTL 0 keeps
// namespaces forever.
//
// # Backends
//
// OpenSQLite keeps the set in an SQLite file (one WITHOUT ROWID table keyed
// by namespace id, key group and key, so that the keys of one host sit
// together and a batch of a page's follow-ups writes few pages), shared
// safely by several processes; the frontier uses the same tables inside its
// own transactions (SQLite.SeenTx). OpenRedis
// keeps one Redis SET per namespace (key PREFIX+"seen:"+namespace, members
// the 8-byte big-endian hash or the 20-byte SHA-1), updated by a Lua script,
// expired by PEXPIREAT (groups do not matter there); with the URL's
// shards=K, K sets per namespace on K slots, a request's key in its
// host's shard as the frontier has it (see Redis). Open picks one by
// the form of its argument.
//
// There is no Bloom filter in front of the exact store: measured, the
// exact store is not the bottleneck (see the package benchmarks), and a
// filter could only ever answer "maybe seen", which still needs the store.
package dedupe
