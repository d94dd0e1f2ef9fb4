// Package policy is the crawl policy every crawlutils command applies the
// same way: the one list of file extensions not followed by default
// (IgnoredExtensions), the one domain matcher (Domains, for
// allowed_domains, a link rule's allow_domains and deny_domains, redirect
// hops and --auth-domain), the one set of crawl rules a request carries
// (Rules: maxdepth, allowed_domains, allow_regex, deny_regex,
// deny_extensions) and the one vocabulary of reasons a follow-up is
// dropped for (Reason…). cextract applies it to the links it finds, cqueue
// push to the requests it queues, cfetch to redirect hops, so a link gets
// the same verdict, for the same reason, wherever it is judged. A request
// for a file of an item (Exempt, cextract --files-dir) is not a link and
// none of the rules holds it back.
//
// Everything here is safe for concurrent use.
package policy
