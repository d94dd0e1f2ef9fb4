package crawl

import (
	"slices"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// The account says "unchanged" only for the pages the server answered
// 304, and names apart the pages cfetch's cache answered without asking.
func TestAccountUnchangedAndFromCache(t *testing.T) {
	c := &crawl{o: crawlOptions{crawlID: "items", out: "items.csv", dsn: "crawl.db"}, start: time.Now()}
	a := c.account(loopStats{"cfetch": &cli.StatsJSON{Out: 5, Counts: map[string]map[string]int64{
		"status":     {"200": 5},
		"unchanged":  {"responses": 3, "bytes_saved": 2048},
		"from_cache": {"responses": 2},
	}}})
	if a.Pages.Unchanged != 3 || a.Pages.BytesSaved != 2048 || a.Pages.FromCache != 2 {
		t.Errorf("pages %+v", a.Pages)
	}
	lines := c.accountLines(a)
	for _, want := range []string{
		"3 pages unchanged since the last round (304: 2.0 KiB not sent again)",
		"2 pages answered from cfetch's cache without asking the server (they may have changed)",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("account lacks %q:\n%q", want, lines)
		}
	}
}
