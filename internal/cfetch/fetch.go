package cfetch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/httpcache"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/robots"
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
	jars      *cookieJars      // nil: --no-cookies
	cache     *httpcache.Cache // nil: no --cache-dir
	agent     string           // robots.txt product token
	// mem is the memory budget of bodies (--max-memory); nil: none.
	mem *budget

	robotsOpts   Options     // opts with robots.txt's size limits
	robotsHeader http.Header // headers of robots.txt requests

	// authDomain is the domain --user is sent to (and its subdomains):
	// --auth-domain, or the host of the first request.
	authOnce   sync.Once
	authDomain policy.Domains

	// archive is --warc (warc_write.go); nil: none.
	archive *archive

	// render is the browser of rendered requests (render.go).
	render renderer

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
		mem:    newBudget(bodyBudget(opts)),
		now:    time.Now,
	}
	f.transport = newTransport(opts, f.proxy)
	if opts.Cookies {
		f.jars = newCookieJars(cookieJarsMax)
	}
	if opts.CacheDir != "" {
		c, err := httpcache.Open(httpcache.Options{
			Dir: opts.CacheDir, Policy: opts.CachePolicy,
			Expire: opts.CacheExpire, IgnoreCodes: opts.CacheIgnoreCodes, Fresh: opts.CacheFresh,
		})
		if err != nil {
			return nil, fmt.Errorf("--cache-dir: %v", err)
		}
		f.cache = c
	}
	if err := f.openArchive(); err != nil {
		return nil, err
	}
	f.render.robots = &renderRobots{}
	f.robotsOpts = *opts
	f.robotsOpts.MaxSize, f.robotsOpts.WarnSize, f.robotsOpts.keepHead = robots.MaxSize, 0, true
	f.robotsHeader, _, _ = buildHeaders(opts, nil, "")
	f.robotsHeader.Set("Accept", "text/plain, */*;q=0.5")
	if opts.AuthDomain != "" {
		f.authDomain, _ = policy.NewDomains([]string{opts.AuthDomain})
	}
	return f, nil
}

// WireBytes returns the bytes downloaded so far for requests (bodies as
// sent, before decompression; robots.txt files not included).
func (f *Fetcher) WireBytes() int64 { return f.wireBytes.Load() }

// Close releases idle connections and ends the browser, if one runs.
func (f *Fetcher) Close() {
	f.closeRenderer()
	f.transport.CloseIdleConnections()
}

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
	unchanged bool // confirmed by a 304
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
		if f.opts.AuthDomain == "" {
			f.authDomain, _ = policy.NewDomains([]string{u.Hostname()})
		}
	})
	return nil
}

// step makes one exchange of j and says what comes next.
func (f *Fetcher) step(ctx context.Context, j *job) *finish {
	if j.robotsFor != "" {
		return f.robotsStep(ctx, j)
	}
	if f.wantsRender(j) {
		return f.renderStep(ctx, j)
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
	for out.err == nil && isRedirect(out.status) && j.hops < robots.MaxRedirects {
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

// timeLayout is RFC 3339 in UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"
