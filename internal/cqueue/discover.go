package cqueue

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Discovery of the known files. A request whose "discover" field lists
// "robots" or "sitemaps" (cqueue crawl --discover, cqueue push --discover,
// or the seed record itself) has push queue, the first time it sees the
// request's host in a crawl, the host's /robots.txt (whose Sitemap: lines
// the rules' sitemap rules read) or /sitemap.xml, or both. They go through
// the crawl policy and the frontier's duplicate filter like any request,
// so each is queued once per crawl (and round) whichever process or run
// meets the host first. Follow-ups inherit "discover" (cextract copies it),
// so every new host the crawl reaches gets the same.
//
// A discovered request is the request that led to its host with another
// URL: the same crawl fields, priority, depth, referer and redirects, so
// that cfetch's robots and address rules decide it as they decide that
// request (a public page's link into a loopback host does not make that
// host's robots.txt fetchable). It carries "source":"discover:robots" or
// "discover:sitemaps", and no method, headers or body.

// requestDiscover returns the names a request's discover field lists, or
// an error saying what is wrong with it.
func requestDiscover(req *record.Request) ([]string, error) {
	return policy.Discover(req.Extra[policy.DiscoverField])
}

// setDiscover fills the discover field of a request that has none.
func setDiscover(req *record.Request, names []string) {
	if len(names) == 0 {
		return
	}
	if _, ok := req.Extra[policy.DiscoverField]; ok {
		return
	}
	if req.Extra == nil {
		req.Extra = map[string]json.RawMessage{}
	}
	b, _ := json.Marshal(names)
	req.Extra[policy.DiscoverField] = b
}

// maxDiscoveredHosts bounds the hosts a push process remembers having
// discovered; past it the set starts again (the frontier's duplicate
// filter still queues each file once: this only saves it the lookups).
const maxDiscoveredHosts = 100_000

// discoverer remembers the hosts whose files a push process has queued.
type discoverer struct {
	seen map[string]struct{} // crawlid, NUL, scheme://host[:port]
}

// requests returns the requests that discovery of req's host adds, the
// first time this process sees that host in req's crawl; names are the
// request's discover field, read by requestDiscover.
func (d *discoverer) requests(req *record.Request, names []string) []record.Request {
	if len(names) == 0 {
		return nil
	}
	u, err := url.Parse(req.URL)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return nil
	}
	origin := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
	key := req.CrawlID + "\x00" + origin
	if _, ok := d.seen[key]; ok {
		return nil
	}
	if d.seen == nil || len(d.seen) >= maxDiscoveredHosts {
		d.seen = map[string]struct{}{}
	}
	d.seen[key] = struct{}{}
	out := make([]record.Request, 0, len(names))
	for _, name := range names {
		r := *req
		r.URL = origin + policy.DiscoverPath[name]
		r.Method, r.Headers, r.Body, r.DontFilter, r.Retries, r.Lease = "", nil, "", false, 0, ""
		r.Extra = map[string]json.RawMessage{"source": json.RawMessage(`"discover:` + name + `"`)}
		for _, k := range []string{"round", policy.DiscoverField} {
			if v, ok := req.Extra[k]; ok {
				r.Extra[k] = v
			}
		}
		out = append(out, r)
	}
	return out
}

// discover queues the files discovery of req's host asks for (see above):
// through the crawl policy, then the frontier's duplicate filter, counted
// under "discovered" (queued, or the reason refused), never written to
// --rejects (nobody sent them).
func (p *pusher) discover(req *record.Request, names []string) {
	for _, r := range p.discovery.requests(req, names) {
		if reason, _ := p.policy.Explain(&r, p.now()); reason != "" {
			p.tool.Stats.Count("discovered", reason, 1)
			continue
		}
		e, err := frontier.NewEntry(r, p.mode)
		if err != nil {
			p.tool.Stats.Count("discovered", frontier.ReasonInvalid, 1)
			continue
		}
		e.Fresh = p.freshRounds(e.CrawlID, e.Round)
		// Not a record read: the batch's record count (--batch, the
		// records a failed batch loses) leaves it out.
		p.batch.Entries = append(p.batch.Entries, e)
		p.raws = append(p.raws, nil)
		p.returned = append(p.returned, false)
		p.discovered = append(p.discovered, true)
	}
}
