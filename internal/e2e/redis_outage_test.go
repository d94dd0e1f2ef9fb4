package e2e

import (
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// TestLoopRidesOutARedisOutage: a crawl loop on Redis loses its server
// for 10 s mid-crawl, once with the server stopped (SIGSTOP: connections
// hang until their timeouts) and once killed and restarted on the same
// port from its append-only file (appendfsync always: connections
// refused, then a server that has forgotten its scripts). Every tool
// retries, says so on stderr, and goes on: the loop ends by itself with
// every process exiting 0, every product exported once, and the site
// having seen exactly the requests of a perfect crawl — nothing dropped,
// nothing fetched twice.
func TestLoopRidesOutARedisOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("timed pipelines are skipped with -short")
	}
	bin := binDir(t)
	site := loopSite
	site.Latency = 40 * time.Millisecond // the outage lands mid-crawl
	for _, mode := range []string{"paused", "killed_and_restarted", "killed_and_restarted_everysec"} {
		t.Run(mode, func(t *testing.T) {
			fsync := "always"
			if strings.HasSuffix(mode, "_everysec") {
				fsync = "everysec"
			}
			srv := redistest.StartServer(t, "--appendonly", "yes", "--appendfsync", fsync)
			l := &loop{t: t, site: demosite.New(site), dir: t.TempDir(), bin: bin, db: "--redis " + srv.URL()}
			hs := httptest.NewServer(l.site)
			t.Cleanup(hs.Close)
			l.url = hs.URL
			l.run("echo \"$SITE/\" | cqueue push -q $DB --crawlid demo --appid demo")

			c := l.cmd(l.script(0))
			var stderr syncBuf
			c.Stderr = &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			l.waitRequests(60, 30*time.Second)
			before := l.site.Stats().Requests
			if mode == "paused" {
				srv.Pause()
				time.Sleep(10 * time.Second)
				srv.Resume()
			} else {
				// Writes going on: the kill lands between them.
				srv.Kill()
				time.Sleep(10 * time.Second)
				srv.Restart()
			}
			t.Logf("outage after %d requests", before)
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("loop: %v\n%s", err, stderr.String())
				}
			case <-time.After(2 * time.Minute):
				syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				t.Fatalf("the loop did not end by itself:\n%s", stderr.String())
			}
			if st := l.status(0); st != "0 0 0 0 0" {
				t.Errorf("exit statuses %q, want all 0; stderr:\n%s", st, stderr.String())
			}
			if l.site.Stats().Requests <= before {
				t.Errorf("the outage did not land mid-crawl: %d requests before it, %d in all", before, l.site.Stats().Requests)
			}
			dups := l.checkItems() // every product exported, or the test fails
			if fsync == "everysec" {
				// A kill loses up to a second of writes: the state goes
				// back to an earlier point and what was done since is done
				// again. Measured, not asserted.
				st := l.site.Stats()
				t.Logf("everysec: %d products exported twice, %d requests the site saw twice, of %d; frontier stats %s",
					dups, st.Duplicates, st.Requests, strings.TrimSpace(l.run("cqueue stats $DB | jq -c .counters")))
			} else {
				if dups != 0 {
					t.Errorf("%d products exported twice", dups)
				}
				l.checkPerfect(1)
			}
			out := stderr.String()
			for _, want := range []string{"retrying for up to", "reachable again after"} {
				if !strings.Contains(out, want) {
					t.Errorf("stderr does not say %q:\n%s", want, out)
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if line != "" && !strings.Contains(line, ": warning: Redis at ") {
					t.Errorf("stderr line not a warning of ours: %q", line)
				}
			}
			if testing.Verbose() {
				os.Stderr.WriteString(out)
			}
		})
	}
}

// syncBuf is a strings.Builder safe for the writes of a process's stderr
// and the test's reads.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
