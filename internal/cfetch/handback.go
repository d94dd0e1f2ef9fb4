package cfetch

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/crawlutils/crawlutils/internal/record"
)

// Redirects in the crawl loop. A redirect that cfetch follows by itself is
// invisible to the frontier: the target is fetched, and fetched again when
// a page links to it directly (or was fetched before through its direct
// link). So, as Scrapy's RedirectMiddleware does through its scheduler,
// cfetch hands the next hop of a request that came from a frontier back
// instead of following it: the 3xx (or meta refresh) response carries the
// next request as redirect_request, cextract passes that on as a
// follow-up, and cqueue push queues it through the duplicate filter in the
// same transaction that settles the original request. A target already
// seen is dropped there; a target linked later is dropped as seen.

// redirectPriorityAdjust is added to the priority of a redirect's next hop
// (Scrapy's REDIRECT_PRIORITY_ADJUST): a chain is finished before new
// pages are started.
const redirectPriorityAdjust = 2

// handsBack reports whether j's next hop goes back to the frontier.
func (f *Fetcher) handsBack(j *job) bool {
	switch f.opts.RedirectMode {
	case "handback":
		return true
	case "follow":
		return false
	}
	return j.req.Lease != ""
}

// seedChain starts j's redirect chain with the hops that led to its
// request, so that the final response lists them all and the chain's
// limits (loops, --max-redirects) count them.
func (j *job) seedChain() {
	if len(j.req.Redirects) == 0 {
		return
	}
	j.redirects = slices.Clone(j.req.Redirects)
	j.visited = make([]string, 0, len(j.redirects)+1)
	for _, r := range j.redirects {
		// Read as the hops cfetch follows are (checkURL), so that a hop
		// recorded as HTTP://Shop.Test/a is shop.test/a again.
		if u, fe := checkURL(r.URL); fe == nil {
			j.visited = append(j.visited, chainKey(u))
		}
	}
	if j.url != nil {
		j.visited = append(j.visited, chainKey(j.url))
	}
}

// handBack is the response record of a hop that follow has just prepared
// (j points at the next hop, out is the redirect that led there): the
// redirect itself, with the next request attached.
func (f *Fetcher) handBack(j *job, out *outcome) *response {
	next := j.req
	next.Kind = record.KindRequest
	next.URL = j.url.String()
	next.Method = j.method
	if next.Method == http.MethodGet {
		next.Method = ""
	}
	next.Body = j.body
	next.Headers = keptHeaders(j)
	next.Priority += redirectPriorityAdjust
	next.Retries += j.retries
	next.Redirects = j.redirects
	next.Lease = ""
	line, err := record.Encode(&next)

	out.body = nil // released by follow
	resp := f.record(j, out)
	resp.Redirects = j.redirects[: len(j.redirects)-1 : len(j.redirects)-1]
	if len(resp.Redirects) == 0 {
		resp.Redirects = nil
	}
	if err != nil {
		// Only attrs that are not JSON could fail, and they were read as JSON.
		resp.Error, resp.ErrorDetail = ErrInvalidURL, "cannot write the redirect's next request: "+err.Error()
		return resp
	}
	resp.RedirectRequest = json.RawMessage(line[:len(line)-1])
	return resp
}

// keptHeaders are the request's own headers that follow kept for the next
// hop (it drops the body's headers with the body, and credentials and Host
// when the chain leaves the host).
func keptHeaders(j *job) map[string]string {
	if len(j.req.Headers) == 0 {
		return nil
	}
	kept := make(map[string]string, len(j.req.Headers))
	for name, v := range j.req.Headers {
		if strings.EqualFold(name, "Host") {
			if j.hostHdr == "" {
				continue
			}
		} else if _, ok := j.header[http.CanonicalHeaderKey(name)]; !ok {
			continue
		}
		kept[name] = v
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}
