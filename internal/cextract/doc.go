// Package cextract is the cextract command: it reads response records (from
// cfetch) and writes, for each, the items and follow-up requests its rules
// give, then the ack of its lease, passing every other record through
// unchanged. It is Scrapy's spiders, selectors, link extractors, item
// loaders and sitemap/feed spiders, driven by a rules file (package rules,
// docs/rules.md) and/or -f/--links flags.
//
// The pieces, in the order a response meets them:
//
//   - records (record.ParseFields) and decodeFast read a response line in
//     one pass (encoding/json decides whenever the line is not a plain
//     response); a large body is left in the line, and a gzip-compressed
//     one compressed, until a rule needs it whole (body): a sitemap rule
//     reads it as a stream;
//   - a page is parsed at most once per representation, when a rule first
//     needs it: HTML into a selector.Doc (package htmlparse: a fast builder for the
//     well-formed pages most sites serve, x/net/html for the rest, the
//     same tree either way),
//     XML with xmlquery, JSON with numbers kept exact, CSV rows;
//   - an engine (compiled from the rules file: selectors, jq programs and
//     regular expressions compiled once) runs its item rules (itemWriter),
//     link rules (LinkExtractor) and sitemap rules, then applies the
//     request's crawl policy (maxdepth, allowed_domains, …) to the
//     follow-ups.
//
// The selector engine is a package of its own (package selector: Doc,
// ParseDoc, Compile for CSS with Scrapy's pseudo-elements, XPath 1.0 and
// @record fields), as is the HTML tree builder (package htmlparse);
// ItemRule and LinkExtractor are usable from Go on a selector.Doc. None of
// these types is safe for concurrent use unless its comment says so;
// compile one set per goroutine. One record is handled at a time, so
// memory is bounded by the largest response, not the stream.
package cextract
