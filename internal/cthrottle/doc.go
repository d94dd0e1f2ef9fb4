// Package cthrottle is the cthrottle command: it holds each request until
// its key (the host of its url, or a jq expression) may start, at most
// one start per interval per key plus a burst, and passes it on; records
// of other kinds pass at once. The schedule is internal/throttle's: an
// SQLite file or a Redis server shared by every process naming it, or
// this process alone.
//
// Three goroutines: the reader parses and keys each line; the reserver
// reserves slots in batches (and reads robots.txt delays with --robots);
// the releaser holds each record until its slot and writes it. A record
// waits for its own key only, and the records held are bounded by
// --buffer. See docs/cthrottle.md and docs/throttle.md.
package cthrottle
