package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/render"
)

// internalName returns a host name that is not written as an internal
// address (not an IP, not localhost) but resolves to one — this machine's
// own name — and a listener on that address, for a server the crawl must
// not reach by it.
func internalName(t *testing.T) (string, net.Listener) {
	t.Helper()
	name, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, name)
	if err != nil {
		t.Fatalf("this machine's name %q does not resolve (%v): the test needs it to, as /etc/hosts maps it", name, err)
	}
	for _, a := range addrs {
		ip, err := netip.ParseAddr(a)
		if err != nil || !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()) {
			continue
		}
		if ln, err := net.Listen("tcp", net.JoinHostPort(a, "0")); err == nil {
			return name, ln
		}
	}
	t.Fatalf("this machine's name %q resolves to %v: no internal address of it to listen on", name, addrs)
	return "", nil
}

// TestRenderedSubrequestsRefused: a page rendered by cfetch (the built
// command) whose script asks for a path its robots.txt disallows and for
// a URL on a name that resolves to an internal address gets neither: the
// servers behind them see no request, and the page's record lists both
// in render_blocked, by reason (robots, private_address). The request it
// may make is made, and no browser process remains once cfetch has ended.
func TestRenderedSubrequestsRefused(t *testing.T) {
	needChromium(t)
	bin := binDir(t)

	var internalHits, privateHits, apiHits atomic.Int64
	name, ln := internalName(t)
	internal := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		internalHits.Add(1)
		fmt.Fprint(w, `{"secret":true}`)
	}))
	internal.Listener.Close()
	internal.Listener = ln
	internal.Start()
	t.Cleanup(internal.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	secret := "http://" + net.JoinHostPort(name, port) + "/latest/meta-data/"

	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><ul id="got"></ul><script>
const urls = ['/private/prices.json', %q, '/api/ok.json'];
Promise.all(urls.map(u => fetch(u).then(r => r.text()).then(t => {
  const li = document.createElement('li'); li.textContent = t; document.getElementById('got').appendChild(li);
}).catch(() => {}))).then(() => document.documentElement.className = 'done');
</script>`, secret)
	})
	mux.HandleFunc("/private/", func(w http.ResponseWriter, _ *http.Request) { privateHits.Add(1) })
	mux.HandleFunc("/api/", func(w http.ResponseWriter, _ *http.Request) {
		apiHits.Add(1)
		fmt.Fprint(w, `{"ok":true}`)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	l := &loop{t: t, url: site.URL, dir: t.TempDir(), bin: bin}
	tmp := filepath.Join(l.dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	l.run(`echo "$SITE/page" | TMPDIR="$W/tmp" cfetch -q --render --render-wait css:html.done --render-timeout 1m > "$W/out.jsonl"`)

	var rec struct {
		Status        int
		Body          string
		Rendered      bool
		RenderTimeout bool `json:"render_timeout"`
		Requests      []string
		RenderBlocked []render.Refusal `json:"render_blocked"`
	}
	b, err := os.ReadFile(filepath.Join(l.dir, "out.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, 16<<20)
	if !sc.Scan() {
		t.Fatal("no record")
	}
	if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %s", err, sc.Text())
	}
	if sc.Scan() {
		t.Errorf("more than one record: %s", sc.Text())
	}
	if rec.Status != 200 || !rec.Rendered || rec.RenderTimeout || !strings.Contains(rec.Body, `{"ok":true}`) || strings.Contains(rec.Body, "secret") {
		t.Errorf("record: status %d, rendered %v, render_timeout %v, body %s", rec.Status, rec.Rendered, rec.RenderTimeout, rec.Body)
	}
	reasons := map[string]string{} // URL → reason
	for _, r := range rec.RenderBlocked {
		reasons[r.URL] = r.Code
	}
	for u, want := range map[string]string{site.URL + "/private/prices.json": "robots", secret: "private_address"} {
		if reasons[u] != want {
			t.Errorf("render_blocked for %s: %q, want %q (render_blocked %+v)", u, reasons[u], want, rec.RenderBlocked)
		}
	}
	if n := internalHits.Load(); n != 0 {
		t.Errorf("the server on %s (an internal address) got %d requests, want none", secret, n)
	}
	if n := privateHits.Load(); n != 0 {
		t.Errorf("the robots-disallowed path got %d requests, want none", n)
	}
	if n := apiHits.Load(); n != 1 {
		t.Errorf("the allowed fetch() reached the server %d times, want once", n)
	}

	// No process of cfetch's browser remains.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var left []int
		dirs, _ := filepath.Glob(filepath.Join(tmp, "crawlutils-chromium-*"))
		for _, d := range dirs {
			left = append(left, render.ProcessesUsing(d)...)
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("browser processes remain after cfetch ended: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
