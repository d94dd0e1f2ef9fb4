package cfetch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/render"
)

// Rendering (--render, or "render": true in a request): the page is
// loaded in headless Chromium (internal/render) instead of cfetch's HTTP
// client, once the scheduler starts it — so its host's politeness and
// robots.txt apply to it as to any request — and its response record has
// the DOM after load as its body. The browser follows the page's
// redirects itself; each hop, and every request the page makes, is judged
// by renderCheck (render_check.go) with the rules cfetch's own requests
// follow.

// ErrRender is the error code of a page the browser could not render:
// the browser could not start, or died under the page twice.
const ErrRender = "render"

// renderer is the Fetcher's browser, started on first use.
type renderer struct {
	once sync.Once
	r    *render.Renderer
	err  error
	// robots holds the robots.txt of the hosts rendered pages make
	// requests to (render_check.go).
	robots *renderRobots
	// pace spaces the requests of rendered pages per host
	// (render_pace.go).
	pace renderPace
	// holds bounds the requests of rendered pages in flight per host by
	// --per-host (render_hold.go).
	holds renderHolds
	// count, when set, counts rendering's events into the stats' "render"
	// group: pages, subrequests (sent), blocked_<reason>.
	count func(event string)
	// logf, when set, writes a line on cfetch's stderr.
	logf func(format string, a ...any)
}

func (r *renderer) counted(event string) {
	if r.count != nil {
		r.count(event)
	}
}

// wantsRender reports whether j is to be rendered.
func (f *Fetcher) wantsRender(j *job) bool {
	if f.opts.Render.All {
		return true
	}
	raw, ok := j.req.Extra["render"]
	if !ok {
		return false
	}
	var b bool
	return json.Unmarshal(raw, &b) == nil && b
}

// browser returns the renderer, starting it the first time.
func (f *Fetcher) browser() (*render.Renderer, error) {
	f.render.once.Do(func() {
		o := f.opts.Render.Options
		if o.Concurrency == 0 && o.Timeout == 0 {
			browser := o.Browser
			o = render.DefaultOptions()
			o.Browser = browser
		}
		o.HostRules = hostRules(f.opts.Resolve)
		o.OnMemoryRestart = func(used, limit int64) {
			f.render.counted("browser_restarts_memory")
			if f.render.logf != nil {
				f.render.logf("the browser held %d MiB, over --render-max-memory %s: restarted it once its pages had ended", used>>20, formatSize(limit))
			}
		}
		f.render.r, f.render.err = render.New(o)
	})
	return f.render.r, f.render.err
}

// closeRenderer ends the browser, if one was started.
func (f *Fetcher) closeRenderer() {
	if f.render.r != nil {
		f.render.r.Close()
	}
}

// renderStep renders j in the browser and says what comes next, as step
// does for an exchange: done, or a retry by the retry policy (a page the
// browser could not load for a network error, a retry status).
func (f *Fetcher) renderStep(ctx context.Context, j *job) *finish {
	fin := &finish{j: j, key: j.key}
	out := &outcome{url: j.url.String()}
	var page *render.Page
	start := f.now()
	r, err := f.browser()
	if err == nil {
		page, err = r.Render(ctx, f.renderRequest(j))
	}
	switch e := err.(type) {
	case nil:
		out.url, out.status, out.header, out.connected = page.URL, page.Status, page.Header, true
		out.latency = f.now().Sub(start)
		if page.AsSent {
			out.body, out.err = f.asSentBody(ctx, page)
		} else if f.opts.MaxSize > 0 && int64(len(page.HTML)) > f.opts.MaxSize {
			out.err = fetchErr(ErrTooLarge, "the rendered DOM is %d bytes, over --max-size %s", len(page.HTML), formatSize(f.opts.MaxSize))
			page.HTML = ""
		}
	case *render.LoadError:
		out.err = &FetchError{Code: e.Code, Detail: e.Detail}
	default:
		out.err = fetchErr(ErrRender, "%v", err)
	}
	fin.status, fin.latency = out.status, out.latency
	fin.failed = f.retry.retryable(out)
	now := f.now()
	fin.retryAfter, fin.hasRetryAfter = out.retryAfter(now)
	used := j.req.Retries + j.retries
	again, _, _, warn := f.retry.decide(out, used, now)
	if warn != "" {
		j.warnings = append(j.warnings, warn)
	}
	if again {
		j.last = out
		fin.kind = finRetry
		return fin
	}
	fin.kind = finDone
	if page != nil {
		for _, rd := range page.Redirects {
			j.redirects = append(j.redirects, record.Redirect{URL: rd.URL, Status: rd.Status})
		}
	}
	resp := f.record(j, out)
	if page != nil {
		f.fillRendered(resp, page)
		fin.size = resp.Size
		f.render.counted("pages")
		for _, b := range page.Blocked {
			f.render.counted("blocked_" + b.Code)
		}
	}
	return fin.withResp(resp)
}

func (fin *finish) withResp(r *response) *finish {
	fin.resp = r
	return fin
}

// renderRequest is what the browser needs to load j: its headers, the
// checks of each request the page makes, and the crawl's cookie jar.
func (f *Fetcher) renderRequest(j *job) *render.Request {
	req := &render.Request{URL: j.url.String(), Header: j.header, Check: f.renderCheck(j), Hold: f.holdSubrequest, DocumentDone: j.documentDone,
		IsPage: isPage, MaxBody: f.opts.MaxSize}
	if f.jars != nil {
		crawl := j.req.CrawlID
		req.Cookies = func(u *url.URL) string { return f.jars.header(crawl, u) }
		req.SetCookies = func(u *url.URL, h http.Header) { f.jars.store(crawl, u, h) }
	}
	return req
}

// asSentBody reads the body of a document that was not a page, as the
// body of a fetched response is read (its charset, --max-size): the
// browser has undone its content codings.
func (f *Fetcher) asSentBody(ctx context.Context, p *render.Page) (*body, *FetchError) {
	h := p.Header.Clone()
	h.Del("Content-Encoding")
	// The length the server declared, if any: --max-size judges it as it
	// does a fetched response's (the body read from the browser is
	// decoded, so its own length is not that).
	resp := &http.Response{StatusCode: p.Status, Header: h, Body: io.NopCloser(bytes.NewReader(p.Body)), ContentLength: -1}
	if n, err := strconv.ParseInt(p.Header.Get("Content-Length"), 10, 64); err == nil && (p.BodyOmitted || p.Header.Get("Content-Encoding") == "") {
		resp.ContentLength = n
	}
	return readBody(ctx, resp, f.opts, f.mem.reserve())
}

// fillRendered puts the rendered page into its record: the DOM as the
// body, and the fields that say what rendering did. A document that was
// not a page (Page.AsSent) has its body already, and "rendered": false.
func (f *Fetcher) fillRendered(r *response, p *render.Page) {
	extra := map[string]json.RawMessage{"rendered": json.RawMessage("true")}
	if p.AsSent {
		extra["rendered"] = json.RawMessage("false")
	}
	if len(p.Requests) > 0 {
		extra["requests"], _ = json.Marshal(p.Requests)
	}
	if len(p.Blocked) > 0 {
		extra["render_blocked"], _ = json.Marshal(p.Blocked)
	}
	if p.TimedOut {
		extra["render_timeout"] = json.RawMessage("true")
		r.Warnings = append(r.Warnings, fmt.Sprintf("--render-timeout %v reached: the DOM is as it was then", f.opts.Render.Timeout))
	}
	if p.Screenshot != "" {
		extra["screenshot_path"], _ = json.Marshal(p.Screenshot)
	}
	if p.ScreenshotError != "" {
		r.Warnings = append(r.Warnings, "not saved to --render-screenshot: "+p.ScreenshotError)
	}
	if p.MovedFrom != "" {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the page moved on by itself as it loaded, from %s: url is where it ended up, status and headers are those of the first document", p.MovedFrom))
	}
	if p.ScriptError != "" {
		r.Warnings = append(r.Warnings, "--render-script threw: "+p.ScriptError)
	}
	if r.Extra == nil {
		r.Extra = map[string]json.RawMessage{}
	}
	for k, v := range extra {
		r.Extra[k] = v
	}
	if p.HTML == "" {
		return
	}
	r.res = f.mem.reserve()
	r.res.growWait(int64(len(p.HTML)))
	r.text = []byte(p.HTML)
	r.Size = int64(len(r.text))
}

// hostRules is --resolve as Chromium's --host-resolver-rules. The browser
// maps a name to one address, whatever the port: the first address of the
// first mapping of each name.
func hostRules(resolve map[string][]string) string {
	var rules []string
	seen := map[string]bool{}
	keys := slices.Sorted(maps.Keys(resolve))
	for _, k := range keys {
		host, _, _ := strings.Cut(k, "\x00") // resolveKey's host
		addrs := resolve[k]
		if seen[host] || len(addrs) == 0 {
			continue
		}
		seen[host] = true
		a := addrs[0]
		if strings.IndexByte(a, ':') >= 0 {
			a = "[" + a + "]"
		}
		rules = append(rules, "MAP "+host+" "+a)
	}
	return strings.Join(rules, ", ")
}
