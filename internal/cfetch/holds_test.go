package cfetch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/throttle"
)

// TestSchedulerSharesRests: every rest the server's word begins or
// lengthens is handed to s.shared, with the host and its end; an answer
// that changes no rest is not.
func TestSchedulerSharesRests(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.RobotsObey = false
	o.PerHost = 4
	m := newSim(t, &o)
	var shared []string
	m.s.shared = func(key string, u *url.URL, until time.Time) {
		shared = append(shared, fmt.Sprintf("%s %s %v", key, u.Host, until.Sub(m.t0)))
	}
	n := 0
	m.respond = func(j *job, _ time.Duration) (time.Duration, *finish) {
		if j.url.Host == "b.test" {
			return 0, &finish{kind: finDone, status: 200}
		}
		n++
		switch n {
		case 1, 2, 3: // the third in a row rests the host: Retry-After 5s
			return time.Millisecond, &finish{kind: finRetry, status: 503, failed: true, retryAfter: 5 * time.Second, hasRetryAfter: true}
		case 4: // in flight meanwhile: its Retry-After makes the rest longer
			return 10 * time.Millisecond, &finish{kind: finRetry, status: 503, failed: true, retryAfter: 8 * time.Second, hasRetryAfter: true}
		case 5: // after the rest: a 429 with a shorter Retry-After rests it again
			return 0, &finish{kind: finRetry, status: 429, retryAfter: 2 * time.Second, hasRetryAfter: true}
		}
		return 0, &finish{kind: finDone, status: 200}
	}
	m.add(urls("a.test", 6)...)
	m.add(urls("b.test", 3)...)
	m.run(time.Hour)
	want := "[a.test:80 a.test 5.001s a.test:80 a.test 8.01s a.test:80 a.test 10.01s]"
	if got := fmt.Sprint(shared); got != want {
		t.Errorf("shared rests\n got %s\nwant %s", got, want)
	}
}

// TestSharedKey: the key a hold is written for is the one cthrottle
// gives the URL that answered.
func TestSharedKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ key, url, want string }{
		{"a.test:80", "http://a.test/x", "a.test"},
		{"a.test:443", "https://A.test/x", "a.test"},
		{"a.test:8080", "http://a.test:8080/", "a.test:8080"},
		{"a.test:443", "http://a.test:443/", "a.test:443"},
		{"[::1]:8080", "http://[::1]:8080/", "[::1]:8080"},
		{"xn--bcher-kva.test:80", "http://xn--bcher-kva.test/", "xn--bcher-kva.test"},
		// A URL on another host (a redirect's next hop): the host's key,
		// its port read as its scheme's.
		{"a.test:443", "http://b.test/", "a.test"},
		{"a.test:80", "", "a.test"},
		{"a.test:8443", "", "a.test:8443"},
	} {
		var u *url.URL
		if c.url != "" {
			u = mustURL(t, c.url)
		}
		if got := sharedKey(c.key, u); got != c.want {
			t.Errorf("sharedKey(%q, %q) = %q, want %q", c.key, c.url, got, c.want)
		}
	}
}

// fakeHolds is a throttle.Store that records holds, and blocks on gate
// while it is not nil.
type fakeHolds struct {
	throttle.Store // nil: only Hold and Close are called
	mu             sync.Mutex
	gate           chan struct{}
	entered        chan struct{} // told when a Hold begins, if not nil
	fail           error
	got            []string
}

func (f *fakeHolds) Hold(ctx context.Context, key string, until, now time.Time) error {
	f.mu.Lock()
	gate := f.gate
	f.mu.Unlock()
	if f.entered != nil {
		select {
		case f.entered <- struct{}{}:
		default:
		}
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fmt.Sprintf("%s %s", key, until.Format("15:04:05")))
	return f.fail
}

func (f *fakeHolds) Close() error { return nil }

func newTestHoldWriter(store throttle.Store, openErr error) (w *holdWriter, warnings *[]string, counts map[string]int) {
	var mu sync.Mutex
	warnings, counts = &[]string{}, map[string]int{}
	o := DefaultOptions()
	o.ThrottleDB = "state.db"
	w = newHoldWriter(&o, func(msg string) {
		mu.Lock()
		*warnings = append(*warnings, msg)
		mu.Unlock()
	}, func(group, key string) {
		mu.Lock()
		counts[group+" "+key]++
		mu.Unlock()
	})
	w.open = func(context.Context, string) (throttle.Store, error) { return store, openErr }
	// close's bound (2s) is for a store that hangs; the tests' stores
	// answer, and a loaded machine may take more than 2s to take 1025
	// holds under -race.
	w.flushTimeout = time.Minute
	return w, warnings, counts
}

// TestHoldWriterNeverBlocks: while the store hangs, holds are taken at
// once; those of one key coalesce into the latest end; past the queue's
// size a new key's hold is dropped; close writes what is queued.
func TestHoldWriterNeverBlocks(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	store := &fakeHolds{gate: gate, entered: make(chan struct{}, 1)}
	w, warnings, counts := newTestHoldWriter(store, nil)
	w.start()
	at := func(s int) time.Time { return time.Date(2030, 1, 1, 0, 0, s, 0, time.UTC) }
	w.hold("first.test", at(1))
	<-store.entered // the writer took it, and hangs on the gate
	w.hold("a.test", at(3))
	w.hold("a.test", at(5))
	w.hold("a.test", at(4))              // shorter: changes nothing
	for i := 1; i < holdQueueSize; i++ { // a.test and these fill the queue
		w.hold(fmt.Sprintf("k%d.test", i), at(1))
	}
	w.hold("late.test", at(9)) // the queue is full
	w.hold("a.test", at(6))    // a key already queued still moves on
	if counts["holds dropped"] != 1 {
		t.Errorf("dropped %d, want 1", counts["holds dropped"])
	}
	close(gate)
	w.close()
	got := strings.Join(store.got, "\n")
	for _, want := range []string{"first.test 00:00:01", "a.test 00:00:06", "k1.test 00:00:01"} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("no hold %q written", want)
		}
	}
	if strings.Contains(got, "late.test") || strings.Count(got, "a.test ") != 1 {
		t.Errorf("holds written:\n%s", got)
	}
	if len(store.got) != holdQueueSize+1 || counts["holds written"] != holdQueueSize+1 || len(*warnings) != 0 {
		t.Errorf("%d holds written, counts %v, warnings %q", len(store.got), counts, *warnings)
	}
}

// TestHoldWriterWarnsOnce: a store that fails, or cannot be opened, is
// reported once as a warning, and its holds counted as failed.
func TestHoldWriterWarnsOnce(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		store   throttle.Store
		openErr error
		want    string
	}{
		"write": {&fakeHolds{fail: errors.New("throttle: hold state.db: database is locked by another process")}, nil,
			"warning: --throttle-db state.db: hold state.db: database is locked by another process: rests are not shared with the fleet (this cfetch still rests its hosts)"},
		"open": {nil, errors.New("throttle: open state.db: not a database"),
			"warning: --throttle-db state.db: open state.db: not a database: rests are not shared with the fleet (this cfetch still rests its hosts)"},
	} {
		t.Run(name, func(t *testing.T) {
			w, warnings, counts := newTestHoldWriter(c.store, c.openErr)
			w.start()
			for i := range 3 {
				w.hold(fmt.Sprintf("k%d.test", i), time.Now().Add(time.Minute))
			}
			w.close()
			if len(*warnings) != 1 || (*warnings)[0] != c.want {
				t.Errorf("warnings %q, want one: %q", *warnings, c.want)
			}
			if counts["holds failed"] != 3 {
				t.Errorf("counts %v, want 3 failed", counts)
			}
		})
	}
}

// TestRunSharesRests: cfetch --throttle-db / --throttle-redis writes a
// 429's Retry-After as a hold on the host's key, where cthrottle reads
// it; a hold's end is the rest's, on the clock of the run.
func TestRunSharesRests(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	key, _ := throttle.HostKey(srv.URL)
	for _, backend := range []string{"sqlite", "redis"} {
		t.Run(backend, func(t *testing.T) {
			var flag, dsn string
			var holdOf func() int64
			switch backend {
			case "sqlite":
				flag, dsn = "--throttle-db", filepath.Join(t.TempDir(), "crawl.db")
				holdOf = func() int64 {
					db, err := sql.Open("sqlite", dsn)
					if err != nil {
						t.Fatal(err)
					}
					defer db.Close()
					var us int64
					if err := db.QueryRow(`SELECT hold_us FROM throttle_slots WHERE key = ?`, key).Scan(&us); err != nil {
						t.Fatalf("the hold of %s: %v", key, err)
					}
					return us
				}
			case "redis":
				flag, dsn = "--throttle-redis", redistest.Start(t)
				holdOf = func() int64 {
					opt, err := redis.ParseURL(dsn)
					if err != nil {
						t.Fatal(err)
					}
					c := redis.NewClient(opt)
					defer c.Close()
					us, err := c.Get(context.Background(), throttle.RedisHoldKey("", key)).Int64()
					if err != nil {
						t.Fatalf("the hold of %s: %v", key, err)
					}
					return us
				}
			}
			start := time.Now()
			r := runCfetch(t, srv.URL+"/a\n", append(fast, flag, dsn)...)
			end := time.Now()
			if resp := r.one(t); r.code != 0 || resp.Status != 429 || r.stderr != "" {
				t.Fatalf("exit %d, status %d %s, stderr %q", r.code, resp.Status, resp.Error, r.stderr)
			}
			// The rest began between start and end, for the Retry-After.
			hold := time.UnixMicro(holdOf())
			if hold.Before(start.Add(2*time.Second).Add(-time.Millisecond)) || hold.After(end.Add(2*time.Second).Add(time.Millisecond)) {
				t.Errorf("held until %v, want 2s after the 429 (run from %v to %v)", hold, start, end)
			}
		})
	}
}

// TestThrottleFlagsAreChecked: one store at most, each of its kind.
func TestThrottleFlagsAreChecked(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--throttle-db", "a.db", "--throttle-redis", "redis://localhost:6379/0"},
		{"--throttle-redis", "a.db"},
		{"--throttle-db", "redis://localhost:6379/0"},
	} {
		if r := runCfetch(t, "", args...); r.code != 2 || !strings.Contains(r.stderr, "--throttle-") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
