package render

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"sync"
	"time"
)

// Renderer renders pages in one shared browser, at most
// Options.Concurrency at once. It is safe for concurrent use; build it
// with New and end it with Close.
type Renderer struct {
	opts    Options
	path    string
	blocked map[string]string // DevTools resource type → the --render-block kind

	slots chan struct{} // one per tab that may be open
	idle  chan *tab     // open tabs no page uses

	mu      sync.Mutex
	cur     *browser // nil until the first page, or after a crash
	gen     int      // starts so far
	closed  bool
	restart int // restarts after a crash (or for the memory limit)

	// The memory limit (memory.go): pages in the browsers, the browser
	// being drained (nil when none is), what it held, and the signal
	// that it is done.
	active      int
	draining    *browser
	drainUsed   int64
	drained     *sync.Cond
	memRestarts int
	measured    time.Time // the last measurement
}

// New returns a Renderer for opts (valid), whose browser is found by
// FindBrowser(opts.Browser). No browser starts until the first page.
func New(opts Options) (*Renderer, error) {
	path, err := FindBrowser(opts.Browser)
	if err != nil {
		return nil, err
	}
	r := &Renderer{opts: opts, path: path, blocked: blockedTypes(opts.Block),
		slots: make(chan struct{}, opts.Concurrency), idle: make(chan *tab, opts.Concurrency)}
	r.drained = sync.NewCond(&r.mu)
	return r, nil
}

// Path is the browser executable.
func (r *Renderer) Path() string { return r.path }

// Restarts is how many times the browser was started again after it died
// (or was ended for Options.MaxMemory).
func (r *Renderer) Restarts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restart
}

// PID is the process id of the browser running now, 0 when none is.
func (r *Renderer) PID() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return 0
	}
	return r.cur.pid
}

// DataDir is the profile directory of the browser running now, "" when
// none is. Every process of the browser has it on its command line.
func (r *Renderer) DataDir() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return ""
	}
	return r.cur.dataDir
}

// Close ends the browser. Pages still rendering fail.
func (r *Renderer) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.drained.Broadcast()
	if r.cur != nil {
		r.cur.close()
		r.cur = nil
	}
}

// lostGrace is how long an unexplained error of a page waits to see
// whether the browser's connection drops with it.
const lostGrace = 2 * time.Second

var errClosed = errors.New("the renderer is closed")

// browser returns the running browser, starting one when there is none
// or the one there was died.
func (r *Renderer) browser() (*browser, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errClosed
	}
	if r.cur != nil && !r.cur.dead() {
		return r.cur, nil
	}
	if r.cur != nil {
		r.cur.close()
		r.cur = nil
		r.restart++
	}
	r.gen++
	b, err := startBrowser(r.path, r.opts.HostRules, r.opts.ScreenshotDir != "", r.opts.Stderr, r.gen)
	if err != nil {
		return nil, err
	}
	r.cur = b
	return b, nil
}

// dropped forgets b after a page found it dead (or hung), so that the
// next page starts a new one.
func (r *Renderer) dropped(b *browser) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == b {
		r.cur.close()
		r.cur = nil
		r.restart++
	}
}

// Request is one page to render.
type Request struct {
	URL string
	// Header holds headers sent with every request of the page
	// (User-Agent included); Accept-Encoding, Cookie and Host are left to
	// the browser.
	Header http.Header
	// Check judges each request the page makes, the main document's
	// first request included (main set), before it is sent; from is the
	// URL that led to it: the page's URL, or the hop that redirected to it.
	// A non-nil answer blocks the request and is kept in Page.Blocked.
	// nil Check allows everything Block does not block.
	Check func(u, from *url.URL, main bool) *Refusal
	// Hold, when set, is called for each request of the page Check
	// allowed (the main document's hops excepted) before it is sent, and
	// may wait (bounded by ctx, done when the page ends); release is
	// called when the request has ended (hold.go).
	Hold func(ctx context.Context, u *url.URL) (release func(), err error)
	// Cookies, when set, gives the Cookie header to add to a request to u;
	// SetCookies receives the headers of each response with Set-Cookie.
	Cookies    func(u *url.URL) string
	SetCookies func(u *url.URL, h http.Header)
	// DocumentDone, when set, is called once the main document's response
	// has been read (or its load failed), while the page goes on in the
	// browser (its scripts, its own requests): the page's exchange with
	// the site is over. Called at most once a page (once more if the page
	// is loaded again in a new browser), never after Render has returned.
	DocumentDone func()
	// IsPage, when set, judges the main document from its response's
	// headers (after its redirects): a page to render, or a document that
	// is not one (a PDF, JSON, an image, a download), which the browser
	// does not load: Render returns it as the server sent it
	// (Page.AsSent), from the browser's one request. MaxBody > 0: such a
	// document whose Content-Length is over it comes without its body.
	IsPage  func(h http.Header) bool
	MaxBody int64
}

// Refusal is why a request of a page was not sent.
type Refusal struct {
	Code   string `json:"reason"` // robots, private_address, block
	Detail string `json:"detail,omitempty"`
	URL    string `json:"url"`
}

// Render loads req.URL in a tab and returns the page as it was when
// Options.Wait was met (or at Options.Timeout). ctx bounds the wait for
// a tab; the page itself is bounded by the timeout. A browser that dies
// under the page costs one retry in a new browser; when that fails too,
// the error wraps ErrBrowser. A page the browser could not load at all
// (the server refused, a name did not resolve) returns a *LoadError.
func (r *Renderer) Render(ctx context.Context, req *Request) (*Page, error) {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-r.slots }()
	var last error
	for try := range 2 {
		if !r.pageStarted() {
			return nil, errClosed
		}
		b, err := r.browser()
		if err != nil {
			r.pageEnded(nil)
			return nil, err
		}
		p, err := r.renderIn(b, req)
		r.pageEnded(b)
		if err == nil || !r.crashed(b, err) {
			return p, err
		}
		last = err
		if !tabOnly(err) || b.dead() {
			r.dropped(b)
		}
		_ = try
	}
	return nil, &twiceError{url: req.URL, last: last}
}

// tabOnly reports whether err took down the page's tab only, the browser
// going on: it crashed, or hung on the page's own script.
func tabOnly(err error) bool {
	return errors.Is(err, errTabCrashed) || errors.Is(err, errTabHung)
}

// twiceError is the error of a page that failed twice: it wraps
// ErrBrowser and says what happened the second time, in the tab or in the
// browser.
type twiceError struct {
	url  string
	last error
}

func (e *twiceError) Error() string {
	if tabOnly(e.last) {
		return fmt.Sprintf("the page failed twice under %s, each time in a new tab: %v", e.url, e.last)
	}
	return fmt.Sprintf("%v twice under %s: %v", ErrBrowser, e.url, e.last)
}

func (e *twiceError) Is(target error) bool { return target == ErrBrowser }

func (e *twiceError) Unwrap() error { return e.last }

// crashed reports whether err came from b dying (or hanging past the
// page's bound).
func (r *Renderer) crashed(b *browser, err error) bool {
	var ee *exec.ExitError
	var le *LoadError
	if err != nil && !b.dead() && !errors.As(err, &le) && !tabOnly(err) {
		// An error of the connection can come just before the drop is seen.
		t := time.NewTimer(lostGrace)
		select {
		case <-b.lost:
		case <-t.C:
		}
		t.Stop()
	}
	switch {
	case errors.As(err, &le):
		return false
	case errors.As(err, &ee), b.dead(), tabOnly(err), errors.Is(err, ErrBrowser), errors.Is(err, errHung):
		return true
	}
	return false
}
