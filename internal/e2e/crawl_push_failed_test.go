package e2e

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/crawlutils/crawlutils/internal/storage" // the sqlite driver
)

// A run whose cqueue push fails mid-crawl (the db held by another writer
// past --busy-timeout) has exported the items of pages whose acks it
// never stored: they are queued again, and the rerun fetches them and
// exports their items a second time. The failed run says so, and how
// to remove them, as the run after a kill does. (It said
// "0 in flight", and the rerun's duplicates came unannounced.)
func TestCrawlPushFailedSaysWhatTheRerunExportsAgain(t *testing.T) {
	slow := loopSite
	slow.Latency = 10 * time.Millisecond
	l := seededCrawlSite(t, slow)
	c, stdout, stderr := l.startCrawl(`--busy-timeout 1s seeds.txt "$RULES" items.jsonl`)
	l.waitRequests(40, 5*time.Minute)
	// The lock is taken while push and pop write: wait for it (a busy
	// timeout) rather than fail on the first SQLITE_BUSY.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(l.dir, "items.jsonl.db")+"?_pragma=busy_timeout(120000)")
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
	if !strings.Contains(r.stderr, "cqueue: some pages had their items exported to items.jsonl but their acks not stored in the frontier (cqueue push did not get to them): they are queued again, so the next run fetches them again and exports their items again (cdedupe --key .url removes them)") {
		t.Fatalf("the failed run does not say what its rerun exports again:\n%s", r.stderr)
	}
	l.runCrawl(`seeds.txt "$RULES" items.jsonl`).want(t, 0, "complete: nothing is left queued or in flight")
	seen := map[string]int{}
	again := 0
	for _, line := range strings.Split(strings.TrimSpace(l.run(`jq -r .url items.jsonl`)), "\n") {
		if seen[line]++; seen[line] == 2 {
			again++
		}
	}
	if again == 0 {
		t.Errorf("the rerun exported no item again, where the failed run said it would")
	}
}
