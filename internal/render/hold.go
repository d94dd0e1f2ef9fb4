package render

import (
	"net/url"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
)

// Request.Hold lets the caller bound the requests of pages in flight at
// once (cfetch: --per-host per host). A request the page makes, once
// allowed, takes a hold before it is sent, and gives it back when its
// response has been read or it failed (the network's loadingFinished or
// loadingFailed), when it is redirected (the next hop takes a hold of
// its own), or at the latest when the page ends.

// hold takes the hold of a paused request to u, first giving back the
// hold of the hop it was redirected from. It reports false when the page
// ended before the hold was given: the request is not to be sent.
func (pg *pageState) hold(ev *fetch.EventRequestPaused, u *url.URL) bool {
	if pg.req.Hold == nil {
		return true
	}
	pg.unhold(ev.NetworkID)
	release, err := pg.req.Hold(pg.pageCtx, u)
	if err != nil {
		return false
	}
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.holdsEnded || ev.NetworkID == "" {
		// The page is over, or the request cannot be followed to its
		// end: it holds nothing past this point.
		release()
		return !pg.holdsEnded
	}
	pg.holds[ev.NetworkID] = release
	return true
}

// unhold gives back the hold of network request id, if it has one.
func (pg *pageState) unhold(id network.RequestID) {
	pg.mu.Lock()
	release := pg.holds[id]
	delete(pg.holds, id)
	pg.mu.Unlock()
	if release != nil {
		release()
	}
}

// endHolds gives back every hold of the page, which has ended, and makes
// the requests still waiting for one give up.
func (pg *pageState) endHolds() {
	pg.pageCancel()
	pg.mu.Lock()
	pg.holdsEnded = true
	holds := pg.holds
	pg.holds = nil
	pg.mu.Unlock()
	for _, release := range holds {
		release()
	}
}
