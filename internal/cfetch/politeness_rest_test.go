package cfetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// arrivalServer is a loopback server whose answer to each request
// answer decides, and which logs when each request arrived and when its
// answer was sent (the server's clock).
type arrivalServer struct {
	*httptest.Server
	mu     sync.Mutex
	log    []arrival
	counts map[string]int

	first     chan time.Time // the first request's arrival
	firstOnce sync.Once
}

type arrival struct {
	path     string
	at, sent time.Time
	status   int
}

// newArrivalServer starts a server that answers the n-th request (from 1)
// for a path with the status and Retry-After answer returns, after
// latency; status 200 sends a small page.
func newArrivalServer(t *testing.T, latency time.Duration, answer func(path string, n int) (status int, retryAfter string)) *arrivalServer {
	s := &arrivalServer{counts: map[string]int{}, first: make(chan time.Time, 1)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		s.firstOnce.Do(func() { s.first <- at })
		s.mu.Lock()
		s.counts[r.URL.Path]++
		n := s.counts[r.URL.Path]
		s.mu.Unlock()
		time.Sleep(latency)
		status, ra := answer(r.URL.Path, n)
		if ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		s.mu.Lock()
		s.log = append(s.log, arrival{r.URL.Path, at, time.Now(), status})
		s.mu.Unlock()
		if status == http.StatusOK {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<title>%s</title>", r.URL.Path)
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(s.Close)
	return s
}

// arrivals returns a copy of the log, in order of arrival.
func (s *arrivalServer) arrivals() []arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]arrival(nil), s.log...)
}

// pages lists n URLs of s, /p/0 to /p/n-1, one a line.
func (s *arrivalServer) pages(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s/p/%d\n", s.URL, i)
	}
	return b.String()
}

// TestIsolated503DoesNotStallTheHost: one page of 50 answers 503 with
// Retry-After: 1 once. The other pages go on being fetched during that
// second, and the page's retry waits for its Retry-After. With --per-host
// 1 nothing else is in flight when the 503 comes, so a host that rested
// would send the retry first (it is the oldest request) and nothing
// before it; only lower bounds on times are asserted.
func TestIsolated503DoesNotStallTheHost(t *testing.T) {
	t.Parallel()
	s := newArrivalServer(t, 10*time.Millisecond, func(path string, n int) (int, string) {
		if path == "/p/5" && n == 1 {
			return http.StatusServiceUnavailable, "1"
		}
		return http.StatusOK, ""
	})
	res := runCfetch(t, s.pages(50), "--no-robots", "--per-host", "1")
	if res.code != 0 || len(res.resps) != 50 {
		t.Fatalf("exit %d, %d responses\n%s", res.code, len(res.resps), res.stderr)
	}
	var unavailable, retry arrival
	for _, a := range s.arrivals() {
		if a.path == "/p/5" {
			if a.status == http.StatusServiceUnavailable {
				unavailable = a
			} else {
				retry = a
			}
		}
	}
	if unavailable.at.IsZero() || retry.at.IsZero() {
		t.Fatalf("/p/5: no 503 then retry in %v", s.arrivals())
	}
	if wait := retry.at.Sub(unavailable.sent); wait < time.Second {
		t.Errorf("the retry came %s after the 503, Retry-After is 1s", wait)
	}
	during := 0
	for _, a := range s.arrivals() {
		if a.path != "/p/5" && a.at.After(unavailable.sent) && a.at.Before(retry.at) {
			during++
		}
	}
	if during == 0 {
		t.Errorf("no other page was fetched while /p/5 waited for its retry")
	}
	for _, r := range res.resps {
		if r.Status != 200 {
			t.Errorf("%s: status %d", r.URL, r.Status)
		}
	}
}

// TestHostAnswering503RestsIt: a host that answers 503 to everything is
// asked only a few times in its first two seconds: its third failure in a
// row rests it, and each rest is twice the one before. Without rests, 100
// pages with 2 retries each would be 300 requests in well under a second.
func TestHostAnswering503RestsIt(t *testing.T) {
	t.Parallel()
	s := newArrivalServer(t, 0, func(string, int) (int, string) { return http.StatusServiceUnavailable, "" })
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan result, 1)
	go func() {
		done <- runCfetchCtx(t, ctx, strings.NewReader(s.pages(100)), "--no-robots", "--per-host", "8")
	}()
	first := waitFor(t, s.first, "the first request")
	time.Sleep(time.Until(first.Add(2 * time.Second)))
	cancel(cli.ErrInterrupted)
	waitFor(t, done, "the end of the run")
	n := 0
	for _, a := range s.arrivals() {
		if a.at.Sub(first) < 2*time.Second {
			n++
		}
	}
	// At most four rests (250ms, 500ms, 1s, 2s, each -50% at worst) end
	// in the first two seconds, and up to --per-host 8 requests start
	// after each; at the start, 8 and 2 more, before the third failure.
	if n > 42 {
		t.Errorf("%d requests in the first 2s to a host answering 503 to all", n)
	}
}

// Test429RestsTheHost: a 429 with Retry-After: 1 rests the whole host for
// that second: no request reaches it before.
func Test429RestsTheHost(t *testing.T) {
	t.Parallel()
	s := newArrivalServer(t, 0, func(path string, n int) (int, string) {
		if path == "/p/2" && n == 1 {
			return http.StatusTooManyRequests, "1"
		}
		return http.StatusOK, ""
	})
	res := runCfetch(t, s.pages(10), "--no-robots", "--per-host", "1")
	if res.code != 0 || len(res.resps) != 10 {
		t.Fatalf("exit %d, %d responses\n%s", res.code, len(res.resps), res.stderr)
	}
	var limited time.Time
	for _, a := range s.arrivals() {
		switch {
		case a.status == http.StatusTooManyRequests:
			limited = a.sent
		case !limited.IsZero():
			if wait := a.at.Sub(limited); wait < time.Second {
				t.Errorf("%s came %s after the 429, Retry-After is 1s", a.path, wait)
			}
		}
	}
	if limited.IsZero() {
		t.Fatal("no 429 was sent")
	}
}
