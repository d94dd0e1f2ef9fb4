// Package cqueue is the cqueue command: the crawl's frontier on the command
// line, over internal/frontier (an SQLite file, or Redis).
//
// Subcommands: push (requests and acks in, applied in batches with
// Frontier.Apply, so a page's follow-ups and its ack commit together),
// pop (leased requests out; --follow keeps feeding until the frontier is
// Done), reclaim, info, stop, expire, stats, dump and serve. cqueue crawl,
// which runs a whole crawl loop of these and the other tools, is
// internal/crawl: cmd/cqueue gives it to Command. docs/cqueue.md is the
// user's reference, docs/frontier.md the design of leases, acks and
// termination.
package cqueue
