package cextract

import (
	"bytes"
	"encoding/json"

	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

// appendDiscover appends `,"discover":[…]` to b when raw, a request's
// discover field (policy.Discover), is a list of known names: follow-ups
// inherit it, as they inherit the crawl policy, so that every host the
// crawl reaches is discovered. Anything else is left out (cqueue push
// refuses it with its reason); cextract only passes it on.
func appendDiscover(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 || len(raw) > 64 {
		return b
	}
	names, err := policy.Discover(raw)
	if err != nil || len(names) == 0 {
		return b
	}
	v, _ := json.Marshal(names)
	return append(append(b, `,"`+policy.DiscoverField+`":`...), v...)
}

// discoveredMissing reports whether resp says that a file the crawl
// discovered (a request with "source":"discover:…", see policy.Discover)
// does not exist: 404 or 410, what most hosts answer for /sitemap.xml.
// The crawl asked for it on the chance; it is no failure of the site.
func discoveredMissing(resp *record.Response, req *record.Request) bool {
	if req == nil || resp.Status != 404 && resp.Status != 410 {
		return false
	}
	src := req.Extra["source"]
	return bytes.HasPrefix(src, []byte(`"discover:`))
}
