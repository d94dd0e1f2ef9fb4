package cqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// TestPopHorizonLetsOtherHostsIn: requests a delayed host holds downstream
// (here: never acked until the end) fill pop's --window only for
// --horizon; then the other hosts' requests flow again, and the crawl
// ends once the delayed ones are acked. With --horizon 0 the same window
// stays full of them: nothing more is handed out while they are held.
func TestPopHorizonLetsOtherHostsIn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		horizon string
		flows   bool
	}{{"100ms", true}, {"0", false}} {
		t.Run("horizon="+tc.horizon, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "q.db")
			var seeds strings.Builder
			for i := range 4 {
				// First in line: they fill the window first.
				fmt.Fprintf(&seeds, `{"url":"https://delayed.example/%d","priority":1}`+"\n", i)
			}
			for i := range 20 {
				fmt.Fprintf(&seeds, "https://fast%d.example/\n", i)
			}
			if _, errs, code := run(t, seeds.String(), "push", "-q", "--db", path, "--crawlid", "c"); code != 0 {
				t.Fatalf("push: %s", errs)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fr, err := frontier.OpenSQLite(ctx, path, frontier.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer fr.Close()
			var out, errb lockedBuffer
			exited := make(chan int, 1)
			go func() {
				exited <- execute(ctx, []string{"pop", "--db", path, "--follow", "-q", "--window", "4", "--host-window", "4", "--horizon", tc.horizon},
					strings.NewReader(""), &out, &errb)
			}()
			// The fetcher: acks the fast hosts' requests as they come, holds
			// the delayed host's.
			seen := 0
			var delayed []string
			fast := 0
			look := func() {
				t.Helper()
				// Whole lines only: pop may be writing the next one.
				text := out.String()
				lines := strings.Split(text[:strings.LastIndexByte(text, '\n')+1], "\n")
				lines = lines[:len(lines)-1]
				var acks []string
				for _, line := range lines[seen:] {
					var r struct{ URL, Lease string }
					if err := json.Unmarshal([]byte(line), &r); err != nil {
						t.Fatalf("pop wrote %q: %v", line, err)
					}
					if strings.Contains(r.URL, "delayed") {
						delayed = append(delayed, r.Lease)
					} else {
						acks = append(acks, r.Lease)
						fast++
					}
				}
				seen = len(lines)
				if len(acks) > 0 {
					if _, err := fr.Ack(ctx, acks, time.Now()); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !tc.flows {
				// The four delayed requests fill the window; then nothing
				// more goes out, however long one waits (a second here).
				waitFor(t, "the delayed host's four requests", func() bool { look(); return len(delayed) == 4 })
				time.Sleep(time.Second)
				look()
				if fast != 0 {
					t.Fatalf("with --horizon 0, %d fast requests went out beside 4 held delayed ones (window 4)", fast)
				}
				cancel()
				<-exited
				return
			}
			waitFor(t, "every fast host's request handed out", func() bool { look(); return fast == 20 })
			if len(delayed) != 4 {
				t.Fatalf("%d of the delayed host's requests handed out, want 4", len(delayed))
			}
			if _, err := fr.Ack(ctx, delayed, time.Now()); err != nil {
				t.Fatal(err)
			}
			select {
			case code := <-exited:
				if code != 0 {
					t.Fatalf("pop exited %d: %s", code, errb.String())
				}
			case <-time.After(time.Minute):
				t.Fatal("pop did not end with its crawl")
			}
		})
	}
}
