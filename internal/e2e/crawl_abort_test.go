package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCrawlSecondInterruptWritesStats: a second Ctrl-C ends cqueue crawl
// at once, and its --stats FILE says so ("interrupted", exit 130, why),
// where it stayed "running" from --stats-every before.
func TestCrawlSecondInterruptWritesStats(t *testing.T) {
	site := loopSite
	site.Latency = time.Second // the drain after the first Ctrl-C waits on pages in flight
	l := seededCrawlSite(t, site)
	c, stdout, stderr := l.startCrawl(`--stats acct.json --stats-every 100ms seeds.txt "$RULES" items.csv`)
	stats := filepath.Join(l.dir, "acct.json")
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(stats); err == nil && strings.Contains(string(b), `"state": "running"`) && l.site.Stats().Requests >= 3 {
			break
		}
	}
	// Ctrl-C, and again until it has ended: the second comes while the
	// first's drain waits on the pages in flight.
	exited := make(chan struct{})
	go func() {
		for {
			syscall.Kill(-c.Process.Pid, syscall.SIGINT) // every process, as a terminal does
			select {
			case <-exited:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	r := l.wait(c, stdout, stderr)
	close(exited)
	noProcessesLeft(t, c.Process.Pid)
	if r.code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", r.code, r.stderr)
	}
	var acct struct {
		State    string
		Complete bool
		Exit     *int
		Reasons  []string
		Pages    struct{ Total int64 }
	}
	readJSONFile(t, stats, &acct)
	if acct.State != "interrupted" || acct.Complete || acct.Exit == nil || *acct.Exit != 130 ||
		len(acct.Reasons) == 0 || !strings.Contains(acct.Reasons[len(acct.Reasons)-1], "a second interrupt ended the crawl at once") {
		t.Errorf("--stats after a second interrupt: %+v", acct)
	}
}
