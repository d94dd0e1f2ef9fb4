package cfetch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestRenderPaceSlot: each start on a host comes at least the delay after
// the last one (the page's own start included); other hosts do not wait.
func TestRenderPaceSlot(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	var p renderPace
	p.started("a", t0)
	for i, c := range []struct {
		key  string
		d    time.Duration
		at   time.Duration // now, after t0
		want time.Duration // the wait
	}{
		{"a", 300 * ms, 0, 300 * ms},         // right after the page: a delay
		{"a", 300 * ms, 0, 600 * ms},         // reserved after the first
		{"b", 300 * ms, 0, 0},                // another host: at once
		{"a", 300 * ms, 1000 * ms, 0},        // the delay has passed
		{"a", 300 * ms, 1100 * ms, 200 * ms}, // 100ms after that start
		{"b", 300 * ms, 50 * ms, 250 * ms},   // b's last start was at 0
		{"a", 0, 1500 * ms, 0},               // no delay
		{"c", 300 * ms, 5000 * ms, 0},        // first start of a host
		{"c", 300 * ms, 5000 * ms, 300 * ms}, // then spaced
		{"c", time.Second, 5000 * ms, 1300 * ms},
	} {
		if got := p.slot(c.key, c.d, t0.Add(c.at)); got != c.want {
			t.Errorf("%d: slot(%s, %v) at +%v waits %v, want %v", i, c.key, c.d, c.at, got, c.want)
		}
	}
}

// TestRenderedSubrequestsKeepTheDelay: the fetch() calls of a rendered
// page, made at once by its script, reach the server spaced by --delay.
// cfetch keeps the delay between the moments it lets each request go; the
// browser then takes a varying time to send it, which a loaded machine
// stretches: the test allows half the delay of that (unpaced, the three
// arrive within milliseconds).
func TestRenderedSubrequestsKeepTheDelay(t *testing.T) {
	needBrowser(t)
	var mu sync.Mutex
	var arrivals []time.Time
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><p id="n">0</p><script>
Promise.all([1, 2, 3].map(i => fetch('/api/' + i).then(r => r.text()))).then(() => document.documentElement.className = 'done');
</script>`)
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		fmt.Fprint(w, "{}")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	const delay = time.Second
	recs := runRecords(t, []string{"-q", "--render", "--no-robots", "--delay", delay.String(), "--no-random-delay",
		"--render-wait", "css:html.done", "--render-timeout", "2m"}, srv.URL+"/page\n")
	if len(recs) != 1 || recs[0]["render_timeout"] == true {
		t.Fatalf("records %v", recs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) != 4 {
		t.Fatalf("%d requests reached the server, want the page and its 3 fetch()es", len(arrivals))
	}
	slices.SortFunc(arrivals, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(arrivals); i++ {
		if gap := arrivals[i].Sub(arrivals[i-1]); gap < delay/2 {
			t.Errorf("request %d came %v after the one before; want at least --delay %v", i+1, gap, delay)
		}
	}
}
