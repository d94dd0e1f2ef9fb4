package render

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
)

// A main document that is not a page (Request.IsPage: a PDF, JSON, plain
// text, an image, a download) is not rendered: the browser would show
// its viewer around it, or wait for a download that never becomes a
// page. Each document's response is paused before the browser reads it
// (the Fetch domain's response stage); the main document's, when it is
// not a page, is read there (Fetch.getResponseBody) and its load
// stopped, so that the one request the browser made gives the document
// as the server sent it.

// pausedResponse judges a document's response: every one but the main
// document's when it is not a page goes on.
func (pg *pageState) pausedResponse(ev *fetch.EventRequestPaused) {
	h := entriesHeader(ev.ResponseHeaders)
	status := int(ev.ResponseStatusCode)
	pg.mu.Lock()
	main := ev.RequestID == pg.mainFetch && pg.asSent == nil
	pg.mu.Unlock()
	redirect := status >= 300 && status < 400 && h.Get("Location") != ""
	if !main || pg.req.IsPage == nil || ev.ResponseErrorReason != "" || redirect || pg.req.IsPage(h) {
		go func() {
			_, _ = cdp.Call(pg.ctx, pg.t, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}()
		return
	}
	go pg.takeAsSent(ev, status, h)
}

// takeAsSent reads the main document's body from the browser, keeps it
// as the page (asSent), and stops the load: Navigate then returns, and
// renderTab returns the document.
func (pg *pageState) takeAsSent(ev *fetch.EventRequestPaused, status int, h http.Header) {
	raw := ev.Request.URL
	if ev.Request.URLFragment != "" {
		raw += ev.Request.URLFragment
	}
	p := &Page{URL: raw, Status: status, Header: h, AsSent: true}
	if n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64); err == nil && pg.req.MaxBody > 0 && n > pg.req.MaxBody {
		p.BodyOmitted = true
	} else if res, err := cdp.Call(pg.ctx, pg.t, fetch.GetResponseBody, fetch.GetResponseBodyParams{RequestID: ev.RequestID}); err == nil {
		p.Body = res.Body
	} else {
		// The body could not be read: let the browser load it, as before
		// there was a judgement.
		_, _ = cdp.Call(pg.ctx, pg.t, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	if pg.req.SetCookies != nil && len(h.Values("Set-Cookie")) > 0 {
		if u, err := url.Parse(raw); err == nil {
			pg.req.SetCookies(u, h)
		}
	}
	pg.mu.Lock()
	p.Redirects = pg.redirects
	pg.asSent = p
	pg.mu.Unlock()
	_, _ = cdp.Call(pg.ctx, pg.t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
}

// asSentPage is the main document taken as the server sent it, or nil.
func (pg *pageState) asSentPage() *Page {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.asSent == nil {
		return nil
	}
	p := *pg.asSent
	p.Redirects = pg.redirects
	p.Requests, p.Blocked = pg.requestsLocked(), pg.blocked
	return &p
}

// entriesHeader converts the headers of a paused response.
func entriesHeader(es []*fetch.HeaderEntry) http.Header {
	h := http.Header{}
	for _, e := range es {
		if e != nil {
			h.Add(e.Name, e.Value)
		}
	}
	return h
}
