package crawl

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/monitor"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// loopStats are the stats files of the loop's tools, by stage key, as last
// written (every second while they run with --stats-every, and at their
// end).
type loopStats map[string]*cli.StatsJSON

var stageKeys = []string{"pop", "cfetch", "cextract", "cexport", "push"}

func (c *crawl) readLoopStats() loopStats {
	l := loopStats{}
	for _, key := range stageKeys {
		b, err := os.ReadFile(filepath.Join(c.tmp, key+".json"))
		if err != nil {
			continue
		}
		var s cli.StatsJSON
		if json.Unmarshal(b, &s) == nil {
			l[key] = &s
		}
	}
	return l
}

// get returns a tool's stats, empty when it wrote none.
func (l loopStats) get(key string) *cli.StatsJSON {
	if s := l[key]; s != nil {
		return s
	}
	return &cli.StatsJSON{}
}

// pages counts the pages cfetch fetched (monitor.FetchedPages).
func (l loopStats) pages() int64 {
	return monitor.FetchedPages(*l.get("cfetch"))
}

// items counts the items exported: by cexport, or with OUT "-" the item
// records push passed through to stdout.
func (l loopStats) items(out string) int64 {
	if out == "-" {
		return l.get("push").Counts["passed"]["item"]
	}
	return l.get("cexport").Out
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// joinCounts writes m as "k1 n1, k2 n2", keys sorted.
func joinCounts(m map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// progress returns the progress line: the pace over the last five seconds
// and the crawl's figures, from the tools' stats files.
func (c *crawl) progress(start time.Time) func() string {
	type sample struct {
		t     time.Time
		pages int64
	}
	window := []sample{{start, 0}}
	return func() string {
		l := c.readLoopStats()
		now, pages := time.Now(), l.pages()
		window = append(window, sample{now, pages})
		for len(window) > 2 && now.Sub(window[1].t) >= 5*time.Second {
			window = window[1:]
		}
		rate := 0.0
		if d := now.Sub(window[0].t); d > 0 {
			rate = float64(pages-window[0].pages) / d.Seconds()
		}
		pop, fetch := l.get("pop").Gauges, l.get("cfetch").Gauges
		return fmt.Sprintf("%.1f pages/s, %d pages, %d items, %d queued, %d in flight, %d errors, %d hosts resting",
			rate, pages, l.items(c.o.out), pop["queued"], pop["in_flight"], sum(l.get("cfetch").Errors), fetch["hosts_resting"])
	}
}

// crawlAccount is the account of one run of cqueue crawl, the JSON of its
// --stats FILE. New fields may be added.
type crawlAccount struct {
	Tool      string  `json:"tool"` // "cqueue crawl"
	Version   string  `json:"version"`
	CrawlID   string  `json:"crawlid"`
	AppID     string  `json:"appid"`
	Frontier  string  `json:"frontier"`
	Seeds     string  `json:"seeds"`
	Rules     string  `json:"rules"`
	Out       string  `json:"out"`
	StartedAt string  `json:"started_at"`
	Round     int     `json:"round"`
	DurationS float64 `json:"duration_s"`
	// State is running (while the crawl runs), complete, incomplete (it
	// can be resumed), interrupted, failed, stopped (cqueue stop, or its
	// budget), nothing_due (--refresh), already_running (another run
	// holds the lock) or paused (a run that began paused did nothing).
	State    string `json:"state"`
	Complete bool   `json:"complete"`
	// StoppedAt is when the crawl was stopped, with State stopped.
	StoppedAt string `json:"stopped_at,omitempty"`
	// StopReason is the limit of its budget the crawl reached, with
	// State stopped ("max_pages reached (1000)"), and Budget its limits
	// and counts.
	StopReason string         `json:"stop_reason,omitempty"`
	Budget     *budgetAccount `json:"budget,omitempty"`
	// PausedAt is since when the crawl is paused (cqueue serve's Pause),
	// when the run ended with it paused: the next run does nothing until
	// it is resumed.
	PausedAt string `json:"paused_at,omitempty"`
	// Exit is the exit status (absent while running).
	Exit *int `json:"exit,omitempty"`
	// Reasons say why the crawl failed or is not complete.
	Reasons   []string        `json:"reasons,omitempty"`
	Pages     pagesAccount    `json:"pages"`
	Items     itemsAccount    `json:"items"`
	Seeding   seedingAccount  `json:"seeding"`
	FollowUps followUpAccount `json:"follow_ups"`
	Rejected  []rejection     `json:"rejected"`
	// Failures are the pages that failed or had items dropped, when any
	// did (cextract --failures).
	Failures *failuresAccount `json:"failures,omitempty"`
	// Left is what the frontier holds for the crawl (Dead: every dead
	// letter it keeps, of every run and round).
	Left frontier.Counts `json:"left"`
	// DeadLettered is the requests dead-lettered in this run (a consumer
	// that died holding them too often, leases that expired, a stage that
	// could not read them): their pages were not fetched, so the round is
	// not complete.
	DeadLettered int64                     `json:"dead_lettered"`
	Tools        map[string]*cli.StatsJSON `json:"tools"`
}

type pagesAccount struct {
	Total    int64            `json:"total"`
	RatePerS float64          `json:"rate_per_s"`
	ByClass  map[string]int64 `json:"by_class"`  // 2xx, 3xx, 4xx, 5xx
	ByStatus map[string]int64 `json:"by_status"` // 200, 404, …
	Errors   map[string]int64 `json:"errors"`    // failed fetches, by cfetch's error code
	// Unchanged counts the pages the server confirmed with a 304 (to
	// cfetch's conditional request), BytesSaved their bodies, not sent
	// again. FromCache counts the pages cfetch's cache answered without
	// asking the server (--cache-fresh, the dummy policy).
	Unchanged  int64 `json:"unchanged"`
	BytesSaved int64 `json:"bytes_saved"`
	FromCache  int64 `json:"from_cache"`
}

type itemsAccount struct {
	Exported int64  `json:"exported"`
	To       string `json:"to"`
	// Unchanged counts the items cexport --changed-only left out: the
	// same as the last round's.
	Unchanged int64 `json:"unchanged"`
	// Gone counts the items of earlier rounds this complete round did not
	// see (cexport --gone).
	Gone int64 `json:"gone"`
	// NotInHeader counts the items written without fields the CSV's
	// header lacks (each reported by cexport).
	NotInHeader int64 `json:"not_in_header"`
}

type seedingAccount struct {
	Lines  int   `json:"lines"`
	Queued int64 `json:"queued"`
	// Again counts, of those queued, the seeds seen in the round before:
	// its last run could fetch nothing (failed.go).
	Again    int64            `json:"again"`
	Refused  map[string]int64 `json:"refused"`  // duplicate: seen before, …
	Rejected map[string]int64 `json:"rejected"` // bad lines: invalid, empty
}

type followUpAccount struct {
	Queued  int64            `json:"queued"`
	Dropped map[string]int64 `json:"dropped"` // duplicate, offsite, max_depth, …
}

// rejection counts the records a tool rejected for one reason (each was
// reported on stderr with its line).
type rejection struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
	Count  int64  `json:"count"`
}

// notRejected are the drop reasons of records an interrupt left unhandled:
// the rerun handles them, nothing was wrong with them.
var notRejected = map[string]bool{"interrupted": true, "not_fetched": true, "unchanged": true}

// account sums up the crawl from the tools' stats.
func (c *crawl) account(l loopStats) crawlAccount {
	o := &c.o
	a := crawlAccount{
		Tool: "cqueue crawl", Version: cli.Version, CrawlID: o.crawlID, AppID: o.appID,
		Frontier: storeurl.Redact(o.dsn), Seeds: o.seeds, Rules: o.rules, Out: o.out,
		StartedAt: c.start.UTC().Format(time.RFC3339), DurationS: time.Since(c.start).Seconds(),
		State: "running", Tools: map[string]*cli.StatsJSON(l),
	}
	fetch := l.get("cfetch")
	a.Pages = pagesAccount{Total: l.pages(), ByClass: map[string]int64{}, ByStatus: map[string]int64{}, Errors: map[string]int64{}}
	maps.Copy(a.Pages.ByStatus, fetch.Counts["status"])
	for k, n := range fetch.Counts["status"] {
		if k != "" {
			a.Pages.ByClass[k[:1]+"xx"] += n
		}
	}
	maps.Copy(a.Pages.Errors, fetch.Errors)
	if a.DurationS > 0 {
		a.Pages.RatePerS = float64(a.Pages.Total) / a.DurationS
	}
	a.Items = itemsAccount{Exported: l.items(o.out), To: outName(o.out), Unchanged: l.get("cexport").Dropped["unchanged"],
		NotInHeader: l.get("cexport").Errors["not_in_header"]}
	a.Pages.Unchanged = fetch.Counts["unchanged"]["responses"]
	a.Pages.BytesSaved = fetch.Counts["unchanged"]["bytes_saved"]
	a.Pages.FromCache = fetch.Counts["from_cache"]["responses"]
	s := &c.seed
	a.Seeding = seedingAccount{Lines: s.lines, Queued: s.queued, Again: s.again, Refused: nonNil(s.refused), Rejected: nonNil(s.dropped)}
	push := l.get("push")
	a.FollowUps = followUpAccount{Queued: push.Counts["requests"]["queued"], Dropped: nonNil(maps.Clone(push.Counts["refused"]))}
	a.Rejected = []rejection{}
	for _, k := range slices.Sorted(maps.Keys(s.dropped)) {
		a.Rejected = append(a.Rejected, rejection{Tool: "cqueue push (seeds)", Reason: k, Count: s.dropped[k]})
	}
	for _, key := range stageKeys {
		st := l[key]
		if st == nil {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(st.Dropped)) {
			n := st.Dropped[k]
			// cextract's crawl-policy drops are follow-ups dropped, as push's
			// refusals are, not records rejected (old names count too).
			switch reason, isPolicy := policy.Canonical(k); {
			case n <= 0 || notRejected[k]:
			case key == "cextract" && isPolicy:
				a.FollowUps.Dropped[reason] += n
			default:
				a.Rejected = append(a.Rejected, rejection{Tool: stageName(key), Reason: k, Count: n})
			}
		}
	}
	a.Left.Queued, a.Left.InFlight = l.get("pop").Gauges["queued"], l.get("pop").Gauges["in_flight"]
	return a
}

func nonNil(m map[string]int64) map[string]int64 {
	if m == nil {
		return map[string]int64{}
	}
	return m
}

func stageName(key string) string {
	switch key {
	case "pop", "push":
		return "cqueue " + key
	}
	return key
}

// writeAccountEvery rewrites the --stats FILE with the account so far
// every --stats-every while the loop runs; the returned function stops it.
func (c *crawl) writeAccountEvery() (stop func()) {
	every := c.tool.StatsEvery
	if c.o.statsFile == "" || every <= 0 {
		return func() {}
	}
	return cli.Every(every, func() { c.writeAccount(c.account(c.readLoopStats())) })
}

// writeAccountOnAbort writes the --stats FILE when a second interrupt
// ends the process at once (cli.OnAbort) while the loop runs, so that it
// never stays "running" (with --stats-every) or absent: the account so
// far, from the tools' last stats files, "interrupted", exit 130. It
// stops writeAccountEvery's writes first (stopEvery), so that none lands
// after it. The returned function removes the hook.
func (c *crawl) writeAccountOnAbort(stopEvery func()) (remove func()) {
	if c.o.statsFile == "" {
		return func() {}
	}
	return cli.OnAbort(func() {
		stopEvery()
		a := c.account(c.readLoopStats())
		a.Failures = c.readFailures()
		a.State, a.Complete = "interrupted", false
		code := cli.ExitInterrupted
		a.Exit = &code
		a.Reasons = append(a.Reasons, "a second interrupt ended the crawl at once, its tools killed: the figures are their last (at most a second old), and the requests they held are handed out again when the next run resumes the crawl")
		c.writeAccount(a)
	})
}

func (c *crawl) writeAccount(a crawlAccount) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	return cli.WriteFileAtomic(c.o.statsFile, append(b, '\n'))
}
