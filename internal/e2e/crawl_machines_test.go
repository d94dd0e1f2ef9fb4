package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// TestCrawlOnTwoMachines: the same cqueue crawl on two machines, on one
// Redis frontier (docs/distributed.md), is one crawl: the second run joins
// the first (each machine holds a run lock of its own), every product is
// exported once by one of them, no page is fetched twice, and both end
// complete. The second machine is this one under another host name (a
// UTS namespace of its own: unshare, as root).
func TestCrawlOnTwoMachines(t *testing.T) {
	site := loopSite
	site.Latency = 50 * time.Millisecond // the second machine starts while the first crawls
	l := seededCrawlSite(t, site)
	if out, err := exec.Command("unshare", "--uts", "sh", "-c", "hostname crawler-b").CombinedOutput(); err != nil {
		t.Skipf("no second host name on this machine (unshare --uts, as root): %v: %s", err, out)
	}
	redis := "CRAWLUTILS_REDIS=" + redistest.Start(t)
	if err := os.Mkdir(filepath.Join(l.dir, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	l.run(`cp seeds.txt b/seeds.txt`)
	a, aOut, aErr := l.startCrawl(`--crawlid shop seeds.txt "$RULES" items-0.jsonl`, redis)
	l.waitRequests(5, time.Minute)
	wd, _ := os.Getwd()
	b := l.cmd(`cd "$W/b" && exec unshare --uts sh -c 'hostname crawler-b && exec cqueue crawl --crawlid shop seeds.txt "$RULES" items-0.jsonl'`)
	b.Env = append(b.Env, redis, "RULES="+filepath.Join(wd, "../../testdata/rules/demo.yml"))
	var bOut, bErr strings.Builder
	b.Stdout, b.Stderr = &bOut, &bErr
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	rb := l.wait(b, &bOut, &bErr)
	ra := l.wait(a, aOut, aErr)
	ra.want(t, 0, "cqueue: complete: nothing is left queued or in flight\n")
	rb.want(t, 0, "cqueue: complete: nothing is left queued or in flight\n")
	if strings.Contains(rb.stderr, "already running") {
		t.Fatalf("the second machine did not join:\n%s", rb.stderr)
	}
	l.run(`cp b/items-0.jsonl items-1.jsonl`)
	if dups := l.checkItems(); dups != 0 {
		t.Errorf("%d products exported twice", dups)
	}
	if n := len(l.items()); n == 0 {
		t.Fatal("nothing exported")
	}
	// Both machines crawled: neither stood by while the other did it all.
	for name, path := range map[string]string{"a": "items-0.jsonl", "b": "items-1.jsonl"} {
		if fi, err := os.Stat(filepath.Join(l.dir, path)); err != nil || fi.Size() == 0 {
			t.Errorf("machine %s exported nothing (%v)", name, err)
		}
	}
	l.checkPerfect(2) // a robots.txt for each machine's cfetch
}
