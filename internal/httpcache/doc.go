// Package httpcache is an on-disk HTTP cache, Scrapy's HttpCacheMiddleware
// with its filesystem storage: each exchange's response is stored under a
// key of its method, URL and body, and later answered from disk. cfetch
// (--cache-dir) is its user; nothing here sends a request.
//
//	c, err := httpcache.Open(httpcache.Options{Dir: dir, Policy: httpcache.RFC9111})
//	r := &httpcache.Request{Method: "GET", URL: u, Header: h}
//	if c.Cacheable(r) {
//		e, fresh := c.Lookup(r, now)
//		switch {
//		case fresh:  // answer with e.Status, e.Header, e.Body
//		case e != nil: // stale: ask the server with e.Conditional() …
//			// … and on a 304: c.Revalidated(e, resp.Header, now), answer with e
//		}
//		// a response from the network: c.Store(r, &httpcache.Response{…}, now)
//	}
//
// # Policies
//
// Two, as in Scrapy. Dummy stores every response and answers from the
// cache whenever an entry exists, so a crawl can be re-run without
// touching the site. RFC9111 stores what an HTTP private cache may store
// (RFC 9111) and asks the server again for every entry, with its
// validators (If-None-Match from the ETag, If-Modified-Since from the
// Last-Modified): a crawl wants the page as it is now, and the cache
// saves the body of what did not change. With Options.Fresh, an entry the
// server declared fresh (Cache-Control max-age, Expires) answers without
// asking while it is; a lifetime is never guessed (no heuristic from
// Last-Modified, unlike Scrapy's RFC2616Policy). With either policy,
// Options.Expire bounds an entry's age and Options.IgnoreCodes lists
// statuses never stored.
//
// # On disk
//
// DIR/<first two hex digits>/<key>.json holds the metadata (Entry: URL,
// status, headers, when it was stored, the body's size and SHA-1) and
// <key>.body the body, as it was decoded for the caller. Both are written
// atomically (a temporary file renamed), body first, so a reader never
// sees a half-written entry, and several processes may share a directory.
// An entry that cannot be read, or does not check out, is a miss.
//
// # Time and concurrency
//
// Every method that depends on the time takes it (now), so the policy is
// tested with a clock moved by hand. A Cache is safe for concurrent use
// once Count is set.
package httpcache
