package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// budgetPages is the budget of the budgeted crawls: a fraction of the
// demo site's several hundred pages.
const budgetPages = 60

// budgetSlack is how far loops sharing a crawl may go past its max_pages:
// one in-flight batch, the pipeline's --window (two pops reading the pages
// left at the same moment each hand out up to them, at most a window).
const budgetSlack = 32

// TestBudgetSharedByTwoLoops: two crawl loops (pipeline(i), each a window
// of 32) share one crawl whose budget (max_pages, pushed as a request
// field) is a fraction of the site. They stop by themselves, every tool
// exiting 0, once the crawl's pages reach it: no more than one in-flight
// batch past it, what was fetched is counted once, and the rest stays
// queued; cqueue info tells the crawl stopped, and why. On an SQLite file
// and on Redis.
func TestBudgetSharedByTwoLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	bin := binDir(t)
	for _, backend := range []string{"sqlite", "redis"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			var l *loop
			if backend == "redis" {
				l = newRedisLoop(t, bin, redistest.Start(t)+"?prefix=budget:", loopSite)
			} else {
				l = newLoop(t, bin)
			}
			l.run(fmt.Sprintf(`echo '{"url":"'"$SITE"'/","crawlid":"demo","appid":"demo","max_pages":%d}' | cqueue push -q $DB`, budgetPages))
			ws := l.startWorkers(2, false)
			for i, w := range ws {
				l.waitWorker(i, w)
			}
			for i := range 2 {
				if st := l.status(i); st != "0 0 0 0 0" {
					t.Errorf("loop %d: exit statuses %q, want all 0", i, st)
				}
			}
			fr, err := frontier.Open(context.Background(), strings.TrimPrefix(strings.TrimPrefix(l.db, "--db "), "--redis "), frontier.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer fr.Close()
			m, err := fr.CrawlMeta(context.Background(), "demo")
			if err != nil {
				t.Fatal(err)
			}
			c := frontier.CountsOf(m)
			st := l.site.Stats()
			fetched := st.Requests - st.RobotsTxt
			t.Logf("%s: %d pages counted, %d errors, %d items; the site answered %d requests (%d robots.txt)", backend, c.Pages, c.Errors, c.Items, st.Requests, st.RobotsTxt)
			if c.Pages < budgetPages || c.Pages+c.Errors > budgetPages+budgetSlack {
				t.Errorf("%d pages and %d errors counted for a budget of %d pages (at most one batch of %d past it)", c.Pages, c.Errors, budgetPages, budgetSlack)
			}
			// The site also answers the hops of redirects (each a page) and
			// the retries of its one-time failures: a few more.
			if int64(fetched) > budgetPages+budgetSlack+8 || int64(fetched) < c.Pages {
				t.Errorf("the site answered %d page requests; %d pages counted, budget %d", fetched, c.Pages, budgetPages)
			}
			info := l.run("cqueue info -q $DB --crawlid demo")
			if !strings.Contains(info, `"state":"stopped"`) || !strings.Contains(info, fmt.Sprintf(`"stop_reason":"max_pages reached (%d)"`, budgetPages)) ||
				strings.Contains(info, `"total_pending":0,`) {
				t.Errorf("info after the budget: %s", info)
			}
		})
	}
}

// TestCqueueCrawlBudget: cqueue crawl --max-pages stops the crawl once
// its pages reach the budget (exit 5, the account says why and how to go
// on); a rerun does nothing and says how to raise it; a rerun with a
// larger budget goes on to the end.
func TestCqueueCrawlBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	l := newCrawlSite(t, binDir(t), loopSite)
	l.writeFile("seeds.txt", l.url+"/\n")
	r := l.runCrawl(`--stats acct.json seeds.txt "$RULES" items-0.jsonl --max-pages 20`)
	r.want(t, 5, "cqueue: stopped: max_pages reached (20) (the crawl's round 1: ",
		"the next run does nothing until it is given a larger --max-pages (--max-pages 40; 0: no limit), or --next-round (begin round 2 over)\n")
	acct := l.run("cat acct.json")
	if !strings.Contains(acct, `"state": "stopped"`) || !strings.Contains(acct, `"stop_reason": "max_pages reached (20)"`) {
		t.Errorf("account: %s", acct)
	}
	r = l.runCrawl(`seeds.txt "$RULES" items-0.jsonl`)
	r.want(t, 5, `cqueue: crawl "items-0": stopped: max_pages reached (20) in round 1 (`,
		"this run does nothing. To go on, run the same command with a larger --max-pages (--max-pages 40; 0: no limit); to begin the next round over from the seeds, run it with --next-round\n")
	r = l.runCrawl(`seeds.txt "$RULES" items-0.jsonl --max-pages 0`)
	r.want(t, 0, "cqueue: complete: nothing is left queued or in flight\n")
	if dups := l.checkItems(); dups != 0 {
		t.Errorf("%d products exported twice", dups)
	}
}
