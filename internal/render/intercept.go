package render

import (
	"net/url"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
)

// linkTypes are the requests a page makes that are links in
// Page.Requests: documents (frames), XHR, fetch() and event streams.
var linkTypes = map[network.ResourceType]bool{
	network.ResourceTypeDocument: true, network.ResourceTypeXHR: true,
	network.ResourceTypeFetch: true, network.ResourceTypeEventSource: true,
}

// pausedRequest judges a request the page is about to send: it works out
// (under the lock, in order) whether it is the main document and what led
// to it, then decides in a goroutine of its own (Check may fetch a
// robots.txt), so the listener never blocks.
func (pg *pageState) pausedRequest(ev *fetch.EventRequestPaused) {
	if ev.Request == nil {
		return
	}
	if ev.ResponseStatusCode != 0 || ev.ResponseErrorReason != "" {
		pg.pausedResponse(ev) // a document's response (document.go)
		return
	}
	raw := ev.Request.URL
	if ev.Request.URLFragment != "" {
		raw += ev.Request.URLFragment
	}
	pg.mu.Lock()
	main := false
	var from string
	switch {
	case ev.RedirectedRequestID != "":
		from = pg.paused[ev.RedirectedRequestID]
		main = ev.RedirectedRequestID == pg.mainFetch
	case pg.mainFetch == "" && ev.ResourceType == network.ResourceTypeDocument && ev.FrameID == pg.mainFrame:
		main = true // the navigation itself: cfetch admitted it
	default:
		from = pg.mainURL
		if from == "" {
			from = pg.req.URL
		}
	}
	if main {
		pg.mainFetch = ev.RequestID
	}
	pg.paused[ev.RequestID] = raw
	if !main && ev.RedirectedRequestID == "" && linkTypes[ev.ResourceType] && !pg.seen[raw] {
		pg.seen[raw] = true
		pg.requests = append(pg.requests, raw)
	}
	pg.mu.Unlock()
	go pg.decide(ev, raw, from, main)
}

// decide continues or fails one paused request.
func (pg *pageState) decide(ev *fetch.EventRequestPaused, raw, from string, main bool) {
	u, err := url.Parse(raw)
	var ref *Refusal
	switch {
	case err != nil:
		ref = &Refusal{Code: "invalid_url", Detail: err.Error()}
	case !main && pg.r.blocked[string(ev.ResourceType)] != "":
		ref = &Refusal{Code: "block", Detail: "--render-block " + pg.r.blocked[string(ev.ResourceType)]}
	case pg.req.Check != nil && (u.Scheme == "http" || u.Scheme == "https"):
		var f *url.URL
		if from != "" {
			f, _ = url.Parse(from)
		}
		ref = pg.req.Check(u, f, main)
	}
	if ref != nil {
		ref.URL = raw
		pg.mu.Lock()
		pg.blocked = append(pg.blocked, *ref)
		if main {
			pg.mainRefuse = ref
		}
		pg.mu.Unlock()
		_, _ = cdp.Call(pg.ctx, pg.t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	if !main && err == nil && (u.Scheme == "http" || u.Scheme == "https") && !pg.hold(ev, u) {
		_, _ = cdp.Call(pg.ctx, pg.t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
		return
	}
	params := fetch.ContinueRequestParams{RequestID: ev.RequestID}
	if pg.req.Cookies != nil && err == nil {
		if c := pg.req.Cookies(u); c != "" {
			params.Headers = withCookie(ev.Request.Headers, c)
		}
	}
	_, _ = cdp.Call(pg.ctx, pg.t, fetch.ContinueRequest, params)
}

// withCookie is h with the cookies c added to its Cookie header.
func withCookie(h network.Headers, c string) []*fetch.HeaderEntry {
	var out []*fetch.HeaderEntry
	for name, v := range h {
		s, _ := v.(string)
		if strings.EqualFold(name, "Cookie") {
			c = s + "; " + c
			continue
		}
		out = append(out, &fetch.HeaderEntry{Name: name, Value: s})
	}
	return append(out, &fetch.HeaderEntry{Name: "Cookie", Value: c})
}
