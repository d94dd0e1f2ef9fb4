package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/redistest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// The cron recipe (docs/cron.md), three rounds of one crawl against a
// demo site that changes between them: each round fetches again, with
// conditional requests, only what changed comes back in full, and the
// database export keeps the last version of every product and the
// history of its changes.

// recrawlArgs is docs/cron.md's crawl (without -q, and without --refresh:
// the rounds here are seconds apart): items into an SQLite table, only
// what changed, with its history; cfetch's HTTP cache revalidates. The
// frontier is added: --db crawl.db, or Redis from the environment.
const recrawlArgs = `seeds.txt "$RULES" 'sqlite:shop.db?table=products' --stats round.json ` +
	`--cfetch '--cache-dir cache --cache-policy rfc9111' --cexport '--key url --changed-only --history'`

// productRow is a row of the products table or its history.
type productRow struct {
	URL, Title, Price, Change string
	Round                     int
}

func readProducts(t *testing.T, path, table string) []productRow {
	t.Helper()
	db, err := storage.OpenDB(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cols := "url, title, price, '', 0"
	if strings.HasSuffix(table, "_history") {
		cols = "url, coalesce(title, ''), price, change, round"
	}
	rows, err := db.Query("SELECT " + cols + " FROM " + table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []productRow
	for rows.Next() {
		var r productRow
		var price sql.NullString
		if err := rows.Scan(&r.URL, &r.Title, &price, &r.Change, &r.Round); err != nil {
			t.Fatal(err)
		}
		r.Price = price.String
		out = append(out, r)
	}
	return out
}

// roundAccount is what the test reads of cqueue crawl's --stats.
type roundAccount struct {
	Round int `json:"round"`
	State string
	Pages struct {
		Total    int64
		ByStatus map[string]int64 `json:"by_status"`
	}
	Tools map[string]struct {
		Counts  map[string]map[string]int64 `json:"counts"`
		BytesIn int64                       `json:"bytes_in"`
	} `json:"tools"`
}

func (l *loop) readAccount(name string) roundAccount {
	l.t.Helper()
	var a roundAccount
	b, err := os.ReadFile(filepath.Join(l.dir, name))
	if err == nil {
		err = json.Unmarshal(b, &a)
	}
	if err != nil {
		l.t.Fatalf("%s: %v", name, err)
	}
	return a
}

func TestRecrawlRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	bin := binDir(t)
	t.Run("sqlite", func(t *testing.T) { recrawlRounds(t, bin, " --db crawl.db") })
	t.Run("redis", func(t *testing.T) { recrawlRounds(t, bin, "", "CRAWLUTILS_REDIS="+redistest.Start(t)) })
}

// recrawlRounds runs three rounds with the frontier flags and environment
// given.
func recrawlRounds(t *testing.T, bin, frontierArgs string, env ...string) {
	l := newCrawlSite(t, bin, demosite.Options{Products: 300, Round: 1})
	l.writeFile("seeds.txt", l.url+"/\n")
	site := l.site
	var truths [][]demosite.Product
	var hist []productRow
	for round := 1; round <= 3; round++ {
		site.SetRound(round)
		truths = append(truths, site.Truth())
		before := len(site.Requests())
		r := l.runCrawl(recrawlArgs+frontierArgs, env...)
		r.want(t, 0, "complete: nothing is left queued or in flight")
		if round > 1 {
			r.want(t, 0, fmt.Sprintf("round %d begins", round))
		}
		acct := l.readAccount("round.json")
		if acct.Round != round || acct.State != "complete" {
			t.Fatalf("round %d: account says round %d, state %s", round, acct.Round, acct.State)
		}

		// The table: the last version of every product ever seen.
		latest := map[string]demosite.Product{}
		for _, tr := range truths {
			for _, p := range tr {
				latest[p.AbsURL(l.url)] = p
			}
		}
		rows := readProducts(t, filepath.Join(l.dir, "shop.db"), "products")
		if len(rows) != len(latest) {
			t.Errorf("round %d: %d rows in products, want %d", round, len(rows), len(latest))
		}
		for _, row := range rows {
			if p, ok := latest[row.URL]; !ok || p.Price != row.Price || p.Title != row.Title {
				t.Errorf("round %d: row %+v, want %+v", round, row, p)
			}
		}

		// The history: this round added exactly the new and changed products.
		want := changedProducts(truths, l.url)
		all := readProducts(t, filepath.Join(l.dir, "shop.db"), "products_history")
		added := all[len(hist):]
		hist = all
		var got []string
		for _, row := range added {
			if row.Round != round {
				t.Errorf("round %d: history row of round %d: %+v", round, row.Round, row)
			}
			got = append(got, row.Change+" "+row.URL+" "+row.Price)
		}
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("round %d: history added %d rows, want %d:\n got %q\nwant %q", round, len(got), len(want), got, want)
		}
		ex := acct.Tools["cexport"].Counts["changes"]
		t.Logf("round %d: %d pages %v; cexport changes %v; cfetch unchanged %v", round, acct.Pages.Total, acct.Pages.ByStatus, ex,
			acct.Tools["cfetch"].Counts["unchanged"])

		// Round 2 and 3 fetch in full only the product pages that changed
		// (or that send no validator); the others answer 304.
		if round > 1 {
			full, notModified := map[string]bool{}, 0
			for _, req := range site.Requests()[before:] {
				id := site.ProductID(req.Path)
				if id == 0 {
					continue
				}
				switch req.Status {
				case 200:
					full[fmt.Sprint(id)] = true
				case 304:
					notModified++
				}
			}
			for _, p := range truths[round-1] {
				id := site.ProductID(p.URL)
				changed := demosite.RoundChange(id, round) != ""
				noValidator := id%10 == 3
				if full[fmt.Sprint(id)] != (changed || noValidator) {
					t.Errorf("round %d: product %d (change %q) fetched in full: %v", round, id, demosite.RoundChange(id, round), full[fmt.Sprint(id)])
				}
			}
			if notModified == 0 {
				t.Errorf("round %d: no 304", round)
			}
			if n := acct.Tools["cfetch"].Counts["unchanged"]["bytes_saved"]; n == 0 {
				t.Errorf("round %d: cfetch saved no bytes", round)
			}
		}
	}
}

// changedProducts lists, as "change url price", the products of the last
// truth that are new or differ from the one before, and those of the one
// before that it lacks (gone).
func changedProducts(truths [][]demosite.Product, base string) []string {
	last := truths[len(truths)-1]
	prev := map[string]demosite.Product{}
	if len(truths) > 1 {
		for _, p := range truths[len(truths)-2] {
			prev[p.URL] = p
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range last {
		seen[p.URL] = true
		old, ok := prev[p.URL]
		switch {
		case !ok:
			out = append(out, "new "+p.AbsURL(base)+" "+p.Price)
		case old != p:
			out = append(out, "changed "+p.AbsURL(base)+" "+p.Price)
		}
	}
	// A product of the round before that this one lacks is gone: its row
	// has its key (url), no price.
	for u, p := range prev {
		if !seen[u] {
			out = append(out, "gone "+p.AbsURL(base)+" ")
		}
	}
	sort.Strings(out)
	return out
}

// TestRecrawlLock: a second run of a crawl while one runs exits 4 at once,
// saying so; after the first is killed, the next run takes the lock over
// and finishes the round.
func TestRecrawlLock(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	bin := binDir(t)
	t.Run("sqlite", func(t *testing.T) { recrawlLock(t, bin) })
	t.Run("redis", func(t *testing.T) { recrawlLock(t, bin, "CRAWLUTILS_REDIS="+redistest.Start(t)) })
}

func recrawlLock(t *testing.T, bin string, env ...string) {
	slow := loopSite
	slow.Latency = 20 * time.Millisecond
	l := newCrawlSite(t, bin, slow)
	l.writeFile("seeds.txt", l.url+"/\n")
	c, _, _ := l.startCrawl(`seeds.txt "$RULES" items.jsonl`, env...)
	deadline := time.Now().Add(20 * time.Second)
	for len(l.site.Requests()) < 5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	r := l.runCrawl(`seeds.txt "$RULES" items.jsonl`, env...)
	r.want(t, 4, `cqueue: crawl "items" is already running on this machine (pid `)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the second run took %s to give up", d)
	}
	syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	c.Wait()
	noProcessesLeft(t, c.Process.Pid)
	r = l.runCrawl(`seeds.txt "$RULES" items.jsonl`, env...)
	r.want(t, 0, "complete: nothing is left queued or in flight")
}
