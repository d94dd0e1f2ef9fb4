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
// it), and one queued behind it and never started, both come out as the
// request records they were, lease and all, for cqueue push to hand out
// again.
func TestInterruptReleasesLeasedRequests(t *testing.T) {
	t.Parallel()
	hit := make(chan string, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		hit <- r.URL.Path
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
	io.WriteString(feed, a+"\n"+b+"\n")
	waitFor(t, hit, "the first request to reach the server")
	time.Sleep(100 * time.Millisecond) // its 503 is in: it waits to retry
	cancel(cli.ErrInterrupted)
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
	want := []string{a, b}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output after the interrupt:\n%s\nwant the requests as they were:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
