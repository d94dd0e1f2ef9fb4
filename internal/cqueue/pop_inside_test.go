package cqueue

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// TestPopInsideGivesBack: a pop --follow run inside another command's
// process (cqueue crawl's), which outlives it, gives back at once what it
// holds when it is killed (its context cancelled with cli.ErrKilled) and
// when its reader has gone: no process of its own dies for the next pop
// to notice, and the crawl's rerun would wait a consumer timeout.
func TestPopInsideGivesBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		stop func(cancel context.CancelCauseFunc, r *os.File)
		code int
	}{
		{"killed", func(cancel context.CancelCauseFunc, _ *os.File) { cancel(cli.ErrKilled) }, cli.ExitFailure},
		{"reader gone", func(_ context.CancelCauseFunc, r *os.File) { r.Close() }, cli.ExitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := "--db=" + filepath.Join(t.TempDir(), "q.db")
			if _, errs, code := run(t, "https://a.example/1\nhttps://a.example/2\nhttps://b.example/3\n", "push", db, "--crawlid", "c"); code != 0 {
				t.Fatalf("push: exit %d, %s", code, errs)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var stderr strings.Builder
			done := make(chan int, 1)
			go func() {
				done <- execute(ctx, []string{"pop", db, "--follow", "-q", "--poll", "50ms"}, strings.NewReader(""), w, &stderr)
				w.Close()
			}()
			br := bufio.NewReader(r)
			for i := 0; i < 3; i++ {
				if _, err := br.ReadString('\n'); err != nil {
					t.Fatalf("request %d: %v", i+1, err)
				}
			}
			tc.stop(cancel, r)
			if code := <-done; code != tc.code {
				t.Errorf("pop: exit %d, want %d; stderr %s", code, tc.code, stderr.String())
			}
			out, _, _ := run(t, "", "info", db)
			if !strings.Contains(out, `"queued":3,"in_flight":0,"dead":0`) {
				t.Errorf("after the pop: %s; want the 3 queued again", out)
			}
		})
	}
}
