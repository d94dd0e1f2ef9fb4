// Package cfetch is the crawlutils downloader: it reads request records (or
// bare URL lines) and writes exactly one response record per request, failed
// fetches included (with "error" set). Records of other kinds pass through
// unchanged.
//
// The work flows through four stages, each in its own goroutine(s):
//
//	reader (tool.Records) → dispatcher → worker pool (Fetcher) → writer
//
// The reader parses input lines and turns each into a job. The dispatcher
// decides when a job may start; in this version it starts them in input
// order as workers free up (per-host queues and delays slot in here). The
// workers run Fetcher.Fetch — redirects, retries, body decoding and charset
// conversion — and hand the encoded response to the single writer, which
// flushes whenever nothing else is pending.
//
// One http.Client (with one Transport) serves the whole run; its requests
// carry their own timeouts and are not cancelled by an interrupt, so the
// first SIGINT lets in-flight fetches finish and write their records.
package cfetch
