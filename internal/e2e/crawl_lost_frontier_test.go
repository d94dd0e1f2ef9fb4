package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrawlFrontierLostSaysSo: a crawl whose frontier has no record of it
// (its --db deleted, a Redis that restarted empty) while its export holds
// items begins at round 1 and says why, where it began over without a
// word.
func TestCrawlFrontierLostSaysSo(t *testing.T) {
	l := seededCrawlSite(t, loopSite)
	l.runCrawl(`seeds.txt "$RULES" items.csv`).want(t, 0, "cqueue: complete: nothing is left queued or in flight\n")
	if err := os.Remove(filepath.Join(l.dir, "items.csv.db")); err != nil {
		t.Fatal(err)
	}
	l.runCrawl(`seeds.txt "$RULES" items.csv`).want(t, 0,
		`cqueue: crawl "items": the frontier (items.csv.db) has no record of it, but items.csv exists: the crawl begins at round 1`)
	// A crawl the frontier knows says nothing of the kind.
	if r := l.runCrawl(`seeds.txt "$RULES" items.csv`); r.code != 0 || strings.Contains(r.stderr, "has no record of it") {
		t.Errorf("the next round: exit %d\n%s", r.code, r.stderr)
	}
}
