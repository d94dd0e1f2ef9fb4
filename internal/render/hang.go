package render

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
)

// A page whose DOM cannot be taken within captureBound hangs: either its
// tab (a script that never yields), or the whole browser (it answers no
// command). hung tells which by asking the browser itself for its
// version: a hung tab is closed and the page tried once more in a new tab
// of the same browser (errTabHung); a hung browser is ended and the
// page tried once more in a new browser (errHung), as after a crash.

// errHung is the error of a page whose browser stopped answering.
var errHung = errors.New("the browser stopped answering")

// errTabHung is the error of a page whose tab stopped answering while the
// browser still did: its own script never yields (an endless loop).
var errTabHung = errors.New("the page's tab stopped answering (a script of the page never yields)")

// answerBound is how long the browser has to answer a command of its own
// before it is taken for hung.
const answerBound = 5 * time.Second

// hung returns the error of a page of b whose DOM could not be taken in
// time.
func (b *browser) hung(url string) error {
	if b.answers() {
		return fmt.Errorf("%w: %s did not answer within %v", errTabHung, url, captureBound)
	}
	return fmt.Errorf("%w under %s (no answer within %v)", errHung, url, answerBound)
}

// answers reports whether the browser answers a command within
// answerBound.
func (b *browser) answers() bool {
	if b.conn == nil || b.dead() {
		return false
	}
	ctx, cancel := context.WithTimeout(b.ctx, answerBound)
	defer cancel()
	_, err := cdp.Call(ctx, b.conn, cdpbrowser.GetVersion, cdp.Empty{})
	return err == nil
}
