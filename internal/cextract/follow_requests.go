package cextract

import (
	"encoding/json"
	"net/url"

	"github.com/crawlutils/crawlutils/internal/linkfind"
)

// A link rule with requests: true also follows the URLs a page asked for
// when cfetch rendered it: the response's "requests" field (documents,
// XHR, fetch() and EventSource requests, absolute). They go through the
// rule's filters (allow, deny, domains, deny_extensions, the URL length)
// as its links do, so the JSON APIs behind a page are reached the way
// its <a> links are. A response without the field gives none. Each is
// a navigation link whose source is "requests".

// requestLinks appends the URLs of p's "requests" that rule r keeps.
func (r *linkRule) requestLinks(p *page, out []candidate, st *LinkStats) []candidate {
	raw := p.recordField("requests")
	if len(raw) == 0 {
		return out
	}
	var urls []string
	if err := json.Unmarshal(raw, &urls); err != nil {
		st.Invalid++ // not a list of strings: nothing of it is followed
		return out
	}
	seen := newSeenLinks(r.ex.KeepDuplicates)
	base, _ := url.Parse(p.url)
	add := func(s string, u *url.URL, _ *linkfind.Link) {
		out = append(out, candidate{url: s, u: u, rule: r, denyExt: r.denyExt, ownExt: r.ownExt, kind: linkfind.Navigation, source: sourceRequests})
	}
	for _, s := range urls {
		r.ex.keep(base, s, nil, seen, st, add)
	}
	return out
}
