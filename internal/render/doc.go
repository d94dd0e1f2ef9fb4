// Package render loads pages in a headless Chromium through the DevTools
// protocol (github.com/chromedp/chromedp) and hands back what the page
// became: the DOM after load, the main document's status, headers and
// redirects as the network events gave them, and the URLs the page asked
// for.
//
// A Renderer owns one browser process, started on first use and reused by
// every page; each page runs in its own tab and browser context (its own
// cookies and cache), at most Options.Concurrency at once. When the
// browser dies (a crash, an out-of-memory kill) or stops answering, the
// pages it took down are tried once more in a new one; a page that hangs
// only its tab is tried once more in a new tab (hang.go). A page that
// fails twice is answered with an error that wraps ErrBrowser. The browser is started with
// PR_SET_PDEATHSIG, so it dies with the process that started it, even on
// kill -9; Close ends it and removes its profile directory.
//
// Every request a page makes is paused (the DevTools Fetch domain) and
// judged before it leaves the browser: the kinds in Options.Block are
// failed, and the caller's Request.Check decides the others (cfetch puts
// its robots.txt and internal-address rules there); a request let go
// takes Request.Hold until it has ended (cfetch bounds them per host).
// When the browser's processes together hold more than Options.MaxMemory
// after a page, the browser is drained and started anew (memory.go). The
// package knows no crawl policy of its own.
package render
