//go:build unix

package cfetch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// TestInterruptWithTheReaderGone: the record of the request in flight at
// an interrupt finds its reader gone (the next command of the pipeline
// stopped at the same signal). That is what the interrupt asked for, not
// a failure: exit 130, nothing said.
func TestInterruptWithTheReaderGone(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	stdin, feed := io.Pipe()
	defer feed.Close()
	r, out, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	r.Close() // a write fails with EPIPE (only stdout and stderr get SIGPIPE)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() { done <- execute(ctx, []string{"-q"}, stdin, out, &stderr) }()
	io.WriteString(feed, s.URL+"/gate\n")
	waitFor(t, s.entered, "the request to reach the server")
	cancel(cli.ErrInterrupted)
	close(s.gate) // the server answers only after the interrupt
	select {
	case code := <-done:
		if code != cli.ExitInterrupted || stderr.Len() > 0 {
			t.Errorf("exit %d, stderr %q; want 130 and nothing said", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the interrupt")
	}
}

// TestReleasedCountedOnlyWhenWritten: the requests an interrupt hands
// back are counted "released" once written, as every record is counted
// out, so out less released (cqueue crawl's and cqueue serve's count of
// pages) is never negative. They were counted before the write: with the
// output gone (a full disk downstream ended the loop), a crawl's account
// said "-50 pages in 2.4s".
func TestReleasedCountedOnlyWhenWritten(t *testing.T) {
	t.Parallel()
	hit := make(chan string, 10)
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		hit <- r.URL.Path
		<-hold
	}))
	defer srv.Close()
	stdin, feed := io.Pipe()
	defer feed.Close()
	r, out, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	r.Close() // every write fails with EPIPE
	stats := filepath.Join(t.TempDir(), "stats.json")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- execute(ctx, []string{"-q", "--stats", stats, "--per-host", "1"}, stdin, out, &stderr)
	}()
	// The first is in flight; the other two wait behind it, and are
	// handed back at the interrupt.
	for _, p := range []string{"/a", "/b", "/c"} {
		io.WriteString(feed, `{"kind":"request","url":"`+srv.URL+p+`","lease":"l`+p[1:]+`"}`+"\n")
	}
	waitFor(t, hit, "the first request to reach the server")
	cancel(cli.ErrInterrupted)
	close(hold) // answered after the interrupt
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the interrupt")
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st cli.StatsJSON
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if released := st.Counts["interrupted"]["released"]; released > st.Out {
		t.Errorf("released %d of %d records written: %s", released, st.Out, b)
	}
}

// failAfter takes n writes, then fails every write as a closed pipe does.
type failAfter struct{ n int }

func (w *failAfter) Write(b []byte) (int, error) {
	if w.n == 0 {
		return 0, syscall.EPIPE
	}
	w.n--
	return len(b), nil
}

// TestStatusCountedOnlyWhenWritten: the responses counted by status (and
// by error) are those written, as pages are counted out. They were
// counted before the write: with stdout closed mid-run, a crawl said
// "2xx 158" of 135 pages written.
func TestStatusCountedOnlyWhenWritten(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "page")
	}))
	defer srv.Close()
	var in strings.Builder
	for i := range 200 {
		fmt.Fprintf(&in, "%s/p%d\n", srv.URL, i)
	}
	stats := filepath.Join(t.TempDir(), "stats.json")
	var stderr strings.Builder
	execute(context.Background(), []string{"-q", "--stats", stats, "--concurrency", "16"}, strings.NewReader(in.String()), &failAfter{n: 3}, &stderr)
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st cli.StatsJSON
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	var counted int64
	for _, n := range st.Counts["status"] {
		counted += n
	}
	if counted > st.Out {
		t.Errorf("%d responses counted by status, %d written: %s", counted, st.Out, b)
	}
}
