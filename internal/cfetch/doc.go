// Package cfetch is the crawlutils downloader: it reads request records (or
// bare URL lines) and writes exactly one response record per request, failed
// fetches included (with "error" set). Records of other kinds pass through
// unchanged. docs/cfetch.md is the user's reference.
//
// The work flows like this:
//
//	reader → loop → scheduler ⇄ workers (Fetcher.step) → writer
//	                    └→ emitter ──────────────────────→ writer
//
// The reader parses input lines into jobs. The loop admits them into the
// scheduler while the read-ahead allows, and wakes the scheduler when a
// host's delay or pause ends. The scheduler (a state machine with the time
// passed in, guarded by one mutex) keeps a queue per host:port and decides
// what starts when: global and per-host concurrency, per-host delays
// (fixed, randomized, AutoThrottle, robots.txt Crawl-delay), the rest of a
// host in trouble (a 429, failures in a row) and Retry-After, each retry's
// own backoff (the policy of those three is internal/hostpace's), and
// robots.txt, fetched through the host's own queue before its first
// request. Idle hosts are forgotten.
//
// A worker runs one exchange of a job (Fetcher.step: the HTTP cache of
// internal/httpcache, the request with cookies and auth, the response read
// through the size limits, decoded and converted to UTF-8) and reports the
// outcome to the scheduler: done (the worker writes the record), retry
// after a wait, or a redirect hop, queued again under its host — every
// hop goes through politeness and robots.txt. Then the worker takes its
// next job. Records that need no fetch (other kinds, robots.txt denials)
// go through the emitter, in order, and so do the acks of leased lines the
// reader could not read. The single writer flushes whenever nothing else
// is pending.
//
// The bodies in flight share a memory budget (budget.go, --max-memory): a
// response's reservation grows as its body is read, holds the text it is
// converted to and then its record's line (response.go, made in one buffer
// straight from the body's bytes), and is given back by the writer once the
// line is written.
//
// One http.Transport (with a dialer that knows --resolve, caches DNS
// answers and keeps crawled content out of internal addresses, private.go)
// serves the whole run; its requests carry their own
// timeouts and are not cancelled by an interrupt, so the first SIGINT lets
// in-flight fetches finish and write their records.
package cfetch
