package e2e

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

// How a run of cqueue crawl ends when it does not crawl to the end: a
// --refresh run with nothing due, a crawl stopped by cqueue stop.

// crawlStats is the part of cqueue crawl's --stats FILE these tests read.
type crawlStats struct {
	State      string   `json:"state"`
	Complete   bool     `json:"complete"`
	Round      int      `json:"round"`
	Exit       *int     `json:"exit"`
	Reasons    []string `json:"reasons"`
	StoppedAt  string   `json:"stopped_at"`
	StopReason string   `json:"stop_reason"`
	PausedAt   string   `json:"paused_at"`
	Pages      struct {
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

func crawlEndSetup(t *testing.T, site demosite.Options) *loop {
	if testing.Short() {
		t.Skip("crawl loops are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	l := newCrawlSite(t, binDir(t), site)
	l.writeFile("seeds.txt", l.url+"/\n")
	return l
}

// A --refresh run with nothing due writes its --stats (a monitor must not
// read last night's file) and leaves no round shown as running.
func TestCrawlNothingDueWritesStats(t *testing.T) {
	l := crawlEndSetup(t, loopSite)
	l.runCrawl(`--stats night1.json --refresh 24h seeds.txt "$RULES" items.jsonl`).want(t, 0, "complete: nothing is left queued or in flight")
	if s := l.readStats("night1.json"); s.State != "complete" || s.Round != 1 {
		t.Fatalf("night 1: %+v", s)
	}
	r := l.runCrawl(`--stats night2.json --refresh 24h seeds.txt "$RULES" items.jsonl`)
	r.want(t, 0, `cqueue: crawl "items" round 2: every seed was fetched in a round begun less than 24h0m0s ago (--refresh): nothing to crawl (round 1 stays the last)`)
	if strings.Contains(r.stderr, "begins") {
		t.Errorf("a run with nothing due says a round begins:\n%s", r.stderr)
	}
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

// A run that does nothing — another run holds the crawl's lock (exit 4),
// the crawl is at the end of its budget or stopped (5), it is paused (6)
// — writes its --stats all the same, with its state and exit status: a
// monitor must not read the last run's file as this one's.
func TestCrawlRunsThatDoNothingWriteStats(t *testing.T) {
	l := crawlEndSetup(t, loopSite)
	l.runCrawl(`-q --max-pages 5 --stats first.json seeds.txt "$RULES" items.csv`).want(t, 5)
	// doNothing runs the crawl with --stats over last night's file, and
	// requires exit status code, nothing fetched, and the file rewritten.
	doNothing := func(name string, code int) crawlStats {
		t.Helper()
		l.writeFile(name, `{"state":"complete","complete":true,"round":1,"exit":0}`+"\n")
		before := l.site.Stats().Requests
		r := l.runCrawl(`-q --stats ` + name + ` seeds.txt "$RULES" items.csv`)
		r.want(t, code)
		if n := l.site.Stats().Requests; n != before {
			t.Errorf("a run that exited %d made %d requests", code, n-before)
		}
		s := l.readStats(name)
		if s.Exit == nil || *s.Exit != code || s.Complete || s.Round != 1 || s.Pages.Total != 0 || len(s.Reasons) != 1 ||
			!strings.Contains(r.stderr, s.Reasons[0]) {
			t.Errorf("--stats of a run that exited %d: %+v\n%s", code, s, r.stderr)
		}
		return s
	}

	// The budget reached by the first run.
	if s := doNothing("budget.json", 5); s.State != "stopped" || s.StopReason != "max_pages reached (5)" {
		t.Errorf("--stats of a run at the end of the budget: %+v", s)
	}

	// Another run holds the lock: here, this test, alive.
	ctx := context.Background()
	fr, err := frontier.Open(ctx, filepath.Join(l.dir, "items.csv.db"), frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	holder := frontier.LockHolder()
	if _, ok, err := fr.LockCrawl(ctx, "items", holder, "", time.Hour, time.Now()); err != nil || !ok {
		t.Fatalf("taking the crawl's lock: %v %v", ok, err)
	}
	if s := doNothing("locked.json", 4); s.State != "already_running" || !strings.Contains(s.Reasons[0], `crawl "items" is already running`) {
		t.Errorf("--stats of a run while another runs: %+v", s)
	}
	if err := fr.UnlockCrawl(ctx, "items", holder); err != nil {
		t.Fatal(err)
	}

	l.setPaused("items.csv.db", "items", true)
	if s := doNothing("paused.json", 6); s.State != "paused" || s.PausedAt != pausedAt {
		t.Errorf("--stats of a run of a paused crawl: %+v", s)
	}
	l.setPaused("items.csv.db", "items", false)

	l.run(`cqueue stop --db items.csv.db --crawlid items`)
	if s := doNothing("stopped.json", 5); s.State != "stopped" || s.StoppedAt == "" {
		t.Errorf("--stats of a run of a stopped crawl: %+v", s)
	}
}

// stopMidway starts a crawl of a slow site to items-0.jsonl, stops it
// with cqueue stop once some pages are fetched, and returns how it ended.
func (l *loop) stopMidway(t *testing.T) crawlRun {
	t.Helper()
	c, stdout, stderr := l.startCrawl(`--stats stopped.json --cfetch '--concurrency 2' seeds.txt "$RULES" items-0.jsonl`)
	l.waitRequests(30, 5*time.Minute)
	out := l.run(`cqueue stop --db items-0.jsonl.db --crawlid items-0`)
	if !strings.Contains(out, `"kept":true`) {
		t.Errorf("cqueue stop of a crawl run by cqueue crawl: %s", out)
	}
	return l.wait(c, stdout, stderr)
}

// A stopped crawl is never reported complete; the next run says so and
// how to go on, and both ways work.
func TestCrawlStopped(t *testing.T) {
	slow := loopSite
	slow.Latency = 20 * time.Millisecond
	for _, how := range []string{"resume", "next-round"} {
		t.Run(how, func(t *testing.T) {
			l := crawlEndSetup(t, slow)
			r := l.stopMidway(t)
			r.want(t, 5, "cqueue: stopped at ", "kept; the next run does nothing until given --resume")
			s := l.readStats("stopped.json")
			if s.State != "stopped" || s.Complete || s.Exit == nil || *s.Exit != 5 || s.Pages.Total == 0 || s.Left.Queued == 0 {
				t.Errorf("--stats of the stopped run: %+v", s)
			}
			if round, state := l.roundOf("items-0.jsonl.db", "items-0"); round != 1 || state != "stopped" {
				t.Errorf("cqueue info says round %d %q, want round 1 stopped", round, state)
			}
			// Run again as cron would: nothing done, and said why.
			before := l.site.Stats().Requests
			l.runCrawl(`seeds.txt "$RULES" items-0.jsonl`).want(t, 5,
				`this run does nothing. To resume the round, run the same command with --resume; to begin the next round over from the seeds, with --next-round`)
			if n := l.site.Stats().Requests; n != before {
				t.Errorf("a run of a stopped crawl made %d requests", n-before)
			}
			switch how {
			case "resume":
				l.runCrawl(`--resume seeds.txt "$RULES" items-0.jsonl`).want(t, 0, `crawl "items-0": resuming round 1`, "complete: nothing is left queued or in flight")
				if dups := l.checkItems(); dups > 4 { // at most what was in flight at the stop
					t.Errorf("%d products exported twice", dups)
				}
			case "next-round":
				l.runCrawl(`--next-round seeds.txt "$RULES" items-0.jsonl`).want(t, 0, `(--next-round)`, `round 2 begins (round 1 was stopped, and is left unfinished: --next-round)`, "complete: nothing is left queued or in flight")
				if round, state := l.roundOf("items-0.jsonl.db", "items-0"); round != 2 || state != "complete" {
					t.Errorf("after --next-round, cqueue info says round %d %q", round, state)
				}
				l.checkItems()
			}
			// Then the crawl runs as any: the next run begins a round.
			l.runCrawl(`seeds.txt "$RULES" items-0.jsonl`).want(t, 0, "round ")
		})
	}
}

// cqueue stop --purge of a crawl run by cqueue crawl drops what it had
// queued: the run is stopped, not complete (it ended "complete: nothing is
// left queued or in flight", exit 0, and marked the round complete, so
// that a --changed-only export would report the pages it never fetched
// gone), and the runs after it say so and how to go on (they ended
// "nothing to crawl", exit 1, --next-round and --resume too).
func TestCrawlStopPurgedIsNotComplete(t *testing.T) {
	slow := loopSite
	slow.Latency = 20 * time.Millisecond
	l := crawlEndSetup(t, slow)
	// A small window keeps the crawl's requests queued, for the purge.
	c, stdout, stderr := l.startCrawl(`--stats stopped.json --cfetch '--concurrency 2' --pop '--window 4' seeds.txt "$RULES" items-0.jsonl`)
	l.waitRequests(30, 5*time.Minute)
	if out := l.run(`cqueue stop --purge --db items-0.jsonl.db --crawlid items-0`); strings.Contains(out, `"purged":0`) {
		r := l.wait(c, stdout, stderr)
		t.Fatalf("cqueue stop --purge purged nothing (the crawl ended first?): %s\n%s", out, r.stderr)
	}
	r := l.wait(c, stdout, stderr)
	r.want(t, 5, "cqueue: stopped: its queue was purged (cqueue stop --purge)")
	if strings.Contains(r.stderr, "complete: nothing is left") {
		t.Errorf("a purged crawl said complete:\n%s", r.stderr)
	}
	if s := l.readStats("stopped.json"); s.State != "stopped" || s.Complete || s.Exit == nil || *s.Exit != 5 {
		t.Errorf("--stats of the purged run: %+v", s)
	}
	if round, state := l.roundOf("items-0.jsonl.db", "items-0"); round != 1 || state != "stopped" {
		t.Errorf("cqueue info says round %d %q, want round 1 stopped", round, state)
	}
	for _, args := range []string{"", "--resume "} {
		l.runCrawl(args+`seeds.txt "$RULES" items-0.jsonl`).want(t, 5,
			`was stopped with its queue purged (cqueue stop --purge) in round 1`, `run the same command with --next-round`)
	}
	l.runCrawl(`--next-round seeds.txt "$RULES" items-0.jsonl`).want(t, 0, `round 2 begins`, "complete: nothing is left queued or in flight")
	if round, state := l.roundOf("items-0.jsonl.db", "items-0"); round != 2 || state != "complete" {
		t.Errorf("after --next-round, cqueue info says round %d %q", round, state)
	}
}

// A crawl whose seeds carry expires (Scrapy Cluster's crawl expiry) that
// passes while it runs has its queue purged by the frontier: the run is
// stopped, not complete (it ended "complete: nothing is left queued or in
// flight", exit 0, and marked the round complete, so that a
// --changed-only export would report the pages it never fetched gone).
func TestCrawlExpiredIsNotComplete(t *testing.T) {
	slow := loopSite
	slow.Latency = 50 * time.Millisecond // 300 products, 2 at a time: over 8 s
	l := crawlEndSetup(t, slow)
	l.writeFile("seeds.txt", fmt.Sprintf(`{"url":%q,"expires":%d}`+"\n", l.url+"/", time.Now().Add(5*time.Second).Unix()))
	r := l.runCrawl(`--stats expired.json --cfetch '--concurrency 2' --pop '--window 4' seeds.txt "$RULES" items-0.jsonl`)
	r.want(t, 5, "cqueue: stopped: the crawl expired (the expires of its requests passed) after ")
	if strings.Contains(r.stderr, "complete: nothing is left") {
		t.Errorf("an expired crawl said complete:\n%s", r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("OUT is a file, but the crawl wrote to stdout:\n%s", r.stdout)
	}
	if s := l.readStats("expired.json"); s.State != "stopped" || s.Complete || s.Exit == nil || *s.Exit != 5 {
		t.Errorf("--stats of the expired run: %+v", s)
	}
	if round, state := l.roundOf("items-0.jsonl.db", "items-0"); round != 1 || state != "stopped" {
		t.Errorf("cqueue info says round %d %q, want round 1 stopped", round, state)
	}
	// The runs after it say so, and how to go on. Seeds given a later
	// expires (--force) were refused as seen in the round, which was then
	// called complete: "every seed was crawled before", exit 0.
	l.runCrawl(`seeds.txt "$RULES" items-0.jsonl`).want(t, 5, `crawl "items-0" expired at `, `run the same command with --next-round`)
	l.writeFile("seeds.txt", fmt.Sprintf(`{"url":%q,"expires":%d}`+"\n", l.url+"/", time.Now().Add(time.Hour).Unix()))
	r = l.runCrawl(`--force seeds.txt "$RULES" items-0.jsonl`)
	r.want(t, 5, `crawl "items-0" expired at `, `run the same command with --next-round`)
	if strings.Contains(r.stderr, "complete") {
		t.Errorf("a rerun of an expired crawl said complete:\n%s", r.stderr)
	}
	l.runCrawl(`--force --next-round --cfetch '--concurrency 8' seeds.txt "$RULES" items-0.jsonl`).want(t, 0, `round 2 begins`, "complete: nothing is left queued or in flight")
}

// A cqueue stop read while the crawl's last page is in flight: the page is
// fetched and exported, nothing is left, so the round is complete — not
// "interrupted" (exit 130, as if someone had pressed Ctrl-C) with the
// round left running for the next run to call complete without its end.
func TestCrawlStopAsItEndsIsComplete(t *testing.T) {
	l := crawlEndSetup(t, demosite.Options{Products: 20, Latency: 2 * time.Second})
	l.writeFile("page.yml", "version: 1\nname: page\nitems:\n  - name: page\n    match: {url: '.'}\n    fields:\n      title: title\n")
	c, stdout, stderr := l.startCrawl(`--stats s.json seeds.txt page.yml items.jsonl`)
	l.waitRequests(1, 2*time.Minute) // robots.txt: the seed, the only page, is fetched next
	l.run(`cqueue stop --db items.jsonl.db --crawlid items`)
	r := l.wait(c, stdout, stderr)
	r.want(t, 0, `crawl "items": 1 page in`, "1 item exported", "complete: nothing is left queued or in flight")
	if strings.Contains(r.stderr, "interrupted") {
		t.Errorf("the run says it was interrupted:\n%s", r.stderr)
	}
	if s := l.readStats("s.json"); s.State != "complete" || !s.Complete || s.Exit == nil || *s.Exit != 0 {
		t.Errorf("--stats: %+v", s)
	}
	if round, state := l.roundOf("items.jsonl.db", "items"); round != 1 || state != "complete" {
		t.Errorf("cqueue info says round %d %q, want round 1 complete", round, state)
	}
	l.runCrawl(`seeds.txt page.yml items.jsonl`).want(t, 0, `round 2 begins (round 1 was complete)`)
}

// pausedAt is when setPaused pauses a crawl.
const pausedAt = "2026-12-05T02:41:07Z"

// setPaused sets the crawl's pause as cqueue serve's Pause and Resume do.
func (l *loop) setPaused(db, crawlID string, paused bool) {
	l.t.Helper()
	ctx := context.Background()
	fr, err := frontier.Open(ctx, filepath.Join(l.dir, db), frontier.Options{})
	if err != nil {
		l.t.Fatal(err)
	}
	defer fr.Close()
	v, at := "0", ""
	if paused {
		v, at = "1", pausedAt
	}
	if _, err := fr.SetCrawlMeta(ctx, crawlID, map[string]string{frontier.MetaPaused: v, frontier.MetaPausedAt: at}, true); err != nil {
		l.t.Fatal(err)
	}
}

// inFlight is what cqueue info says the crawl has in flight.
func (l *loop) inFlight(db string) int64 {
	l.t.Helper()
	var info struct {
		InFlight int64 `json:"in_flight"`
	}
	if err := json.Unmarshal([]byte(l.run(`cqueue info --db `+db)), &info); err != nil {
		l.t.Fatal(err)
	}
	return info.InFlight
}

// With --cthrottle at a low rate, the requests cthrottle holds for their
// slots when the crawl is paused go back to the frontier unfetched, not
// fetched one slot after another; the resumed crawl fetches every page.
func TestCrawlPauseGivesBackThrottledRequests(t *testing.T) {
	l := crawlEndSetup(t, demosite.Options{Products: 60})
	c, stdout, stderr := l.startCrawl(`--pop '--window 50' --cthrottle '--rate 5/s' seeds.txt "$RULES" items-0.jsonl`)
	l.waitRequests(12, 5*time.Minute)
	// Wait for cthrottle to hold a good many requests: in flight, far
	// more than the few that are fetched at once.
	deadline := time.Now().Add(5 * time.Minute)
	held := waitHeld(t, l, deadline)
	l.setPaused("items-0.jsonl.db", "items-0", true)
	paused := l.site.Stats().Requests
	// Everything in flight comes back: given back unfetched, or fetched
	// and acked (the few due as the pause was read).
	for l.inFlight("items-0.jsonl.db") > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("requests still in flight long after the pause")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A pause is read within a second or so: at 5/s, a few more pages,
	// not the requests held (a loaded machine may take some seconds).
	n := l.site.Stats().Requests - paused
	t.Logf("%d requests fetched after the pause, of %d in flight", n, held)
	if int64(n) > held*2/3 {
		t.Errorf("%d requests were fetched after the pause, of %d in flight: they were not given back", n, held)
	}
	l.setPaused("items-0.jsonl.db", "items-0", false)
	l.wait(c, stdout, stderr).want(t, 0, "complete: nothing is left queued or in flight")
	if dups := l.checkItems(); dups != 0 {
		t.Errorf("%d products exported twice", dups)
	}
}

// waitHeld waits until the crawl of items-0.jsonl.db has at least 30
// requests in flight (most of them held by cthrottle for their slots)
// and returns how many it has.
func waitHeld(t *testing.T, l *loop, deadline time.Time) int64 {
	t.Helper()
	for {
		if n := l.inFlight("items-0.jsonl.db"); n >= 30 {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("the crawl never had 30 requests in flight")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The same for a stop: the requests cthrottle holds go back unfetched, the
// run ends stopped, and --resume fetches every page.
func TestCrawlStopGivesBackThrottledRequests(t *testing.T) {
	l := crawlEndSetup(t, demosite.Options{Products: 60})
	c, stdout, stderr := l.startCrawl(`--pop '--window 50' --cthrottle '--rate 5/s' seeds.txt "$RULES" items-0.jsonl`)
	l.waitRequests(12, 5*time.Minute)
	held := waitHeld(t, l, time.Now().Add(5*time.Minute))
	l.run(`cqueue stop --db items-0.jsonl.db --crawlid items-0`)
	stopped := l.site.Stats().Requests
	l.wait(c, stdout, stderr).want(t, 5, "cqueue: stopped at ")
	n := l.site.Stats().Requests - stopped
	t.Logf("%d requests fetched after the stop, of %d in flight", n, held)
	if int64(n) > held*2/3 {
		t.Errorf("%d requests were fetched after the stop, of %d in flight: they were not given back", n, held)
	}
	if q := l.inFlight("items-0.jsonl.db"); q != 0 {
		t.Errorf("%d requests left in flight after the stopped run", q)
	}
	l.runCrawl(`--resume --cthrottle '--rate 50/s' seeds.txt "$RULES" items-0.jsonl`).want(t, 0, "complete: nothing is left queued or in flight")
	if dups := l.checkItems(); dups != 0 {
		t.Errorf("%d products exported twice", dups)
	}
}

// A stage that fails while the loop runs stops the crawl at once: cexport
// writing to a full disk (/dev/full) ended, and the crawl waited for the
// acks it would have passed on until their leases expired (5 minutes),
// then again, as nothing wrote to the pipes around it any more. The run
// ends failed, naming cexport, and the next one, to a file that can be
// written, fetches what was lost and completes.
func TestCrawlStageFailureStopsTheLoop(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	l := crawlEndSetup(t, loopSite)
	r := l.runCrawl(`--stats full.json --db items.db --crawlid items --cexport '-f csv' seeds.txt "$RULES" /dev/full`)
	r.want(t, 1, "cexport: write /dev/full: no space left on device",
		"cqueue: cexport exit 1 while the crawl ran: the loop is stopped",
		"cqueue: failed: cexport exit 1\n",
		"once the failure is fixed, run the same command again to resume")
	if strings.Contains(r.stderr, "interrupted") || strings.Contains(r.stderr, "complete: nothing") {
		t.Errorf("the run's end is not a failure:\n%s", r.stderr)
	}
	if s := l.readStats("full.json"); s.State != "failed" || s.Complete || s.Exit == nil || *s.Exit != 1 {
		t.Errorf("--stats of the failed run: %+v", s)
	}
	l.runCrawl(`--db items.db --crawlid items seeds.txt "$RULES" items.csv`).want(t, 0, "complete: nothing is left queued or in flight")
	f, err := os.Open(filepath.Join(l.dir, "items.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rows)-1, len(l.site.Truth()); got != want {
		t.Errorf("the run after the failure exported %d items, want %d", got, want)
	}
}
