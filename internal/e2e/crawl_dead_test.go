package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A crawl whose loop dead-lettered requests (a loop that died holding
// them too often, leases that expired, a stage that could not read them)
// is missing their pages: it is not complete, though nothing is left
// queued or in flight. The run exits 3, --stats says "incomplete" with
// the count, and the account says how to fetch them in the round; run as
// it says, the rerun fetches them and the round is complete. (The run
// ended "complete: nothing is left queued or in flight", exit 0.)
//
// Here cfetch's answer to one page comes back to the frontier as an ack
// carrying an error, as after the tenth death of a loop holding it: no
// record is rejected on the way.
func TestCrawlDeadLettersAreNotComplete(t *testing.T) {
	l := seededCrawlSite(t, loopSite)
	// cfetch, as cqueue crawl finds it on PATH: the real one, with the
	// response of product 1 turned into an ack with an error.
	real := l.bin
	l.bin = t.TempDir()
	for _, name := range []string{"cqueue", "cextract", "cexport", "cdedupe", "cthrottle"} {
		if err := os.Symlink(filepath.Join(real, name), filepath.Join(l.bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	script := fmt.Sprintf(`#!/bin/bash
set -o pipefail
# the wrapper is the real one's parent, which it watches
if [ -e %[2]q ]; then exec %[1]q "$@"; fi
CRAWLUTILS_SUPERVISOR=$$ %[1]q "$@" | sed -u '/^{"kind":"response","url":"[^"]*_1\/"/ s/.*"lease":"\([^"]*\)".*/{"kind":"ack","lease":"\1","error":"consumer_died"}/'
`, filepath.Join(real, "cfetch"), filepath.Join(l.dir, "healed"))
	if err := os.WriteFile(filepath.Join(l.bin, "cfetch"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := l.runCrawl(`--stats dead.json seeds.txt "$RULES" items.jsonl`)
	r.want(t, 3, "1 request(s) dead-lettered in this run",
		"not complete: 1 request(s) dead-lettered, their pages not fetched; nothing else is left queued or in flight")
	if strings.Contains(r.stderr, "complete: nothing is left") {
		t.Errorf("a crawl missing a page said complete:\n%s", r.stderr)
	}
	var s struct {
		crawlStats
		DeadLettered int64 `json:"dead_lettered"`
	}
	s.crawlStats = l.readStats("dead.json")
	if s.State != "incomplete" || s.Complete || s.Exit == nil || *s.Exit != 3 {
		t.Errorf("--stats of the run: %+v", s.crawlStats)
	}
	// The command the account gives queues the page again in round 1.
	i := strings.Index(r.stderr, "cqueue dump -q ")
	if i < 0 {
		t.Fatalf("the account gives no command to queue them again:\n%s", r.stderr)
	}
	requeue := strings.TrimSpace(strings.SplitN(r.stderr[i:], "\n", 2)[0])
	l.writeFile("healed", "")
	l.run(requeue)
	again := l.runCrawl(`--stats again.json seeds.txt "$RULES" items.jsonl`)
	again.want(t, 0, "complete: nothing is left queued or in flight")
	if round, state := l.roundOf("items.jsonl.db", "items"); round != 1 || state != "complete" {
		t.Errorf("after the rerun, cqueue info says round %d %q, want round 1 complete", round, state)
	}
	if n := strings.Count(l.run(`cat items.jsonl`), `_1/"`); n != 1 {
		t.Errorf("product 1 exported %d times, want once", n)
	}
}
