package e2e

import (
	"sort"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// TestCrawlWithThrottle: the crawl loop with cthrottle --rate 20/s in it
// (cqueue crawl --cthrottle) is still exact — every product, every page
// once — and the site sees at most the rate: no more than 20 requests in
// any one second. cthrottle's slots never bunch, but the time a record
// then takes to reach the network varies (cfetch's queue, a loaded
// machine: 28 in a second at load 11), so cfetch keeps its own spacing
// too, counted at the wire, as docs/throttle.md says to for a hard
// ceiling at the site. What cfetch sends by itself does not pass the throttle
// and is left out: robots.txt, and the retry of a page that failed once
// (spaced by its own backoff and Retry-After; docs/throttle.md). The same
// on a Redis Cluster with the crawl split over its masters.
func TestCrawlWithThrottle(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	// On the crawl's SQLite file, and on a Redis Cluster of three masters
	// with the crawl split over them (shards=3): the frontier, its
	// duplicate filter and cthrottle's schedule each in its hosts' shards.
	for _, store := range []string{"sqlite", "sharded_cluster"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			extra := ""
			if store != "sqlite" {
				cluster := redistest.NewCluster(t, redistest.ClusterOptions{})
				extra = ` --redis '` + cluster.URL + `?shards=3'`
			}
			testCrawlWithThrottle(t, extra)
		})
	}
}

func testCrawlWithThrottle(t *testing.T, extra string) {
	const rate = 20
	l := newCrawlSite(t, binDir(t), demosite.Options{Products: 60})
	l.writeFile("seeds.txt", l.url+"/\n")
	start := time.Now()
	l.runCrawl(`seeds.txt "$RULES" items-0.jsonl --cthrottle '--rate 20/s' --cfetch '--delay 50ms --no-random-delay'`+extra).want(t, 0)
	took := time.Since(start)
	if l.checkItems() != 0 {
		t.Error("products exported twice")
	}
	l.checkPerfect(1)

	var times []time.Time
	seen := map[string]bool{}
	for _, r := range l.site.Requests() {
		if r.Path != "/robots.txt" && !seen[r.Path] {
			times = append(times, r.Time)
		}
		seen[r.Path] = true
	}
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	most := 0
	for i := range times {
		n := 0
		// Slots 50 ms apart put 20 starts in 950 ms and the 21st at one
		// second: a start a few ms late at the site (scheduling, a
		// connection) puts it inside. Windows a quarter slot short of a
		// second leave that jitter out.
		for j := i; j < len(times) && times[j].Sub(times[i]) < time.Second-time.Second/rate/4; j++ {
			n++
		}
		most = max(most, n)
	}
	// The site's own clock reads an arrival late on a loaded machine (the
	// race detector, other work): a quarter more is allowed for that; the
	// crawl's length below is the strict check.
	if most > rate+rate/4 {
		t.Errorf("the site saw %d requests in one second, more than --rate %d/s allows", most, rate)
	}
	// The slots are 50 ms apart: the crawl cannot be faster than that.
	if least := time.Duration(len(times)-1) * time.Second / rate; took < least {
		t.Errorf("%d requests in %s, faster than %d/s allows (%s)", len(times), took, rate, least)
	}
	t.Logf("%d requests in %s, at most %d in any second", len(times), took.Round(time.Millisecond), most)
}
