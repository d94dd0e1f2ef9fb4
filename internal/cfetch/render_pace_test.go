package cfetch

import (
	"context"
	"errors"
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

// TestSubrequestDelay: the delay between a host's subrequests is the
// longest of --delay and the AutoThrottle delay the scheduler told.
func TestSubrequestDelay(t *testing.T) {
	for _, c := range []struct {
		delay, throttle, want time.Duration
	}{
		{0, 0, 0},
		{time.Second, 0, time.Second},
		{time.Second, 3 * time.Second, 3 * time.Second},
		{2 * time.Second, 500 * time.Millisecond, 2 * time.Second},
	} {
		o := DefaultOptions()
		o.Delay = c.delay
		f := &Fetcher{opts: &o}
		f.render.robots = &renderRobots{}
		if c.throttle > 0 {
			f.render.pace.throttled("a.test:80", c.throttle)
		}
		if got := f.subrequestDelay("a.test:80"); got != c.want {
			t.Errorf("--delay %v, AutoThrottle %v: %v, want %v", c.delay, c.throttle, got, c.want)
		}
		if got := f.subrequestDelay("b.test:80"); got != c.delay {
			t.Errorf("--delay %v: another host's delay %v, want --delay", c.delay, got)
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

// TestRenderHolds: at most n holds on a host at once, other hosts apart; a
// waiter gets the slot given back, gives up when its context ends, and a
// host no one holds is forgotten.
func TestRenderHolds(t *testing.T) {
	var rh renderHolds
	ctx := context.Background()
	a1, err1 := rh.hold(ctx, "a", 2)
	a2, err2 := rh.hold(ctx, "a", 2)
	b1, err3 := rh.hold(ctx, "b", 2)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := rh.hold(short, "a", 2); !errors.Is(err, context.Canceled) {
		t.Errorf("a third hold on a full host with its context ended: %v, want context.Canceled", err)
	}
	got := make(chan func())
	go func() {
		release, err := rh.hold(ctx, "a", 2)
		if err != nil {
			t.Error(err)
		}
		got <- release
	}()
	a1()
	a1() // twice: one slot given back, once
	a3 := <-got
	for _, release := range []func(){a2, a3, b1} {
		release()
	}
	rh.mu.Lock()
	defer rh.mu.Unlock()
	if len(rh.hosts) != 0 {
		t.Errorf("hosts still known with nothing held: %v", rh.hosts)
	}
}

// TestRenderedSubrequestsPerHost: the fetch() calls a rendered page makes
// at once to its host reach the server at most --per-host at a time.
func TestRenderedSubrequestsPerHost(t *testing.T) {
	needBrowser(t)
	var mu sync.Mutex
	var now, most, served int
	mux := http.NewServeMux()
	count := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			now++
			most = max(most, now)
			mu.Unlock()
			defer func() {
				mu.Lock()
				now--
				served++
				mu.Unlock()
			}()
			h(w, r)
		}
	}
	mux.HandleFunc("/page", count(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><script>
Promise.all([...Array(12).keys()].map(i => fetch('/api/' + i).then(r => r.text()))).then(() => document.documentElement.className = 'done');
</script>`)
	}))
	mux.HandleFunc("/api/", count(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(100 * time.Millisecond) // the server's own latency, so that requests overlap
		fmt.Fprint(w, "{}")
	}))
	mux.HandleFunc("/favicon.ico", count(http.NotFound))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	const perHost = 2
	recs := runRecords(t, []string{"-q", "--render", "--no-robots", "--per-host", fmt.Sprint(perHost),
		"--render-wait", "css:html.done", "--render-timeout", "2m"}, srv.URL+"/page\n")
	if len(recs) != 1 || recs[0]["render_timeout"] == true {
		t.Fatalf("records %v", recs)
	}
	mu.Lock()
	defer mu.Unlock()
	if served < 13 {
		t.Errorf("the server answered %d requests, want the page and its 12 fetch()es", served)
	}
	if most > perHost {
		t.Errorf("the server had %d requests at once, over --per-host %d", most, perHost)
	}
}
