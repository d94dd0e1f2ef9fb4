// Package cqueue is the cqueue command: the crawl's frontier on the command
// line, over internal/frontier (an SQLite file, or Redis).
//
// Subcommands: push (requests and acks in, applied in batches with
// Frontier.Apply, so a page's follow-ups and its ack commit together),
// pop (leased requests out; --follow keeps feeding until the frontier is
// Done), reclaim, info, stop, expire, stats and dump; and crawl, which runs
// a whole crawl: it checks the rules, pushes the seeds, refuses a rerun
// that differs from what the crawl was started with (Frontier.CrawlMeta),
// runs the loop's five processes connected by pipes (crawl_procs.go), and
// draws one progress line and one account from their stats files
// (crawl_account.go). docs/cqueue.md is the user's reference,
// docs/frontier.md the design of leases, acks and termination.
package cqueue
