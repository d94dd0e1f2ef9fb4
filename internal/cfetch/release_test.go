package cfetch

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// TestInterruptReleasesLeasedRequests: in a crawl loop, an interrupt must
// not settle a request that was not fetched. A leased request waiting to
// retry after a 503 (its answer would be the 503, and its ack would end
// it), one in flight that gets a 503 after the interrupt, and one queued
// behind them and never started, all come out as the request records they
// were, lease and all, for cqueue push to hand out again.
func TestInterruptReleasesLeasedRequests(t *testing.T) {
	t.Parallel()
	hit := make(chan string, 10)
	holdB := make(chan struct{}) // /b answers once the run is interrupted
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		hit <- r.URL.Path
		if r.URL.Path == "/b" {
			<-holdB
		}
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	stdin, feed := io.Pipe()
	defer feed.Close()
	stdout, out := io.Pipe()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- execute(ctx, []string{"-q", "--per-host", "1", "--retry-after-max", "60s"}, stdin, out, &stderr)
		out.Close()
	}()
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	a := `{"kind":"request","url":"` + srv.URL + `/a","lease":"la","crawlid":"c"}`
	b := `{"kind":"request","url":"` + srv.URL + `/b","lease":"lb","crawlid":"c"}`
	c := `{"kind":"request","url":"` + srv.URL + `/c","lease":"lc","crawlid":"c"}`
	io.WriteString(feed, a+"\n"+b+"\n"+c+"\n")
	waitFor(t, hit, "the first request to reach the server")
	// With --per-host 1 the second starts only once the first one's 503
	// is in and it waits to retry; the third waits for the second.
	waitFor(t, hit, "the second request to reach the server")
	cancel(cli.ErrInterrupted)
	close(holdB)
	var got []string
	for l := range lines {
		got = append(got, l)
	}
	select {
	case code := <-done:
		if code != cli.ExitInterrupted {
			t.Errorf("exit %d, want 130; stderr %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the interrupt")
	}
	sort.Strings(got)
	want := []string{a, b, c}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output after the interrupt:\n%s\nwant the requests as they were:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
