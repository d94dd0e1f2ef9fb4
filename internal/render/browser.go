package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chromedp/chromedp"
	"github.com/crawlutils/crawlutils/internal/childproc"
)

// browser is one Chromium process and the chromedp context that drives
// it. Its tabs are child contexts of ctx.
type browser struct {
	gen     int             // which start of the Renderer's browser this is
	ctx     context.Context // the browser's chromedp context
	cancel  context.CancelFunc
	lost    <-chan struct{} // closed when the connection to the process drops
	dataDir string          // --user-data-dir, removed by close
	pid     int
	conn    *chromedp.Browser // the connection, for browser-wide commands
}

// startBrowser starts Chromium at path with a fresh profile directory;
// screenshots: pages will be drawn to PNGs (--render-screenshot).
func startBrowser(path, hostRules string, screenshots bool, stderr io.Writer, gen int) (*browser, error) {
	removeStaleProfiles()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", profilePrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	if stderr == nil {
		stderr = io.Discard
	}
	pid := 0
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(dir),
		chromedp.NoSandbox, // Debian's chromium as root (CI, containers) needs it
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("hide-scrollbars", true),
		// No popups: a window a page opens (window.open, a link to
		// target=_blank) is a tab nothing intercepts, whose requests
		// would escape robots.txt and the internal-address rule. The
		// headless shell refuses them all; the full browser's popup
		// blocker, which chromedp turns off, refuses those opened
		// without a click, as every one is here.
		chromedp.Flag("block-new-web-contents", true),
		chromedp.Flag("disable-popup-blocking", false),
		// The network service inside the browser's process, not in one
		// of its own: chromedp's default asks for it by the feature's old
		// name, which Chromium no longer knows. Each request the page
		// makes then crosses one process boundary less: about 8% less
		// CPU a page (docs/cfetch.md, "What it costs").
		chromedp.Flag("enable-features", "NetworkServiceInProcess2"),
		chromedp.WindowSize(1280, 1024),
		chromedp.CombinedOutput(stderr),
		// The browser dies with this process, kill -9 included
		// (childproc.DieWithParent).
		chromedp.ModifyCmdFunc(childproc.DieWithParent),
	)
	if !screenshots {
		// The compositor on each page's main thread, not on a thread of
		// its own: with no screen to draw on, that thread costs CPU for
		// nothing. The demo shop's JavaScript pages took about 30% less
		// CPU each in the headless shell (docs/cfetch.md, "What it
		// costs"). A screenshot needs a frame the compositor's thread
		// draws: Page.captureScreenshot never answers without it.
		opts = append(opts, chromedp.Flag("disable-threaded-compositing", true))
	}
	if hostRules != "" {
		opts = append(opts, chromedp.Flag("host-resolver-rules", hostRules))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	c := chromedp.FromContext(bctx)
	if c.Browser != nil {
		pid = browserPID(c.Browser)
	}
	b := &browser{gen: gen, ctx: bctx, dataDir: dir, pid: pid, lost: c.Browser.LostConnection, conn: c.Browser}
	b.cancel = func() {
		cancelBrowser()
		cancelAlloc()
	}
	return b, nil
}

// browserPID is the process id of b's main process, 0 when unknown.
func browserPID(b *chromedp.Browser) int {
	if p := b.Process(); p != nil {
		return p.Pid
	}
	return 0
}

// dead reports whether the connection to the browser is gone.
func (b *browser) dead() bool {
	select {
	case <-b.lost:
		return true
	default:
		return false
	}
}

// close ends the browser (its process and every child of it) and removes
// its profile.
func (b *browser) close() {
	b.cancel()
	os.RemoveAll(b.dataDir)
}

// ErrBrowser is wrapped by the error of a page the browser failed twice:
// it crashed (or was killed) under the page, then again on the retry.
var ErrBrowser = errors.New("the browser died")

// profilePrefix starts the name of a browser's profile directory, which
// goes on with the id of the process that started it.
const profilePrefix = "crawlutils-chromium-"

// removeStaleProfiles removes the profile directories that a process
// killed with -9 left behind: those of a process that no longer runs,
// which no process of a browser uses.
func removeStaleProfiles() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), profilePrefix+"*-*"))
	for _, dir := range dirs {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(dir), profilePrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + pidText); err == nil || !errors.Is(err, os.ErrNotExist) {
			continue // it runs, or we cannot tell
		}
		if len(ProcessesUsing(dir)) == 0 {
			os.RemoveAll(dir)
		}
	}
}
