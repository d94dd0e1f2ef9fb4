package render

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBrowserHangs: a browser that stops answering (SIGSTOP) under a page
// is ended and the page rendered in a new one; a page whose script never
// yields hangs its tab only: it is tried once more in a new tab of the
// same browser, then answered with an error that wraps ErrBrowser, and
// the browser goes on rendering.
func TestBrowserHangs(t *testing.T) {
	s := newSite(t)
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><p>spin</p><script>window.addEventListener('load', () => { for (;;) {} });</script>`)
	}))
	defer loop.Close()
	opts := DefaultOptions()
	opts.Timeout = 3 * time.Second
	bound := captureBound
	captureBound = 3 * time.Second // the hang is taken for one sooner
	t.Cleanup(func() { captureBound = bound })
	r := newTestRenderer(t, opts)
	render(t, r, s.URL+"/list.html") // the browser runs

	t.Run("tab", func(t *testing.T) {
		pid := r.PID()
		_, err := r.Render(context.Background(), &Request{URL: loop.URL + "/"})
		if !errors.Is(err, ErrBrowser) {
			t.Fatalf("a page that never yields: %v, want an error wrapping ErrBrowser", err)
		}
		// It says what happened: not that the browser died.
		if msg := err.Error(); !strings.Contains(msg, "each time in a new tab: the page's tab stopped answering") || strings.Contains(msg, "died") {
			t.Errorf("a page that never yields: %q", msg)
		}
		if r.PID() != pid || r.Restarts() != 0 {
			t.Errorf("the browser was restarted for a hung tab (pid %d → %d, %d restarts)", pid, r.PID(), r.Restarts())
		}
		if p := render(t, r, s.URL+"/list.html"); p.Status != 200 {
			t.Errorf("after the hung tab: status %d", p.Status)
		}
	})

	t.Run("browser", func(t *testing.T) {
		pid, dir := r.PID(), r.DataDir()
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(pid, syscall.SIGCONT)
		p, err := r.Render(context.Background(), &Request{URL: s.URL + "/list.html", Check: noRobots})
		if err != nil {
			t.Fatalf("after the browser hung: %v", err)
		}
		if p.Status != 200 {
			t.Errorf("page after the hang: status %d", p.Status)
		}
		if r.PID() == pid || r.Restarts() != 1 {
			t.Errorf("the hung browser is still in use (pid %d, %d restarts)", r.PID(), r.Restarts())
		}
		waitNoProcess(t, dir)
	})
}
