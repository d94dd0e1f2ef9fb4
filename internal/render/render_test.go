package render

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/integration"
)

// newTestRenderer starts nothing yet: it finds the browser (failing with
// the command that installs it) and closes the renderer when t ends,
// checking that no process of the browser is left.
func newTestRenderer(t *testing.T, opts Options) *Renderer {
	t.Helper()
	integration.Skip(t, "starts Chromium")
	r, err := New(opts)
	if err != nil {
		t.Fatalf("%v\n\tinstall it with: apt-get install -y chromium-headless-shell", err)
	}
	t.Cleanup(func() {
		dir := r.DataDir()
		r.Close()
		if dir != "" {
			waitNoProcess(t, dir)
		}
	})
	return r
}

// waitNoProcess polls until no process has dir on its command line.
func waitNoProcess(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pids := ProcessesUsing(dir)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the browser with %s still run: %v", dir, pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// noRobots refuses /private/ as cfetch's robots.txt check would.
func noRobots(u, _ *url.URL, _ bool) *Refusal {
	if strings.HasPrefix(u.Path, "/private/") {
		return &Refusal{Code: "robots", Detail: "disallowed"}
	}
	return nil
}

func render(t *testing.T, r *Renderer, u string) *Page {
	t.Helper()
	p, err := r.Render(context.Background(), &Request{URL: u, Check: noRobots})
	if err != nil {
		t.Fatalf("Render(%s): %v", u, err)
	}
	return p
}

func TestRenderPages(t *testing.T) {
	s := newSite(t)
	opts := DefaultOptions()
	opts.Timeout = 60 * time.Second // generous: the machine may be busy
	r := newTestRenderer(t, opts)

	t.Run("products from fetch", func(t *testing.T) {
		idle := opts
		idle.Wait = Wait{Kind: WaitIdle}
		ri := newTestRenderer(t, idle)
		p := render(t, ri, s.URL+"/list.html")
		if got := count(p.HTML, `class="product"`); got != 2 {
			t.Errorf("products in the DOM: %d, want 2\n%s", got, p.HTML)
		}
		if !strings.HasPrefix(p.HTML, "<!DOCTYPE html>") {
			t.Errorf("DOM without its doctype: %.60q", p.HTML)
		}
		if p.Status != 200 || p.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("status %d, headers %v", p.Status, p.Header)
		}
		if want := []string{s.URL + "/api/products.json"}; !slices.Equal(p.Requests, want) {
			t.Errorf("requests %q, want %q", p.Requests, want)
		}
	})
	t.Run("link added by script", func(t *testing.T) {
		p := render(t, r, s.URL+"/link.html")
		if !strings.Contains(p.HTML, `<a href="/added.html">added</a>`) {
			t.Errorf("no scripted link in %s", p.HTML)
		}
	})
	t.Run("wait for a selector", func(t *testing.T) {
		o := opts
		o.Wait = Wait{Kind: WaitSelector, Selector: ".late"}
		p := render(t, newTestRenderer(t, o), s.URL+"/late.html")
		if !strings.Contains(p.HTML, `<div class="late">arrived</div>`) || p.TimedOut {
			t.Errorf("timed out %v, DOM %s", p.TimedOut, p.HTML)
		}
	})
	t.Run("robots-disallowed XHR and a frame", func(t *testing.T) {
		o := opts
		o.Wait = Wait{Kind: WaitIdle}
		p := render(t, newTestRenderer(t, o), s.URL+"/xhr.html")
		if n := s.privateHits.Load(); n != 0 {
			t.Errorf("the disallowed XHR reached the server %d times", n)
		}
		want := []string{s.URL + "/private/secret.json", s.URL + "/api/products.json", s.URL + "/frame.html"}
		slices.Sort(want)
		got := slices.Clone(p.Requests)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("requests %q, want %q", p.Requests, want)
		}
		if len(p.Blocked) != 1 || p.Blocked[0].Code != "robots" || p.Blocked[0].URL != s.URL+"/private/secret.json" {
			t.Errorf("blocked %+v", p.Blocked)
		}
	})
	t.Run("images blocked", func(t *testing.T) {
		p := render(t, r, s.URL+"/img.html")
		if n := s.imageHits.Load(); n != 0 {
			t.Errorf("the image was fetched %d times", n)
		}
		if len(p.Blocked) != 1 || p.Blocked[0].Code != "block" {
			t.Errorf("blocked %+v", p.Blocked)
		}
	})
	t.Run("redirect", func(t *testing.T) {
		p := render(t, r, s.URL+"/redirect")
		if p.URL != s.URL+"/list.html" || len(p.Redirects) != 1 || p.Redirects[0] != (Redirect{s.URL + "/redirect", 302}) {
			t.Errorf("url %s, redirects %+v", p.URL, p.Redirects)
		}
	})
	t.Run("404 rendered", func(t *testing.T) {
		p := render(t, r, s.URL+"/notfound.html")
		if p.Status != 404 || !strings.Contains(p.HTML, "<title>built</title>") {
			t.Errorf("status %d, DOM %s", p.Status, p.HTML)
		}
	})
	t.Run("script and screenshot", func(t *testing.T) {
		o := opts
		o.Script = `document.getElementById('more').click(); document.getElementById('more').click();`
		o.ScreenshotDir = t.TempDir()
		p := render(t, newTestRenderer(t, o), s.URL+"/more.html")
		if got := count(p.HTML, `class="item"`); got != 3 {
			t.Errorf("items after two clicks: %d, want 3", got)
		}
		b, err := os.ReadFile(p.Screenshot)
		if err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("screenshot %s: %v", p.Screenshot, err)
		}
		if want := o.ScreenshotDir + "/" + ScreenshotName(s.URL+"/more.html"); p.Screenshot != want {
			t.Errorf("screenshot at %s, want %s", p.Screenshot, want)
		}
	})
	t.Run("timeout takes the DOM so far", func(t *testing.T) {
		o := opts
		o.Timeout = 2 * time.Second // what is observed: the flag, not the clock
		p := render(t, newTestRenderer(t, o), s.URL+"/hang.html")
		if !p.TimedOut || !strings.Contains(p.HTML, `<p id="before">before</p>`) || p.Status != 200 {
			t.Errorf("timed out %v, status %d, DOM %s", p.TimedOut, p.Status, p.HTML)
		}
	})
	t.Run("the same page again, and with a fragment", func(t *testing.T) {
		for _, u := range []string{"/link.html", "/link.html", "/link.html#/route"} {
			p := render(t, r, s.URL+u)
			if p.Status != 200 || !strings.Contains(p.HTML, "added") {
				t.Errorf("%s: status %d, DOM %s", u, p.Status, p.HTML)
			}
		}
	})
	t.Run("alert, prompt and confirm dismissed", func(t *testing.T) {
		p := render(t, r, s.URL+"/dialogs.html")
		if p.TimedOut || !strings.Contains(p.HTML, `<p id="after">null false</p>`) {
			t.Errorf("timed out %v, DOM %s: want the script run past its dialogs, each dismissed", p.TimedOut, p.HTML)
		}
	})
	t.Run("refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		_, err = r.Render(context.Background(), &Request{URL: "http://" + addr + "/"})
		var le *LoadError
		if !asLoadError(err, &le) || le.Code != "refused" {
			t.Errorf("err %v, want a refused LoadError", err)
		}
	})
}

// TestPopupsNotOpened: the windows a page opens (window.open, a link to
// target=_blank) are not opened: their requests would escape the checks
// of the page's own (robots.txt here), in a tab nothing watches.
func TestPopupsNotOpened(t *testing.T) {
	s := newSite(t)
	opts := DefaultOptions()
	opts.Timeout = 60 * time.Second
	opts.Wait = Wait{Kind: WaitIdle}
	for _, screenshots := range []bool{false, true} { // the browser is started with other switches for screenshots
		t.Run(fmt.Sprintf("screenshots=%v", screenshots), func(t *testing.T) {
			o := opts
			if screenshots {
				o.ScreenshotDir = t.TempDir()
			}
			before := s.privateHits.Load()
			p := render(t, newTestRenderer(t, o), s.URL+"/popups.html")
			if !strings.Contains(p.HTML, `<p id="done">done</p>`) {
				t.Errorf("DOM %s", p.HTML)
			}
			if n := s.privateHits.Load() - before; n != 0 {
				t.Errorf("the robots-disallowed popups reached the server %d times", n)
			}
		})
	}
}

// TestBrowserCrash: the browser killed under a page costs one retry in a
// new browser, and the page is rendered.
func TestBrowserCrash(t *testing.T) {
	s := newSite(t)
	opts := DefaultOptions()
	opts.Timeout = 60 * time.Second
	r := newTestRenderer(t, opts)
	render(t, r, s.URL+"/list.html") // the browser runs
	pid, dir := r.PID(), r.DataDir()
	if pid == 0 {
		t.Fatal("no browser process")
	}
	// Kill it while a page hangs in it.
	done := make(chan error, 1)
	var p *Page
	go func() {
		var err error
		p, err = r.Render(context.Background(), &Request{URL: s.URL + "/list.html"})
		done <- err
	}()
	if err := exec.Command("kill", "-9", itoa(pid)).Run(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("after the crash: %v", err)
	}
	if count(p.HTML, `class="product"`) != 2 && p.Status != 200 {
		t.Errorf("page after the crash: %d %s", p.Status, p.HTML)
	}
	waitNoProcess(t, dir)
	if r.PID() == pid {
		t.Errorf("the dead browser is still in use")
	}
}

func asLoadError(err error, le **LoadError) bool { return errorsAs(err, le) }

// TestEveryBrowserFound renders the same page with every browser FindBrowser
// may pick that is installed here (CI installs Debian's headless shell and
// its full chromium): both take the products a fetch() brought, and leave
// no process behind.
func TestEveryBrowserFound(t *testing.T) {
	s := newSite(t)
	found := 0
	for _, name := range browserNames {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		found++
		t.Run(name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Timeout = 60 * time.Second
			opts.Browser = path
			opts.Wait = Wait{Kind: WaitSelector, Selector: ".product"}
			r := newTestRenderer(t, opts)
			p := render(t, r, s.URL+"/list.html")
			if got := count(p.HTML, `class="product"`); got != 2 {
				t.Errorf("products in the DOM: %d, want 2", got)
			}
			exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", r.PID()))
			if err != nil {
				t.Fatalf("the browser's process: %v", err)
			}
			if b := filepath.Base(exe); b == "sh" || b == "dash" || b == "bash" {
				t.Errorf("%s runs as a shell's child (pid %d is %s): it would not die with cfetch", path, r.PID(), exe)
			}
		})
	}
	if found == 0 {
		newTestRenderer(t, DefaultOptions()) // fails with the command that installs one
	}
}

// TestDocumentDone: Request.DocumentDone is called once a page, when its
// document has been read, before Render returns: also for a page whose
// scripts keep it from ever finishing (the load event never comes).
func TestDocumentDone(t *testing.T) {
	s := newSite(t)
	opts := DefaultOptions()
	opts.Wait = Wait{Kind: WaitSelector, Selector: ".late"}
	opts.Timeout = 3 * time.Second
	r := newTestRenderer(t, opts)
	for _, tc := range []struct {
		path    string
		timeout bool
	}{{"/late.html", false}, {"/hang.html", true}} {
		var calls atomic.Int64
		var returned atomic.Bool
		var late atomic.Bool
		req := &Request{URL: s.URL + tc.path, Check: noRobots, DocumentDone: func() {
			calls.Add(1)
			late.Store(returned.Load())
		}}
		p, err := r.Render(context.Background(), req)
		returned.Store(true)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if p.TimedOut != tc.timeout {
			t.Errorf("%s: timed out %v, want %v", tc.path, p.TimedOut, tc.timeout)
		}
		if n := calls.Load(); n != 1 || late.Load() {
			t.Errorf("%s: DocumentDone called %d times (after Render returned: %v), want once before", tc.path, n, late.Load())
		}
	}
}
