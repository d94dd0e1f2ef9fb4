// Package monitor is cqueue serve: a web service that watches the crawls
// of a frontier, and controls them when allowed — Scrapy's web service and
// telnet console for a crawl loop.
//
// # Model
//
// A Server samples the frontier every Options.Interval (one second by
// default): Counts, Stats, Info, Consumers and the metadata of the crawls
// with work left, all read-only calls of frontier.Frontier, and the
// snapshots of the tools' stats in the same store (Options.Tools, see
// package toolstats and tools.go), from which it takes items/s and HTTP
// errors/s and which /api/v1/tools serves. It keeps the
// latest snapshot and, per crawl and for the whole frontier, a bounded
// history: every sample for Options.History (an hour), then one point a
// minute for Options.CoarseHistory (a day); older points are dropped, and
// at most 200 crawls have a history. Every answer of the API is built from
// that memory, so the store is read once per interval whatever the number
// of clients, the crawl loop gets one more reader and no writer, and
// since it reads the shared store it sees every pipeline of the crawl, on
// every machine sharing the frontier. Dead letters are read with Dump,
// which walks every request: only when asked for, and again only once the
// dead count changed and Options.DeadEvery has passed.
//
// Rates come from the frontier's lifetime counters between two samples:
// pages/s from "acked", errors/s from "requeued" + "abandoned" + "failed"
// (requests that came back undone), dead/s from "dead_lettered" +
// "failed". The counters are the frontier's, not each crawl's: a crawl's
// pages/s and errors/s are the frontier's shared among the crawls in
// proportion to what each had in flight (exact with one crawl running);
// its dead/s and levels are its own.
//
// # Control and security
//
// Actions (stop, expire, pause, resume) need Options.AllowControl and the
// token; see auth.go for every defence. Pause sets the crawl's
// frontier.MetaPaused, which cqueue pop --follow reads once a second.
package monitor
