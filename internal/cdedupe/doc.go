// Package cdedupe is the cdedupe command: it passes a record on only the
// first time its key is seen, in a persistent, exact seen-set (an SQLite
// file or Redis, internal/dedupe) shared by every process that names it.
//
// Requests are keyed by their fingerprint (the frontier's: method,
// canonical URL and body; Scrapy's SHA-1 with --scrapy-fingerprints, so a
// JOBDIR requests.seen can be imported and exported), items by their data,
// and any record by a jq expression with --key, whose value is keyed as
// JSON with numbers as written (1e999 and 1.10 stay so). Keys live in a
// namespace: --namespace, else the record's crawlid, else "default".
// Records of other kinds, and requests with dont_filter, pass through
// untouched; an object with a "url" and no kind is a request.
package cdedupe
