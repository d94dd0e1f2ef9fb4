package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// TestCqueueCrawlPublishesToolStats: cqueue crawl publishes its tools'
// stats to its frontier while the loop runs, one snapshot per process
// named by the crawl, and each one's last with its exit status: in the
// SQLite file and in Redis.
func TestCqueueCrawlPublishesToolStats(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	for _, store := range []string{"sqlite", "redis"} {
		t.Run(store, func(t *testing.T) {
			opts := loopSite
			opts.Latency = 10 * time.Millisecond // a crawl of a few seconds
			l := newCrawlSite(t, bin, opts)
			l.writeFile("seeds.txt", l.url+"/\n")
			dsn, env := filepath.Join(l.dir, "items.jsonl.db"), []string(nil)
			if store == "redis" {
				dsn = redistest.Start(t)
				env = []string{"CRAWLUTILS_REDIS=" + dsn}
			}
			// A stale variable meant for a hand-built loop changes nothing.
			env = append(env, "CRAWLUTILS_STATS_TO="+filepath.Join(l.dir, "elsewhere.db"))
			c, stdout, stderr := l.startCrawl(`--publish-every 200ms seeds.txt "$RULES" items.jsonl`, env...)

			ctx := context.Background()
			var st toolstats.Store
			list := func() []statspub.Snapshot {
				t.Helper()
				if st == nil {
					s, err := toolstats.Open(ctx, dsn, toolstats.Options{})
					if err != nil {
						return nil // the frontier is not made yet
					}
					st = s
					t.Cleanup(func() { s.Close() })
				}
				snaps, err := st.List(ctx, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				return snaps
			}
			// While it runs: the five tools, running, with the crawl's id.
			running := ""
			deadline := time.Now().Add(time.Minute)
			for running != "cexport cextract cfetch cqueue pop cqueue push" && time.Now().Before(deadline) {
				var names []string
				for _, s := range list() {
					if !s.Exited && s.CrawlID == "items" {
						names = append(names, s.Tool)
					}
				}
				running = strings.Join(names, " ")
				time.Sleep(50 * time.Millisecond)
			}
			if running != "cexport cextract cfetch cqueue pop cqueue push" {
				t.Errorf("while the crawl ran, the tools published were %q", running)
			}
			l.wait(c, stdout, stderr).want(t, 0, "complete: nothing is left queued or in flight")

			// At the end: each one's last snapshot, exit 0; cexport's has
			// every item.
			snaps := list()
			var got []string
			for _, s := range snaps {
				var stats cli.StatsJSON
				json.Unmarshal(s.Stats, &stats)
				exit := -1
				if s.Exit != nil {
					exit = *s.Exit
				}
				got = append(got, fmt.Sprintf("%s %s %v %d", s.Tool, s.CrawlID, s.Exited, exit))
				if s.Tool == "cexport" && stats.Out != int64(len(l.site.Truth())) {
					t.Errorf("cexport's last stats: out %d, want %d", stats.Out, len(l.site.Truth()))
				}
			}
			want := "cexport items true 0, cextract items true 0, cfetch items true 0, cqueue pop items true 0, cqueue push items true 0"
			if strings.Join(got, ", ") != want {
				t.Errorf("the last snapshots: %s\nwant %s", strings.Join(got, ", "), want)
			}
		})
	}
}
