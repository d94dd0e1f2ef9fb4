package render

import (
	"context"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/log"
	"sync/atomic"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// tab is a browser tab, in a browser context of its own, kept open and
// reused page after page (a new tab costs a window and a renderer
// process: about a second on a busy machine). Its listener hands each
// event to the page it is rendering now.
type tab struct {
	b      *browser
	ctx    context.Context // the tab's chromedp context
	cancel context.CancelFunc
	t      *chromedp.Target
	frame  cdp.FrameID // the main frame
	last   string      // the URL of the last page, without its fragment
	cur    atomic.Pointer[pageState]
}

// newTab opens a tab in b with the events and the interception on.
func newTab(b *browser) (*tab, error) {
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	tb := &tab{b: b, ctx: ctx, cancel: cancel}
	err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			// alert(), confirm(), prompt() and onbeforeunload stop the
			// page's script until answered: dismissed at once, as
			// Playwright does (confirm gives false, prompt null).
			go func() {
				_, _ = cdp.Call(ctx, tb.t, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}()
			return
		}
		if pg := tb.cur.Load(); pg != nil {
			pg.event(ev)
		} else if p, ok := ev.(*fetch.EventRequestPaused); ok {
			// Between pages: whatever the last page still asks for waits
			// for nothing.
			go func() {
				_, _ = cdp.Call(ctx, tb.t, fetch.FailRequest, fetch.FailRequestParams{RequestID: p.RequestID, ErrorReason: network.ErrorReasonAborted})
			}()
		}
	})
	if err != nil {
		cancel()
		return nil, err
	}
	tb.t = chromedp.FromContext(ctx).Target
	tb.frame = cdp.FrameID(tb.t.TargetID)
	for _, call := range []func() error{
		func() error { _, err := cdp.Call(ctx, tb.t, network.Enable, network.EnableParams{}); return err },
		func() error { _, err := cdp.Call(ctx, tb.t, page.Enable, page.EnableParams{}); return err },
		func() error {
			_, err := cdp.Call(ctx, tb.t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
				{URLPattern: "*"},
				// A document's response too, before the browser reads it:
				// the main document may not be a page (document.go).
				{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageResponse},
			}})
			return err
		},
		func() error { _, err := cdp.Call(ctx, tb.t, dom.Disable, cdp.Empty{}); return err },
		func() error { _, err := cdp.Call(ctx, tb.t, css.Disable, cdp.Empty{}); return err },
		func() error { _, err := cdp.Call(ctx, tb.t, log.Disable, cdp.Empty{}); return err },
	} {
		if err := call(); err != nil {
			cancel()
			return nil, err
		}
	}
	return tb, nil
}

// close closes the tab and its browser context.
func (tb *tab) close() { tb.cancel() }

// getTab returns an idle tab of the running browser b, or a new one.
func (r *Renderer) getTab(b *browser) (*tab, error) {
	for {
		select {
		case tb := <-r.idle:
			if tb.b == b && !b.dead() {
				return tb, nil
			}
			tb.close()
		default:
			return newTab(b)
		}
	}
}

// putTab keeps tb for the next page; there are never more idle tabs than
// pages at once.
func (r *Renderer) putTab(tb *tab) {
	tb.cur.Store(nil)
	select {
	case r.idle <- tb:
	default:
		tb.close()
	}
}
