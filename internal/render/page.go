package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Page is a rendered page.
type Page struct {
	// URL is the main document's final URL, after its redirects.
	URL string
	// Status and Header are the main document's response, as the browser
	// received it; Redirects its hops before that.
	Status    int
	Header    http.Header
	Redirects []Redirect
	// HTML is the DOM when it was taken, serialized with its doctype.
	HTML string
	// Requests are the URLs of the documents (frames), XHR, fetch() and
	// EventSource requests the page made, blocked ones included, the main
	// document excluded: absolute, each once, in the order made.
	Requests []string
	// Blocked are the requests of the page that were not sent.
	Blocked []Refusal
	// TimedOut: Options.Timeout ended the wait; the DOM is as it was then.
	TimedOut bool
	// Screenshot is the path of the PNG, when Options.ScreenshotDir is set.
	Screenshot string
	// ScreenshotError is why the PNG could not be written under
	// Options.ScreenshotDir ("" when it was): the page is kept without it.
	ScreenshotError string
	// ScriptError is what Options.Script threw, "" when it did not.
	ScriptError string
	// MovedFrom is the main document's URL when the page moved on by
	// itself as it loaded (location.replace, history.replaceState): URL is
	// then where it ended up, and Status and Header are still the main
	// document's.
	MovedFrom string
	// AsSent: the main document was not a page (Request.IsPage), and was
	// not rendered: Body is its body as the browser received it (its
	// content codings undone, so Header's Content-Encoding no longer
	// applies), HTML is empty. BodyOmitted: its Content-Length was over
	// Request.MaxBody, and Body is nil.
	AsSent      bool
	Body        []byte
	BodyOmitted bool
}

// Redirect is one redirect of the main document.
type Redirect struct {
	URL    string
	Status int
}

// LoadError is a page the browser could not load: no response came for
// its main document.
type LoadError struct {
	// Code is a cfetch error code: dns, refused, reset, timeout, tls,
	// network, or the Refusal code of the main document's request.
	Code   string
	Detail string
}

func (e *LoadError) Error() string { return e.Code + ": " + e.Detail }

// captureBound bounds taking the DOM (and the screenshot) once the wait
// is over, timed out or not.
// (A variable, so the tests of a hang need not wait it out.)
var captureBound = 10 * time.Second

// domJS serializes the document with its doctype.
const domJS = `(() => { const d = document.doctype; ` +
	`return (d ? new XMLSerializer().serializeToString(d) + "\n" : "") + ` +
	`(document.documentElement ? document.documentElement.outerHTML : ""); })()`

// errTabCrashed is the error of a page whose tab (renderer process) died.
var errTabCrashed = errors.New("the page's renderer process crashed")

// renderIn renders req in a tab of b.
func (r *Renderer) renderIn(b *browser, req *Request) (*Page, error) {
	tb, err := r.getTab(b)
	if err != nil {
		return nil, err
	}
	p, err := r.renderTab(b, tb, req)
	if err != nil || p.TimedOut {
		tb.close() // it may still be busy with the page
	} else {
		r.putTab(tb)
	}
	return p, err
}

// renderTab renders req in tb.
func (r *Renderer) renderTab(b *browser, tb *tab, req *Request) (*Page, error) {
	tctx, t := tb.ctx, tb.t
	pg := &pageState{r: r, req: req, t: t, ctx: tctx, mainFrame: tb.frame, inflight: map[network.RequestID]bool{},
		urls: map[network.RequestID]string{}, paused: map[fetch.RequestID]string{},
		seen: map[string]bool{}, changed: make(chan struct{}, 1), loaded: make(chan struct{}),
		crashed: make(chan struct{}), holds: map[network.RequestID]func(){}}
	pg.pageCtx, pg.pageCancel = context.WithCancel(tctx)
	defer pg.endDocument()
	defer pg.endHolds()
	// The tab is prepared within captureBound: a browser that does not
	// answer by then hangs (hang.go).
	sctx, cancelSetup := context.WithTimeout(tctx, captureBound)
	defer cancelSetup()
	if err := pg.setup(sctx, req); err != nil {
		if sctx.Err() != nil {
			return nil, b.hung(req.URL)
		}
		return nil, err
	}
	// A URL that differs from the tab's last page only in its fragment
	// (a client-side router's #/route) would be a same-document
	// navigation: no request, no status. Leave the page first.
	base, _, _ := strings.Cut(req.URL, "#")
	if base == tb.last {
		if err := leave(sctx, t); err != nil {
			if sctx.Err() != nil {
				return nil, b.hung(req.URL)
			}
			return nil, err
		}
	}
	tb.last = base
	tb.cur.Store(pg)
	defer tb.cur.Store(nil)

	wctx, cancelWait := context.WithTimeout(tctx, r.opts.Timeout)
	defer cancelWait()
	go func() {
		select {
		case <-pg.crashed:
			cancelWait()
		case <-b.lost:
			cancelWait()
		case <-wctx.Done():
		}
	}()
	res, err := cdp.Call(wctx, t, page.Navigate, page.NavigateParams{URL: req.URL})
	if p := pg.asSentPage(); p != nil {
		return p, nil
	}
	p := &Page{}
	switch {
	case pg.isCrashed():
		return nil, errTabCrashed
	case b.dead():
		return nil, fmt.Errorf("%w while loading %s", ErrBrowser, req.URL)
	case err != nil && wctx.Err() != nil:
		p.TimedOut = true
	case err != nil:
		return nil, err
	case res.ErrorText != "" && pg.status() == 0:
		return nil, pg.loadError(res.ErrorText)
	}
	if !p.TimedOut {
		p.TimedOut = !pg.wait(wctx, r.opts.Wait)
	}
	if pg.isCrashed() {
		return nil, errTabCrashed
	}
	if r.opts.Script != "" && !p.TimedOut {
		p.ScriptError = pg.script(wctx, r.opts.Script)
		p.TimedOut = wctx.Err() != nil && !pg.isCrashed() && !b.dead()
	}
	if b.dead() {
		return nil, fmt.Errorf("%w while rendering %s", ErrBrowser, req.URL)
	}
	cctx, cancelCapture := context.WithTimeout(tctx, captureBound)
	defer cancelCapture()
	var html string
	err = evaluate(cctx, t, domJS, &html)
	if err != nil {
		if pg.isCrashed() {
			return nil, errTabCrashed
		}
		if cctx.Err() != nil {
			return nil, b.hung(req.URL) // hang.go
		}
		return nil, fmt.Errorf("taking the DOM: %w", err)
	}
	pg.mu.Lock()
	if pg.mainStatus == 0 {
		pg.mu.Unlock()
		if p.TimedOut {
			return nil, &LoadError{Code: "timeout", Detail: fmt.Sprintf("no response for the page within --render-timeout %v", r.opts.Timeout)}
		}
		return nil, &LoadError{Code: "network", Detail: "no response for the page"}
	}
	p.URL, p.Status, p.Header, p.Redirects = pg.mainURL, pg.mainStatus, pg.mainHeader, pg.redirects
	p.Requests, p.Blocked = pg.requestsLocked(), pg.blocked
	pg.mu.Unlock()
	p.HTML = html
	// Where the page is now: it may have moved on as it loaded
	// (location.replace, a router's history.replaceState), and its
	// relative links are the DOM's, resolved against where it is.
	var href string
	if err := evaluate(cctx, t, "location.href", &href); err == nil {
		if moved := movedTo(p.URL, href); moved != "" {
			p.MovedFrom, p.URL = p.URL, moved
		}
	}
	if dir := r.opts.ScreenshotDir; dir != "" {
		res, err := cdp.Call(cctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
		if err != nil {
			return nil, fmt.Errorf("--render-screenshot: %w", err)
		}
		if path, err := writeScreenshot(dir, req.URL, res.Data); err != nil {
			p.ScreenshotError = err.Error()
		} else {
			p.Screenshot = path
		}
	}
	return p, nil
}

// setup prepares the tab for the page: no cookies left from the last
// page, the page's headers.
func (pg *pageState) setup(ctx context.Context, req *Request) error {
	t := pg.t
	// The tab's browser context is reused: the last page's cookies go
	// (the crawl's jar gives the page its own).
	if _, err := cdp.Call(ctx, t, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		return err
	}
	ua := ""
	extra := network.Headers{}
	for name, vs := range req.Header {
		switch http.CanonicalHeaderKey(name) {
		case "User-Agent":
			ua = vs[0]
		case "Accept-Encoding", "Cookie", "Host", "Content-Length", "Connection":
		default:
			extra[name] = strings.Join(vs, ", ")
		}
	}
	if ua != "" {
		if _, err := cdp.Call(ctx, t, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua}); err != nil {
			return err
		}
	}
	_, err := cdp.Call(ctx, t, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: extra})
	return err
}

// writeScreenshot writes the PNG of u under dir, named by a hash of u.
func writeScreenshot(dir, u string, png []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, ScreenshotName(u))
	return path, os.WriteFile(path, png, 0o644)
}

// ScreenshotName is the file name of u's screenshot under the directory.
func ScreenshotName(u string) string {
	sum := sha256.Sum256([]byte(u))
	return hex.EncodeToString(sum[:8]) + ".png"
}

// pageState is what the events of one tab told so far.
type pageState struct {
	r         *Renderer
	req       *Request
	t         *chromedp.Target
	ctx       context.Context // the tab's
	mainFrame cdp.FrameID

	mu         sync.Mutex
	mainReq    network.RequestID // the main document's network request
	mainFetch  fetch.RequestID   // its paused hop, for redirects
	mainURL    string
	mainStatus int
	mainHeader http.Header
	mainRefuse *Refusal
	asSent     *Page // the main document, when it is not a page (document.go)
	redirects  []Redirect
	inflight   map[network.RequestID]bool
	urls       map[network.RequestID]string // network request → its URL
	paused     map[fetch.RequestID]string   // paused request → its URL
	requests   []string
	seen       map[string]bool
	blocked    []Refusal
	isLoaded   bool
	loaded     chan struct{} // closed at the main document's load event
	changed    chan struct{} // a request started or ended
	crashOnce  sync.Once
	crashed    chan struct{}

	// Request.DocumentDone: called, or no longer to be (docMu held while
	// it runs, so that endDocument waits for it).
	docMu   sync.Mutex
	docOver bool

	// Request.Hold (hold.go): the holds of the requests in flight, by
	// network request; ended once the page is.
	holds      map[network.RequestID]func()
	holdsEnded bool
	pageCtx    context.Context
	pageCancel context.CancelFunc
}

func (pg *pageState) status() int {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	return pg.mainStatus
}

func (pg *pageState) isCrashed() bool {
	select {
	case <-pg.crashed:
		return true
	default:
		return false
	}
}

// event is the tab's listener: it must not block.
func (pg *pageState) event(ev any) {
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		pg.pausedRequest(ev)
	case *network.EventRequestWillBeSent:
		pg.mu.Lock()
		if ev.Type == network.ResourceTypeDocument && ev.FrameID == pg.mainFrame &&
			string(ev.RequestID) == string(ev.LoaderID) && (pg.mainReq == "" || pg.mainReq == ev.RequestID) {
			pg.mainReq = ev.RequestID
			if rr := ev.RedirectResponse; rr != nil {
				pg.redirects = append(pg.redirects, Redirect{URL: rr.URL, Status: int(rr.Status)})
			}
		}
		pg.inflight[ev.RequestID] = true
		if ev.Request != nil {
			pg.urls[ev.RequestID] = ev.Request.URL
		}
		pg.mu.Unlock()
		pg.notify()
	case *network.EventResponseReceived:
		pg.mu.Lock()
		if ev.RequestID == pg.mainReq && ev.Response != nil {
			pg.mainURL, pg.mainStatus = ev.Response.URL, int(ev.Response.Status)
			pg.mainHeader = httpHeader(ev.Response.Headers)
		}
		pg.mu.Unlock()
	case *network.EventResponseReceivedExtraInfo:
		if pg.req.SetCookies == nil {
			return
		}
		h := httpHeader(ev.Headers)
		if len(h.Values("Set-Cookie")) == 0 {
			return
		}
		pg.mu.Lock()
		raw := pg.urls[ev.RequestID]
		pg.mu.Unlock()
		if u, err := url.Parse(raw); err == nil && raw != "" {
			pg.req.SetCookies(u, h)
		}
	case *network.EventLoadingFinished:
		pg.done(ev.RequestID)
	case *network.EventLoadingFailed:
		pg.done(ev.RequestID)
	case *page.EventLoadEventFired:
		pg.mu.Lock()
		if !pg.isLoaded && pg.mainReq != "" {
			pg.isLoaded = true
			close(pg.loaded)
		}
		pg.mu.Unlock()
	case *inspector.EventTargetCrashed:
		pg.crashOnce.Do(func() { close(pg.crashed) })
	}
}

func (pg *pageState) done(id network.RequestID) {
	pg.mu.Lock()
	delete(pg.inflight, id)
	main := id == pg.mainReq
	pg.mu.Unlock()
	pg.unhold(id)
	if main {
		pg.documentDone()
	}
	pg.notify()
}

// documentDone calls Request.DocumentDone, once, unless the page has
// ended (endDocument).
func (pg *pageState) documentDone() {
	if pg.req.DocumentDone == nil {
		return
	}
	pg.docMu.Lock()
	defer pg.docMu.Unlock()
	if !pg.docOver {
		pg.docOver = true
		pg.req.DocumentDone()
	}
}

// endDocument: the page has ended, and Request.DocumentDone is not to be
// called any more (the caller counts the page's end instead).
func (pg *pageState) endDocument() {
	pg.docMu.Lock()
	pg.docOver = true
	pg.docMu.Unlock()
}

func (pg *pageState) notify() {
	select {
	case pg.changed <- struct{}{}:
	default:
	}
}

// httpHeader converts DevTools headers (one value per name, several
// joined by newlines) to an http.Header.
func httpHeader(h network.Headers) http.Header {
	out := http.Header{}
	for name, v := range h {
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		for line := range strings.SplitSeq(s, "\n") {
			out.Add(name, line)
		}
	}
	return out
}

// loadError makes the error of a navigation that failed with text.
func (pg *pageState) loadError(text string) error {
	pg.mu.Lock()
	ref := pg.mainRefuse
	pg.mu.Unlock()
	if ref != nil {
		return &LoadError{Code: ref.Code, Detail: ref.Detail}
	}
	code := "network"
	for prefix, c := range map[string]string{
		"net::ERR_NAME_NOT_RESOLVED": "dns", "net::ERR_NAME_RESOLUTION_FAILED": "dns",
		"net::ERR_CONNECTION_REFUSED": "refused", "net::ERR_CONNECTION_RESET": "reset",
		"net::ERR_CONNECTION_CLOSED": "reset", "net::ERR_EMPTY_RESPONSE": "reset",
		"net::ERR_TIMED_OUT": "timeout", "net::ERR_CONNECTION_TIMED_OUT": "timeout",
		"net::ERR_CERT_": "tls", "net::ERR_SSL_": "tls",
		"net::ERR_TOO_MANY_REDIRECTS": "too_many_redirects",
	} {
		if strings.HasPrefix(text, prefix) {
			code = c
		}
	}
	return &LoadError{Code: code, Detail: "the browser could not load the page: " + text}
}

// requestsLocked is Page.Requests.
func (pg *pageState) requestsLocked() []string {
	var out []string
	for _, u := range pg.requests {
		if u != pg.mainURL {
			out = append(out, u)
		}
	}
	return out
}

// wait waits for w, within ctx; it reports false when ctx ended first.
func (pg *pageState) wait(ctx context.Context, w Wait) bool {
	select {
	case <-pg.loaded:
	case <-ctx.Done():
		return false
	}
	switch w.Kind {
	case WaitIdle:
		return pg.waitIdle(ctx)
	case WaitSelector:
		sel, _ := json.Marshal(w.Selector)
		var found bool
		return evaluate(ctx, pg.t, fmt.Sprintf(waitSelectorJS, sel), &found) == nil && found
	case WaitTime:
		t := time.NewTimer(w.Duration)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// waitIdle waits until no request of the page has been in flight for
// IdleTime.
func (pg *pageState) waitIdle(ctx context.Context) bool {
	quiet := time.NewTimer(IdleTime)
	defer quiet.Stop()
	for {
		pg.mu.Lock()
		busy := len(pg.inflight) > 0
		pg.mu.Unlock()
		if busy {
			quiet.Stop()
		} else {
			quiet.Reset(IdleTime)
		}
		select {
		case <-pg.changed:
		case <-quiet.C:
			pg.mu.Lock()
			idle := len(pg.inflight) == 0
			pg.mu.Unlock()
			if idle {
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}

// waitSelectorJS is a promise resolved (true) once the document has an
// element matching the selector (%s, a JSON string): at once, or at the
// first change of the DOM that brings one.
const waitSelectorJS = `new Promise(resolve => {
  const sel = %s, found = () => document.querySelector(sel) !== null;
  if (found()) { resolve(true); return; }
  const o = new MutationObserver(() => { if (found()) { o.disconnect(); resolve(true); } });
  o.observe(document, {childList: true, subtree: true, attributes: true, characterData: true});
})`

// evaluate runs expr in t's page, awaiting the promise it returns, and
// decodes its value (JSON) into v: a script error is an error.
func evaluate(ctx context.Context, t *chromedp.Target, expr string, v any) error {
	await, byValue := true, true
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, AwaitPromise: &await, ReturnByValue: &byValue})
	switch {
	case err != nil:
		return err
	case res.ExceptionDetails != nil:
		return fmt.Errorf("script error: %s", exceptionText(res.ExceptionDetails))
	case res.Result == nil:
		return errors.New("no value")
	}
	return json.Unmarshal([]byte(res.Result.Value), v)
}

// script runs src in the page, awaiting the promise it returns, and
// returns what it threw.
func (pg *pageState) script(ctx context.Context, src string) string {
	await := true
	res, err := cdp.Call(ctx, pg.t, runtime.Evaluate, runtime.EvaluateParams{Expression: src, AwaitPromise: &await})
	switch {
	case err != nil:
		return err.Error()
	case res.ExceptionDetails != nil:
		return exceptionText(res.ExceptionDetails)
	}
	return ""
}

// exceptionText is what a script threw: the exception's description, or
// the details' text.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

// leave navigates the tab to about:blank and returns once that page has
// loaded: Page.navigate answers before, and the blank page's load,
// reported after the next page's navigation began, was taken for the next
// page's (whose DOM was then taken empty; seen with the headless shell
// on a busy machine).
func leave(ctx context.Context, t *chromedp.Target) error {
	if _, err := cdp.Call(ctx, t, page.Navigate, page.NavigateParams{URL: "about:blank"}); err != nil {
		return err
	}
	for {
		var blank bool
		if err := evaluate(ctx, t, `location.href === "about:blank" && document.readyState === "complete"`, &blank); err != nil {
			return err
		}
		if blank {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// movedTo is where a page whose main document came from main is now
// (href, its location), or "" when it is there still: the same URL but for
// the fragment, or a location that is no http(s) URL (about:blank).
func movedTo(main, href string) string {
	u, err := url.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	base, _, _ := strings.Cut(main, "#")
	if u.String() == base {
		return ""
	}
	return u.String()
}
