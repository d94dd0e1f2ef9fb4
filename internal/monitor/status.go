package monitor

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/statspub"
)

// A crawl's status on the page and in /crawls: what it is doing, not only
// the frontier's state (active, stopped, expired), which says "active"
// for a crawl long finished.
const (
	statusRunning  = "running"  // work left, and a tool or a lease working on it
	statusPaused   = "paused"   // paused (cqueue serve's Pause)
	statusStopped  = "stopped"  // stopped (cqueue stop, or Stop)
	statusExpired  = "expired"  // purged by its expiry
	statusComplete = "complete" // nothing left queued or in flight
	statusIdle     = "idle"     // work left, but nothing working on it
)

// statusOf is a crawl's status; working says a tool of the crawl is
// running (its stats published, not exited).
func statusOf(c frontier.CrawlInfo, meta map[string]string, working bool) string {
	switch {
	case c.State == frontier.StateStopped || meta[frontier.MetaStopped] != "":
		return statusStopped
	case c.State == frontier.StateExpired:
		return statusExpired
	case meta[frontier.MetaPaused] == "1":
		return statusPaused
	case c.Pending+c.InFlight == 0:
		return statusComplete
	case working || c.InFlight > 0:
		return statusRunning
	}
	return statusIdle
}

// totalsJSON are a crawl's totals as its tools published them (or, once
// they are gone, as cqueue crawl's last run left them in its metadata).
type totalsJSON struct {
	Pages  int64 `json:"pages"`
	Items  int64 `json:"items"`
	Errors int64 `json:"errors"`
}

// totalsOf adds up the last published stats of crawl id's tools: pages
// (cfetch's responses), items (cexport's, else cextract's) and failed
// fetches; working says one of them has not exited.
func totalsOf(snaps []statspub.Snapshot, id string) (t totalsJSON, ok, working bool) {
	var extracted int64
	exporter := false
	for _, s := range snaps {
		if s.CrawlID != id {
			continue
		}
		ok = true
		working = working || !s.Exited
		st := readStats(s)
		switch s.Tool {
		case "cfetch":
			t.Pages += FetchedPages(st)
			for _, n := range httpErrors(st) {
				t.Errors += n
			}
		case "cexport":
			t.Items += st.Out
			exporter = true
		case "cextract":
			extracted += st.Counts["items"]["emitted"]
		}
	}
	if !exporter {
		t.Items = extracted
	}
	return t, ok, working
}

// MetaLastRun is the crawl metadata key where cqueue crawl leaves the
// totals of its last run (JSON: pages, items, errors, state, exit), for
// a monitor once the tools' stats are gone.
const MetaLastRun = "last_run"

// lastRunTotals reads MetaLastRun.
func lastRunTotals(meta map[string]string) (totalsJSON, bool) {
	var t totalsJSON
	if meta[MetaLastRun] == "" || json.Unmarshal([]byte(meta[MetaLastRun]), &t) != nil {
		return t, false
	}
	return t, true
}

// elapsedOf is how long the crawl's current round has run: from its
// start to its end (finished, or stopped) or to now, from the metadata
// cqueue crawl keeps; ok is false for a crawl it does not run.
func elapsedOf(meta map[string]string, now time.Time) (round int, started string, elapsed float64, ok bool) {
	round, _ = strconv.Atoi(meta[frontier.MetaRound])
	if round < 1 {
		return 0, "", 0, false
	}
	r := strconv.Itoa(round)
	started = meta["round_"+r+"_started_at"]
	t0, err := time.Parse(time.RFC3339, started)
	if err != nil {
		return round, "", 0, false
	}
	end := now
	for _, k := range []string{"round_" + r + "_finished_at", frontier.MetaStopped} {
		if t, err := time.Parse(time.RFC3339, meta[k]); err == nil && meta["round_state"] != "running" {
			end = t
			break
		}
	}
	return round, started, max(0, end.Sub(t0).Seconds()), true
}
