// Package hostpace is the politeness policy of one host, apart from any
// scheduler: how long to wait between its requests, and when and how long
// it rests when it is in trouble. cfetch's scheduler keeps one delay and
// one Rest per host and asks this package what they become after each
// answer; docs/cfetch.md ("Politeness and scheduling") is the user's
// version of the policy.
//
//   - AutoThrottle is Scrapy's AutoThrottle: the delay follows the
//     latency (Adjust), between Min (or a robots.txt Crawl-delay) and Max,
//     and doubles when a rest begins (Backoff).
//   - Rest decides the rests (Observe): a host rests after any 429, and
//     after three failures in a row that are also half or more of its
//     last 10 answers; one isolated failure delays only its own request
//     (its retry, Grow). A rest lasts the answer's Retry-After (at most
//     RetryAfterMax) or the backoff of the rests in a row when longer
//     (RestPolicy.Backoff × 2ⁿ, ±50% jitter, at most MaxBackoff); a
//     Retry-After that comes during a rest may lengthen it, never shorten
//     it.
//   - Grow and ParseRetryAfter are the backoff and the header they share
//     with a request's own retries.
//
// Nothing here reads a clock or sleeps: every method that depends on the
// time takes it (now), as golang.org/x/time/rate's AllowN does, and the
// jitter is a function the caller passes. So the policy is tested, and a
// scheduler simulated, with times moved by hand.
//
// cthrottle does not use this package: it sees requests before they are
// fetched, never their answers, so it has no latency to follow and no
// failures to count. It honours the rests cfetch decides here through the
// holds cfetch writes into the shared schedule (internal/throttle's
// Store.Hold, cfetch --throttle-db/--throttle-redis). A throttle that did
// see the answers would keep a Rest (and a delay) per key and call
// Observe and Adjust with each, as ExampleRest shows.
package hostpace
