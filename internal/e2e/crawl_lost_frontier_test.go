package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrawlFrontierLostSaysSo: a crawl whose frontier has no record of it
// (its --db deleted, a Redis that restarted empty) while its export holds
// items is refused, saying why and how to go on, with nothing stored: it
// began over at round 1 and exported every item into OUT a second time,
// with a line on stderr (at first without a word). With --force it
// begins at round 1 and says so.
func TestCrawlFrontierLostSaysSo(t *testing.T) {
	l := seededCrawlSite(t, loopSite)
	l.runCrawl(`seeds.txt "$RULES" items.csv`).want(t, 0, "cqueue: complete: nothing is left queued or in flight\n")
	if err := os.Remove(filepath.Join(l.dir, "items.csv.db")); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(l.dir, "items.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // refused again: the refused run stored nothing
		l.runCrawl(`seeds.txt "$RULES" items.csv`).want(t, 2,
			`cqueue: crawl "items": the frontier items.csv.db has no record of it, but items.csv exists: if the crawl ran before, its frontier was lost`,
			`To start over, remove items.csv (or export to another file); to add this crawl's items to it all the same, use --force`)
	}
	if after, _ := os.ReadFile(filepath.Join(l.dir, "items.csv")); string(after) != string(before) {
		t.Errorf("the refused run changed items.csv")
	}
	l.runCrawl(`--force seeds.txt "$RULES" items.csv`).want(t, 0,
		`cqueue: crawl "items": the frontier (items.csv.db) has no record of it, but items.csv exists: the crawl begins at round 1`)
	// A crawl the frontier knows says nothing of the kind.
	if r := l.runCrawl(`seeds.txt "$RULES" items.csv`); r.code != 0 || strings.Contains(r.stderr, "has no record of it") {
		t.Errorf("the next round: exit %d\n%s", r.code, r.stderr)
	}
}
