package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// TestCrawlFailsWhenRedisRestartsEmpty: a Redis without persistence killed
// mid-crawl and started again comes back empty: the crawl's queue, seen
// set, metadata and run lock are gone. The loop must not end "complete"
// (it did: exit 0, 10 of 973 products missing); it ends failed, saying
// what was lost and how to start over, and running the same command again
// starts the crawl anew and completes it.
func TestCrawlFailsWhenRedisRestartsEmpty(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	srv := redistest.StartServer(t) // --save "" --appendonly no: nothing survives a kill
	slowSite := loopSite
	slowSite.Latency = 20 * time.Millisecond
	l := newCrawlSite(t, bin, slowSite)
	l.writeFile("seeds.txt", l.url+"/\n")
	env := "CRAWLUTILS_REDIS=" + srv.URL()
	c, stdout, stderr := l.startCrawl(`seeds.txt "$RULES" items-0.jsonl`, env)
	for deadline := time.Now().Add(time.Minute); l.site.Stats().Requests < 40 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	srv.Kill()
	srv.Restart()
	r := l.wait(c, stdout, stderr)
	t.Logf("cqueue crawl, Redis killed and restarted empty after %d requests:\n%s", 40, r.stderr)
	r.want(t, 1, `the frontier lost this crawl's state`, "so the crawl cannot be complete",
		"To start over: drop what is left of the crawl (cqueue stop --purge --redis "+srv.URL()+" --crawlid items-0), remove items-0.jsonl, and run the same command with another crawl name (--crawlid items-0-2)")
	if strings.Contains(r.stderr, "complete: nothing is left") || strings.Contains(r.stderr, "to resume") {
		t.Errorf("a crawl whose frontier lost its state says it is complete, or can be resumed:\n%s", r.stderr)
	}
	// Starting over as it says completes the crawl, every product once.
	l.run("cqueue stop --purge --redis " + srv.URL() + " --crawlid items-0 && rm items-0.jsonl")
	l.runCrawl(`seeds.txt "$RULES" items-0.jsonl --crawlid items-0-2`, env).want(t, 0, "complete: nothing is left queued or in flight")
	if dups := l.checkItems(); dups != 0 {
		t.Errorf("%d products exported twice after starting over", dups)
	}
}
