// Package robots reads robots.txt files as RFC 9309 (the Robots Exclusion
// Protocol) says: which group of a file applies to a crawler, and whether
// that group allows a URL.
//
//	r := robots.Parse(body, "crawlutils") // the file's body, the crawler's product token
//	if r.Allowed(u) { … }                 // u: an absolute *url.URL
//	d := r.CrawlDelay()                   // 0 when the group sets none
//
// What a Rules answers:
//
//   - The group is the one whose User-agent names the crawler's product
//     token, compared whole and case-insensitively ("crawlutils/1.0" in a
//     User-agent line names crawlutils; "crawl" does not); groups naming
//     it are merged. With none, the "*" groups apply, merged; with no "*"
//     group either, everything is allowed (RFC 9309 §2.2.1). Consecutive
//     User-agent lines share a group; only an Allow or Disallow line ends
//     the run of User-agent lines, so Sitemap, Crawl-delay and unknown
//     lines never split a group (§2.2.4: other records must not interfere).
//   - Of the rules that match the URL's path and query, the longest wins,
//     its length counted in octets as written, '*' and '$' included
//     ("Disallow: /private/", 9 octets, beats "Allow: /*.css$", 7); an
//     Allow wins a tie; no match allows (§2.2.2). A rule matches from the
//     first octet of the path; '*' matches any run of octets and a final
//     '$' anchors the rule at the end (§2.2.3). An empty Disallow or Allow
//     matches nothing. /robots.txt itself is always allowed.
//   - Rules and URLs are compared percent-normalized: octets outside
//     printable US-ASCII are percent-encoded, escapes are written in upper
//     case, and escaped unreserved characters are decoded (%7E is ~). A
//     '*' or '$' in a URL is compared as %2A or %24, which is how a rule
//     names them literally (§2.2.3).
//   - Lines that cannot be read are skipped, never the whole file, so an
//     HTML page served as robots.txt allows everything. Lenient where RFC
//     9309 leaves room: a rule path without its leading '/' gets one, and
//     Crawl-delay (also spelled Crawldelay) is read (see Rules.CrawlDelay).
//
// Matching costs time linear in the rule and the path for each rule tried
// (a '*' is matched by searching for the literal run after it), never a
// regular expression, so a hostile file cannot make it slow.
//
// Why not github.com/temoto/robotstxt, which cfetch used before: its
// parsed rules are not reachable (Group keeps them unexported; only
// Group.Test matches), and the parse itself is already away from RFC
// 9309, so no canonical rewrite of the input can make its matcher exact:
// it ranks a wildcard rule by the length of the regular expression it
// compiles to, not by the rule's octets; trims trailing '*'; picks a group
// by agent prefix; ends a group at a Crawl-delay line; and rejects the
// whole file for one bad Crawl-delay. The file is therefore read with
// EachLine, our line scanner (shared with cthrottle), and matched here.
// What the library still adds is an independent matcher where its answers
// and RFC 9309's agree, for rules without wildcards: the tests hold ours
// against it (FuzzPrefixRulesAgreeWithTemoto).
package robots
