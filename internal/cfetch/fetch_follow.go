package cfetch

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

// follow handles a redirect (or, with --meta-refresh, a refresh): it
// points j at the next hop and reports true, or, when the chain cannot go
// on, turns out into the error that ends it and reports false.
func (f *Fetcher) follow(j *job, out *outcome) bool {
	if out.err != nil || !f.opts.FollowRedirects {
		return false
	}
	var loc string
	switch {
	case isRedirect(out.status):
		loc = out.header.Get("Location")
	case f.opts.MetaRefresh && out.status == http.StatusOK && out.body != nil:
		loc = f.metaRefresh(out)
	}
	if loc == "" {
		return false
	}
	u := j.url
	if j.visited == nil {
		j.visited = []string{chainKey(u)}
	}
	j.redirects = append(j.redirects, record.Redirect{URL: u.String(), Status: out.status})
	next, err := resolveLocation(u, loc)
	if err != nil {
		out.failRedirect(loc, fetchErr(ErrInvalidURL, "redirect to an invalid URL %q: %s", loc, strings.TrimPrefix(err.Error(), "parse ")))
		return false
	}
	if next.Fragment == "" && u.Fragment != "" {
		next.Fragment = u.Fragment // RFC 9110 §10.2.2
	}
	target := next.String()
	next, fe := checkURL(target)
	if fe != nil {
		fe.Detail = "redirect to " + fe.Detail
		out.failRedirect(target, fe)
		return false
	}
	target = next.String()
	key := chainKey(next)
	if slices.Contains(j.visited, key) {
		out.failRedirect(target, fetchErr(ErrRedirectLoop, "redirect loop: %s was already visited in this chain", target))
		return false
	}
	if len(j.redirects) > f.opts.MaxRedirects {
		out.failRedirect(target, fetchErr(ErrTooManyRedirects, "more than %d redirects (--max-redirects)", f.opts.MaxRedirects))
		return false
	}
	if reason, _ := policy.Compile(&j.req).Offsite(next.Hostname()); reason != "" && !j.req.DontFilter {
		// Scrapy's OffsiteMiddleware (a downloader middleware since 2.11)
		// drops a redirect that leaves the crawl's domains.
		out.failRedirect(target, fetchErr(ErrOffsiteRedirect, "redirect to %s, outside the request's allowed_domains", target))
		return false
	}
	internalOK, fe := f.policy.hop(u, next)
	if fe != nil {
		out.failRedirect(target, fe)
		return false
	}
	j.visited = append(j.visited, key)
	method, keepBody := redirectMethod(out.status, j.method)
	if !isRedirect(out.status) {
		method, keepBody = http.MethodGet, false // a refresh is a plain GET
	}
	changed := false
	header := j.header
	edit := func() {
		if !changed {
			header, changed = header.Clone(), true
		}
	}
	if !keepBody {
		j.body = ""
		for _, h := range bodyHeaders {
			if header.Get(h) != "" {
				edit()
				header.Del(h)
			}
		}
	}
	if ref := header.Get("Referer"); ref != "" {
		// Scrapy's default referrer policy: none from https to http.
		if ru, err := url.Parse(ref); err == nil && refererDowngrade(ru, next) {
			edit()
			header.Del("Referer")
		}
	}
	if next.Hostname() != u.Hostname() {
		for _, h := range sensitiveHeaders {
			if header.Get(h) != "" {
				edit()
				header.Del(h)
			}
		}
		j.hostHdr = ""
	}
	j.header, j.method = header, method
	j.setURL(next)
	j.internalOK = internalOK
	j.last = out.withoutBody()
	out.release()
	return true
}

// failRedirect ends a chain that cannot go on: the record names where it
// was going and has no status (no response came from there).
func (o *outcome) failRedirect(target string, fe *FetchError) {
	o.release()
	o.url, o.err = target, fe
	o.status, o.header, o.latency, o.body = 0, nil, 0, nil
}
