package cfetch

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/crawlutils/crawlutils/internal/httpcache"
)

// exchange sends the job's current hop once and reads the response, or
// takes it from the HTTP cache. A redirect's body is not kept when
// redirects are followed.
func (f *Fetcher) exchange(parent context.Context, j *job, o *Options, follow bool) outcome {
	out := outcome{url: j.url.String()}
	now := f.now()
	j.warcID = "" // --warc: this hop's response record, once written (none when the cache answers)
	var stale *httpcache.Entry
	var creq *httpcache.Request
	if f.cache != nil {
		creq = cacheRequest(j)
		if !f.cache.Cacheable(creq) {
			creq = nil
		}
	}
	if creq != nil {
		entry, fresh := f.cache.Lookup(creq, now)
		if fresh {
			out = cachedOutcome(entry, j)
			f.storeCookies(j, out.header)
			f.hold(parent, j, &out)
			return out
		}
		if f.opts.CacheOnly {
			out.err = fetchErr(ErrCacheMiss, "not in the HTTP cache (--cache-only)")
			return out
		}
		stale = entry
	}
	ctx, cancel := context.WithTimeout(parent, f.opts.Timeout)
	defer cancel()
	var lt latencyTrace
	ctx = lt.withTrace(ctx)
	ctx, wc := f.startCapture(ctx) // --warc
	if j.proxy != nil {
		ctx = context.WithValue(ctx, proxyKey{}, j.proxy)
	}
	pol := dialPolicy{internalOK: j.internalOK}
	var reqBody io.Reader
	if j.body != "" {
		reqBody = strings.NewReader(j.body)
	}
	hreq, err := http.NewRequestWithContext(ctx, j.method, out.url, reqBody)
	if err != nil {
		out.err = fetchErr(ErrInvalidURL, "%v", describeErr(err))
		return out
	}
	hreq.Header = f.hopHeader(j, stale)
	if hreq.Header == nil {
		hreq.Header = http.Header{}
	}
	if j.hostHdr != "" {
		hreq.Host = j.hostHdr
	}
	if proxy, err := f.proxy(hreq); err == nil {
		pol.proxy = proxyAddr(proxy)
	}
	// The transport, not an http.Client: see newTransport.
	resp, err := f.transport.RoundTrip(hreq.WithContext(withDialPolicy(ctx, pol)))
	if err != nil {
		out.err = f.timeoutDetail(ctx, classify(err, phaseHeaders))
		out.connected = lt.connected()
		wc.detach()
		return out
	}
	defer resp.Body.Close()
	if wc != nil {
		resp.Body = wc.watch(resp.Body)
		target := out.url
		defer func() { f.archiveExchange(wc, j, target, resp.StatusCode, out.err) }()
	}
	out.connected = true
	out.latency = lt.latency()
	if resp.StatusCode < 100 {
		// No HTTP status (RFC 9110 §15: 100 to 599): net/http reads
		// "000" as 0, which a record cannot tell from no response, and
		// "099" as 99. curl refuses both ("Unsupported response code").
		// 600 to 999 are kept, as curl keeps them; the host rests after
		// one and its robots.txt disallows all, as after a 5xx
		// (Unavailable), as §15 says a client should treat them.
		out.err = fetchErr(ErrProtocol, "invalid status %q: an HTTP status is 100 to 599", fmt.Sprintf("%03d", resp.StatusCode))
		return out
	}
	out.status, out.header = resp.StatusCode, resp.Header
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// net/http hands the connection over as the body: what follows is
		// another protocol (a WebSocket's frames), no page, and it would
		// be read until --timeout. Browsers and curl refuse a 101 they did
		// not ask for.
		out.err = fetchErr(ErrProtocol, "the server switched to another protocol (101 Switching Protocols, Upgrade: %q): cfetch speaks HTTP", resp.Header.Get("Upgrade"))
		return out
	}
	f.storeCookies(j, resp.Header)
	wire := &f.wireBytes
	if j.robotsFor != "" {
		wire = &f.robotsBytes
	}
	if stale != nil && (resp.StatusCode == http.StatusNotModified || resp.StatusCode >= 500 && !stale.MustRevalidate()) {
		// Confirmed by the server, or the server failed and the entry may
		// stand in (RFC 9111 §4.2.4): answer from the cache.
		n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		wire.Add(n)
		if resp.StatusCode == http.StatusNotModified {
			f.cache.Revalidated(stale, resp.Header, now)
			latency := out.latency
			out = cachedOutcome(stale, j)
			out.cached, out.latency, out.unchanged = false, latency, true
			f.hold(parent, j, &out)
			return out
		}
		o := cachedOutcome(stale, j)
		o.cached, o.latency = false, out.latency
		j.warnings = append(j.warnings, fmt.Sprintf("stale cached response used: the server answered %d", resp.StatusCode))
		f.hold(parent, j, &o)
		return o
	}
	if follow && isRedirect(resp.StatusCode) && resp.Header.Get("Location") != "" {
		// Drain a little so the connection can be reused.
		n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		wire.Add(n)
		out.body = &body{}
	} else {
		var res *reservation
		if j.robotsFor == "" {
			res = f.mem.reserve() // robots.txt files are small: not counted
		}
		out.body, out.err = readBody(ctx, resp, o, res)
		if out.body != nil {
			wire.Add(out.body.wire)
		} else if out.err != nil {
			out.err = f.timeoutDetail(ctx, out.err)
		}
	}
	if creq != nil && out.err == nil && out.body != nil {
		f.cache.Store(creq, &httpcache.Response{Status: out.status, Header: out.header, Body: out.body.data, Encoded: out.body.encoded}, now)
	}
	return out
}

// hold holds the memory of a body read from the HTTP cache in the budget
// (it is read before its size is known to be allowed, as a whole; it is
// at most --max-size).
func (f *Fetcher) hold(ctx context.Context, j *job, out *outcome) {
	if out.body == nil || j.robotsFor != "" || f.mem == nil {
		return
	}
	res := f.mem.reserve()
	if res.grow(ctx, int64(len(out.body.data))) == nil {
		out.body.res, out.body.held = res, int64(len(out.body.data))
	}
}

// hopHeader is the header of one exchange: the job's, plus the cookies of
// its crawl, basic auth (the URL's own credentials, as http.Client would
// send them, else --user for the --auth-domain), and the validators of a
// stale cache entry. The job's header is cloned only when something is
// added.
func (f *Fetcher) hopHeader(j *job, stale *httpcache.Entry) http.Header {
	h := j.header
	if j.robotsFor != "" {
		h = f.robotsHeader
	}
	cloned := false
	set := func(name, value string) {
		if !cloned {
			h, cloned = h.Clone(), true
		}
		h.Set(name, value)
	}
	if f.jars != nil && j.robotsFor == "" {
		if c := f.jars.header(j.req.CrawlID, j.url); c != "" {
			if old := h.Get("Cookie"); old != "" {
				c = old + "; " + c
			}
			set("Cookie", c)
		}
	}
	switch {
	case h.Get("Authorization") != "":
	case j.url.User != nil:
		pass, _ := j.url.User.Password()
		set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(j.url.User.Username()+":"+pass)))
	case f.opts.AuthUser != "" && f.authDomain.Match(j.url.Hostname()):
		set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(f.opts.AuthUser+":"+f.opts.AuthPass)))
	}
	if stale != nil {
		etag, modified := stale.Conditional()
		if etag != "" {
			set("If-None-Match", etag)
		}
		if modified != "" {
			set("If-Modified-Since", modified)
		}
	}
	return h
}

// storeCookies keeps the cookies a response sets, in the jar of the
// job's crawl.
func (f *Fetcher) storeCookies(j *job, h http.Header) {
	if f.jars == nil || j.robotsFor != "" || len(h["Set-Cookie"]) == 0 {
		return
	}
	f.jars.store(j.req.CrawlID, j.url, h)
}

// timeoutDetail says which limit a timeout hit.
func (f *Fetcher) timeoutDetail(ctx context.Context, fe *FetchError) *FetchError {
	if fe.Code != ErrTimeout {
		return fe
	}
	if ctx.Err() != nil {
		if fe.Detail == errMemoryWait.Error() {
			return fetchErr(ErrTimeout, "no complete response within %s (--timeout): it waited for memory held by other responses (--max-memory %s)", f.opts.Timeout, formatSize(f.opts.MaxMemory))
		}
		return fetchErr(ErrTimeout, "no complete response within %s (--timeout)", f.opts.Timeout)
	}
	if strings.Contains(fe.Detail, "awaiting response headers") && f.opts.HeaderTimeout > 0 {
		return fetchErr(ErrTimeout, "no response headers within %s of the request (--header-timeout)", f.opts.HeaderTimeout)
	}
	return fetchErr(ErrTimeout, "%s (--connect-timeout %s, --timeout %s)", fe.Detail, f.opts.ConnectTimeout, f.opts.Timeout)
}
