package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// How a run of cqueue crawl ends when it does not crawl to the end: a
// --refresh run with nothing due, a crawl stopped by cqueue stop.

// crawlStats is the part of cqueue crawl's --stats FILE these tests read.
type crawlStats struct {
	State    string   `json:"state"`
	Complete bool     `json:"complete"`
	Round    int      `json:"round"`
	Exit     *int     `json:"exit"`
	Reasons  []string `json:"reasons"`
	Pages    struct {
		Total int64 `json:"total"`
	} `json:"pages"`
	Left struct {
		Queued   int64 `json:"queued"`
		InFlight int64 `json:"in_flight"`
	} `json:"left"`
}

func (l *loop) readStats(name string) crawlStats {
	l.t.Helper()
	var s crawlStats
	b, err := os.ReadFile(filepath.Join(l.dir, name))
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		l.t.Fatalf("--stats %s: %v", name, err)
	}
	return s
}

// roundOf is the crawl's round and round_state, as cqueue info says.
func (l *loop) roundOf(db, crawlID string) (int, string) {
	l.t.Helper()
	var info struct {
		Crawls []struct {
			Round      int    `json:"round"`
			RoundState string `json:"round_state"`
		} `json:"crawls"`
	}
	out := l.run(`cqueue info --db ` + db + ` --crawlid ` + crawlID)
	if err := json.Unmarshal([]byte(out), &info); err != nil || len(info.Crawls) != 1 {
		l.t.Fatalf("cqueue info: %v: %s", err, out)
	}
	return info.Crawls[0].Round, info.Crawls[0].RoundState
}

func crawlEndSetup(t *testing.T) *loop {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	l := newCrawlSite(t, binDir(t), loopSite)
	l.writeFile("seeds.txt", l.url+"/\n")
	return l
}

// A --refresh run with nothing due writes its --stats (a monitor must not
// read last night's file) and leaves no round shown as running.
func TestCrawlNothingDueWritesStats(t *testing.T) {
	l := crawlEndSetup(t)
	l.runCrawl(`--stats night1.json --refresh 24h seeds.txt "$RULES" items.jsonl`).want(t, 0, "complete: nothing is left queued or in flight")
	if s := l.readStats("night1.json"); s.State != "complete" || s.Round != 1 {
		t.Fatalf("night 1: %+v", s)
	}
	r := l.runCrawl(`--stats night2.json --refresh 24h seeds.txt "$RULES" items.jsonl`)
	r.want(t, 0, `every seed was fetched in a round begun less than 24h0m0s ago (--refresh): nothing to crawl`)
	s := l.readStats("night2.json")
	if s.State != "nothing_due" || !s.Complete || s.Round != 1 || s.Exit == nil || *s.Exit != 0 || s.Pages.Total != 0 || len(s.Reasons) != 1 {
		t.Errorf("night 2's --stats: %+v", s)
	}
	if round, state := l.roundOf("items.jsonl.db", "items"); round != 1 || state != "complete" {
		t.Errorf("after a run with nothing due, cqueue info says round %d %q, want round 1 complete", round, state)
	}
	// Without --refresh, the next run begins round 2 as it would have.
	l.runCrawl(`seeds.txt "$RULES" items.jsonl`).want(t, 0, `crawl "items": round 2 begins (round 1 was complete)`)
}
