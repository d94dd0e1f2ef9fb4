package render

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrossSiteFrameChecked: the requests of a frame from another site
// (which Chromium may run in a process of its own) are judged by Check
// as the page's are: a refused fetch() of the frame never reaches its
// server.
func TestCrossSiteFrameChecked(t *testing.T) {
	var hits atomic.Int64
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/frame.html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><p>frame</p><script>fetch('/secret.json').catch(() => 0).finally(() => parent.postMessage('done', '*'))</script>`)
		case "/secret.json":
			hits.Add(1)
			fmt.Fprint(w, `"secret"`)
		}
	}))
	defer inner.Close()
	iu, _ := url.Parse(inner.URL)
	frameURL := "http://localhost:" + iu.Port() + "/frame.html"
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><p>outer</p><script>addEventListener('message', () => document.documentElement.className = 'done')</script><iframe src="%s"></iframe>`, frameURL)
	}))
	defer outer.Close()
	opts := DefaultOptions()
	opts.Wait = Wait{Kind: WaitSelector, Selector: "html.done"} // the frame's fetch has ended
	opts.Timeout = time.Minute                                  // generous: the machine may be busy
	r := newTestRenderer(t, opts)
	var mu sync.Mutex
	var checked []string
	p, err := r.Render(context.Background(), &Request{URL: outer.URL + "/", Check: func(u, _ *url.URL, _ bool) *Refusal {
		mu.Lock()
		checked = append(checked, u.String())
		mu.Unlock()
		if strings.HasSuffix(u.Path, "/secret.json") {
			return &Refusal{Code: "robots", Detail: "no"}
		}
		return nil
	}})
	if err != nil || p.TimedOut {
		t.Fatalf("timed out %v, %v", p != nil && p.TimedOut, err)
	}
	if hits.Load() != 0 {
		t.Errorf("the cross-site frame's refused fetch reached its server %d times (checked %q)", hits.Load(), checked)
	}
	if len(p.Blocked) != 1 || p.Blocked[0].URL != "http://localhost:"+iu.Port()+"/secret.json" {
		t.Errorf("blocked %+v, want the frame's fetch (checked %q)", p.Blocked, checked)
	}
}
