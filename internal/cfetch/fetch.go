package cfetch

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Fetcher makes the exchanges the scheduler starts: one request and its
// response per step (redirects and retries go back through the
// scheduler), with cookies, the HTTP cache, body decoding and charset
// conversion. It is safe for concurrent use; build it with NewFetcher.
type Fetcher struct {
	transport *http.Transport
	proxy     func(*http.Request) (*url.URL, error) // the transport's proxy function
	policy    addressPolicy
	opts      *Options
	retry     retryPolicy
	jars      *cookieJars // nil: --no-cookies
	cache     *httpCache  // nil: no --cache-dir
	agent     string      // robots.txt product token
	// mem is the memory budget of bodies (--max-memory); nil: none.
	mem *budget

	robotsOpts   Options     // opts with robots.txt's size limits
	robotsHeader http.Header // headers of robots.txt requests

	// authDomain is the domain --user is sent to: --auth-domain, or the
	// host of the first request.
	authOnce   sync.Once
	authDomain string

	// now is the clock; tests replace it.
	now func() time.Time

	// wireBytes counts the bytes of all bodies read off the network for
	// requests; robotsBytes those of robots.txt files.
	wireBytes, robotsBytes atomic.Int64
}

// NewFetcher returns a Fetcher with its own http.Transport for opts, which
// must be valid and must not change afterwards.
func NewFetcher(opts *Options) (*Fetcher, error) {
	f := &Fetcher{
		proxy:  proxyFunc(opts),
		policy: newAddressPolicy(opts),
		opts:   opts,
		retry:  newRetryPolicy(opts),
		agent:  opts.robotsAgent(),
		mem:    newBudget(opts.MaxMemory),
		now:    time.Now,
	}
	f.transport = newTransport(opts, f.proxy)
	if opts.Cookies {
		f.jars = newCookieJars(cookieJarsMax)
	}
	if opts.CacheDir != "" {
		c, err := openHTTPCache(opts)
		if err != nil {
			return nil, err
		}
		f.cache = c
	}
	f.robotsOpts = *opts
	f.robotsOpts.MaxSize, f.robotsOpts.WarnSize, f.robotsOpts.keepHead = robotsMaxSize, 0, true
	f.robotsHeader, _, _ = buildHeaders(opts, nil, "")
	f.robotsHeader.Set("Accept", "text/plain, */*;q=0.5")
	f.authDomain = strings.ToLower(opts.AuthDomain)
	return f, nil
}

// WireBytes returns the bytes downloaded so far for requests (bodies as
// sent, before decompression; robots.txt files not included).
func (f *Fetcher) WireBytes() int64 { return f.wireBytes.Load() }

// Close releases idle connections.
func (f *Fetcher) Close() { f.transport.CloseIdleConnections() }

// outcome is the result of one exchange: a response or an error.
type outcome struct {
	url       string
	status    int
	header    http.Header
	body      *body // its memory is held in the budget until release
	latency   time.Duration
	err       *FetchError
	connected bool // the server was reached (a connection was made)
	cached    bool // answered from the HTTP cache, without the network
	unchanged bool // confirmed by a 304, or fresh in the rfc9111 cache
}

func (o *outcome) release() {
	if o.body != nil {
		o.body.release()
	}
}

// withoutBody is o without its body, to keep while a job waits.
func (o *outcome) withoutBody() *outcome {
	c := *o
	c.body = nil
	return &c
}

// prepare makes a job of a checked request: method, headers, proxy.
func (f *Fetcher) prepare(j *job, u *url.URL) *FetchError {
	j.setURL(u)
	j.seedChain()
	j.method = strings.ToUpper(j.req.Method)
	if j.method == "" {
		j.method = http.MethodGet
	}
	header, host, err := requestHeaders(f.opts, &j.req, u)
	if err != nil {
		return fetchErr(ErrInvalidURL, "%v", err)
	}
	j.header, j.hostHdr, j.body = header, host, j.req.Body
	if raw, ok := j.req.Extra["proxy"]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return fetchErr(ErrInvalidURL, "field \"proxy\": want a URL string, got %s", raw)
		}
		if s != "" {
			pu, err := url.Parse(s)
			if err == nil {
				err = checkProxyURL(pu)
			}
			if err != nil {
				return fetchErr(ErrInvalidURL, "field \"proxy\": %v", err)
			}
			j.proxy = pu
		}
	}
	f.authOnce.Do(func() {
		if f.authDomain == "" {
			f.authDomain = strings.ToLower(u.Hostname())
		}
	})
	return nil
}

// step makes one exchange of j and says what comes next.
func (f *Fetcher) step(ctx context.Context, j *job) *finish {
	if j.robotsFor != "" {
		return f.robotsStep(ctx, j)
	}
	out := f.exchange(ctx, j, f.opts, f.opts.FollowRedirects)
	now := f.now()
	fin := &finish{j: j, key: j.key, status: out.status, latency: out.latency, cached: out.cached}
	if out.body != nil {
		fin.size = int64(len(out.body.data))
	}
	fin.retryAfter, fin.hasRetryAfter = out.retryAfter(now)
	fin.failed = f.retry.retryable(&out)
	if f.follow(j, &out) {
		if f.handsBack(j) {
			fin.kind = finDone
			fin.resp = f.handBack(j, &out)
			return fin
		}
		fin.kind = finRedirect
		return fin
	}
	used := j.req.Retries + j.retries
	again, _, _, warn := f.retry.decide(&out, used, now)
	if warn != "" {
		j.warnings = append(j.warnings, warn)
	}
	if again {
		j.last = out.withoutBody()
		out.release()
		fin.kind = finRetry
		return fin
	}
	if used > 0 && used >= f.retry.max && f.retry.retryable(&out) {
		j.warnings = append(j.warnings, fmt.Sprintf("gave up after %d %s: %s", used, plural(used, "retry", "retries"), out.summary()))
	}
	fin.kind = finDone
	fin.resp = f.record(j, &out) // takes the body
	return fin
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// summary says what an outcome was, for a warning.
func (o *outcome) summary() string {
	if o.err != nil {
		return o.err.Code
	}
	return fmt.Sprintf("status %d", o.status)
}

// robotsStep fetches a host's robots.txt, following up to five redirects
// at once, and judges it.
func (f *Fetcher) robotsStep(ctx context.Context, j *job) *finish {
	robotsURL := j.url.String()
	j.internalOK = f.policy.robots(j.url)
	out := f.exchange(ctx, j, &f.robotsOpts, true)
	fin := &finish{kind: finRobots, j: j, key: j.robotsFor, status: out.status, latency: out.latency, cached: out.cached}
	for out.err == nil && isRedirect(out.status) && j.hops < robotsMaxRedirects {
		next, err := resolveLocation(j.url, out.header.Get("Location"))
		if err != nil {
			break
		}
		next, fe := checkURL(next.String())
		if fe != nil {
			break
		}
		ok, fe := f.policy.hop(j.url, next)
		if fe != nil {
			break // as a redirect not followed: no robots.txt, allow all
		}
		j.internalOK = ok
		j.hops++
		j.url = next
		out.release()
		out = f.exchange(ctx, j, &f.robotsOpts, true)
	}
	if out.body != nil {
		fin.size = int64(len(out.body.data))
	}
	fin.failed = f.retry.retryable(&out)
	fin.retryAfter, fin.hasRetryAfter = out.retryAfter(f.now())
	fin.robots = judgeRobots(&out, robotsURL, f.agent, f.now())
	out.release()
	return fin
}

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
	if len(j.req.AllowedDomains) > 0 && !j.req.DontFilter && !fingerprint.OnDomain(strings.ToLower(next.Hostname()), j.req.AllowedDomains) {
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

// exchange sends the job's current hop once and reads the response, or
// takes it from the HTTP cache. A redirect's body is not kept when
// redirects are followed.
func (f *Fetcher) exchange(parent context.Context, j *job, o *Options, follow bool) outcome {
	out := outcome{url: j.url.String()}
	now := f.now()
	var stale *cacheEntry
	if f.cache != nil && f.cache.cacheable(j) {
		entry := f.cache.load(j, now)
		if entry != nil && f.cache.fresh(entry, j, now) {
			out = f.cache.outcome(entry, j)
			out.unchanged = f.cache.policy == "rfc9111"
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
		return out
	}
	defer resp.Body.Close()
	out.connected = true
	out.latency = lt.latency()
	out.status, out.header = resp.StatusCode, resp.Header
	f.storeCookies(j, resp.Header)
	wire := &f.wireBytes
	if j.robotsFor != "" {
		wire = &f.robotsBytes
	}
	if stale != nil && (resp.StatusCode == http.StatusNotModified || resp.StatusCode >= 500 && !stale.mustRevalidate()) {
		// Confirmed by the server, or the server failed and the entry may
		// stand in (RFC 9111 §4.2.4): answer from the cache.
		n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		wire.Add(n)
		if resp.StatusCode == http.StatusNotModified {
			out = f.cache.revalidated(stale, j, resp.Header, now, out)
			f.hold(parent, j, &out)
			return out
		}
		o := f.cache.outcome(stale, j)
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
	if f.cache != nil && out.err == nil && f.cache.cacheable(j) {
		f.cache.store(j, &out, now)
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
func (f *Fetcher) hopHeader(j *job, stale *cacheEntry) http.Header {
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
	case f.opts.AuthUser != "" && domainMatch(j.url.Hostname(), f.authDomain):
		set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(f.opts.AuthUser+":"+f.opts.AuthPass)))
	}
	if stale != nil {
		if v := stale.Header.Get("ETag"); v != "" {
			set("If-None-Match", v)
		}
		if v := stale.Header.Get("Last-Modified"); v != "" {
			set("If-Modified-Since", v)
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

// domainMatch reports whether host is domain or one of its subdomains.
func domainMatch(host, domain string) bool {
	host = strings.ToLower(host)
	return domain != "" && (host == domain || strings.HasSuffix(host, "."+domain))
}

// record is the response record of a finished job. It takes out's body
// (the response releases it once its line is made).
func (f *Fetcher) record(j *job, out *outcome) *response {
	end := f.now()
	start := j.started
	if start.IsZero() {
		start = end
	}
	resp := &record.Response{
		Kind:       record.KindResponse,
		URL:        out.url,
		Request:    json.RawMessage(j.raw),
		Status:     out.status,
		Headers:    flattenHeaders(out.header),
		Redirects:  j.redirects,
		Retries:    j.req.Retries + j.retries,
		LatencyMS:  millis(out.latency),
		DurationMS: millis(end.Sub(start)),
		FetchedAt:  end.UTC().Format(timeLayout),
		Unchanged:  out.unchanged,
	}
	if out.err != nil {
		resp.Error, resp.ErrorDetail = out.err.Code, out.err.Detail
	}
	r := &response{Response: resp}
	if out.body != nil {
		r.body, out.body = out.body, nil
		r.res = r.body.res
		f.fillBody(r, out.header, out.url)
	}
	resp.Warnings = append(resp.Warnings, j.warnings...)
	return r
}

// timeLayout is RFC 3339 in UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// failed is the record of a request that could not be sent at all.
func (f *Fetcher) failed(req *record.Request, u string, raw []byte, fe *FetchError) *record.Response {
	return &record.Response{
		Kind: record.KindResponse, URL: u, Request: json.RawMessage(raw),
		Retries: req.Retries, FetchedAt: f.now().UTC().Format(timeLayout),
		Error: fe.Code, ErrorDetail: fe.Detail,
	}
}

// fillBody sets the body fields of r from its body: UTF-8 text, bytes for
// base64, or a file under --save-dir. Text already in UTF-8 is not
// copied; converted text is held in the budget, and the body it was
// converted from given back.
func (f *Fetcher) fillBody(r *response, header http.Header, u string) {
	b := r.body
	r.Size = int64(len(b.data))
	r.Warnings = append(r.Warnings, b.warnings...)
	if len(b.data) == 0 {
		r.dropBody()
		return
	}
	media, declared, _ := mediaTypeOf(header, b.data)
	if b.encoded || !isTextMedia(media) {
		if f.opts.SaveDir != "" {
			path, err := saveBody(f.opts.SaveDir, b.data, media, u)
			if err == nil {
				r.BodyPath = path
				r.dropBody()
				return
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf("not saved to --save-dir: %v", err))
		}
		r.bin = b.data
		return
	}
	d := decideCharset(b.data, declared, isHTMLMedia(media))
	r.Encoding, r.EncodingSource = d.name, d.source
	r.Warnings = append(r.Warnings, d.warnings...)
	if text, ok := utf8Text(d, b.data); ok {
		r.text = text
		return
	}
	size := int64(decodedSize(d, b.data))
	r.res.growWait(size)
	r.text = decodeText(d, b.data)
	if c := int64(cap(r.text)); c > size {
		r.res.growWait(c - size) // the estimate was short
	} else {
		r.res.shrink(size - c)
	}
	r.body.release()
	r.body = nil
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
