package e2e

import (
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/crawlutils/crawlutils/internal/storage" // the sqlite driver
)

// A run whose cqueue push fails mid-crawl (the db held by another writer
// past --busy-timeout) has exported the items of pages whose acks it
// never stored: they are queued again, and the rerun fetches them and
// exports their items a second time. The failed run says so, with the
// count and how to remove them, as the run after a kill does. (It said
// "0 in flight", and the rerun's duplicates came unannounced.)
func TestCrawlPushFailedSaysWhatTheRerunExportsAgain(t *testing.T) {
	slow := loopSite
	slow.Latency = 10 * time.Millisecond
	l := seededCrawlSite(t, slow)
	c, stdout, stderr := l.startCrawl(`--busy-timeout 1s seeds.txt "$RULES" items.jsonl`)
	l.waitRequests(40, 5*time.Minute)
	db, err := sql.Open("sqlite", filepath.Join(l.dir, "items.jsonl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	r := l.wait(c, stdout, stderr)
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	r.want(t, 1, "cqueue push: frontier: push ", "database is locked")
	m := regexp.MustCompile(`cqueue: (\d+) pages? had their items exported to items.jsonl but their acks not stored in the frontier \(cqueue push did not get to them\): they are queued again, so the next run fetches them again and exports their items again \(cdedupe --key .url removes them\)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("the failed run does not say what its rerun exports again:\n%s", r.stderr)
	}
	said, _ := strconv.Atoi(m[1])
	l.runCrawl(`seeds.txt "$RULES" items.jsonl`).want(t, 0, "complete: nothing is left queued or in flight")
	seen := map[string]int{}
	again := 0
	for _, line := range strings.Split(strings.TrimSpace(l.run(`jq -r .url items.jsonl`)), "\n") {
		if seen[line]++; seen[line] == 2 {
			again++
		}
	}
	t.Logf("the failed run said %d pages; the rerun exported %d again", said, again)
	if again == 0 || again > said {
		t.Errorf("the rerun exported the items of %d pages again; the failed run said %d", again, said)
	}
}
