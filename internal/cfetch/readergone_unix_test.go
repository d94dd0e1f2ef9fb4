//go:build unix

package cfetch

import (
	"context"
	"io"
	"os"
	"strings"
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
