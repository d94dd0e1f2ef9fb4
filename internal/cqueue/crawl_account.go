package cqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/frontier"
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

// pages counts the responses cfetch wrote (not the requests it read
// ahead), less the requests an interrupt handed back unfetched.
func (l loopStats) pages() int64 {
	f := l.get("cfetch")
	return f.Out - f.Counts["interrupted"]["released"]
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
	// can be resumed), interrupted or failed.
	State    string `json:"state"`
	Complete bool   `json:"complete"`
	// Exit is the exit status (absent while running).
	Exit *int `json:"exit,omitempty"`
	// Reasons say why the crawl failed or is not complete.
	Reasons   []string        `json:"reasons,omitempty"`
	Pages     pagesAccount    `json:"pages"`
	Items     itemsAccount    `json:"items"`
	Seeding   seedingAccount  `json:"seeding"`
	FollowUps followUpAccount `json:"follow_ups"`
	Rejected  []rejection     `json:"rejected"`
	// Left is what the frontier holds for the crawl.
	Left  frontier.Counts           `json:"left"`
	Tools map[string]*cli.StatsJSON `json:"tools"`
}

type pagesAccount struct {
	Total    int64            `json:"total"`
	RatePerS float64          `json:"rate_per_s"`
	ByClass  map[string]int64 `json:"by_class"`  // 2xx, 3xx, 4xx, 5xx
	ByStatus map[string]int64 `json:"by_status"` // 200, 404, …
	Errors   map[string]int64 `json:"errors"`    // failed fetches, by cfetch's error code
	// Unchanged counts the pages cfetch's HTTP cache confirmed (a 304 to
	// its conditional request), BytesSaved their bodies, not sent again.
	Unchanged  int64 `json:"unchanged"`
	BytesSaved int64 `json:"bytes_saved"`
}

type itemsAccount struct {
	Exported int64  `json:"exported"`
	To       string `json:"to"`
	// Unchanged counts the items cexport --changed-only left out: the
	// same as the last round's.
	Unchanged int64 `json:"unchanged"`
}

type seedingAccount struct {
	Lines    int              `json:"lines"`
	Queued   int64            `json:"queued"`
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

// extractPolicyDrops are cextract's drop reasons for the follow-ups the
// crawl policy of their page's request keeps out (docs/cextract.md), with
// the name cqueue push gives the same refusal: follow-ups dropped, as
// push's refusals are, not records rejected.
var extractPolicyDrops = map[string]string{
	"maxdepth":        frontier.ReasonMaxDepth,
	"allowed_domains": frontier.ReasonOffsite,
	"allow_regex":     frontier.ReasonNotAllowed,
	"deny_regex":      frontier.ReasonDenied,
	"deny_extensions": frontier.ReasonExtension,
}

// account sums up the crawl from the tools' stats.
func (c *crawl) account(l loopStats) crawlAccount {
	o := &c.o
	a := crawlAccount{
		Tool: "cqueue crawl", Version: cli.Version, CrawlID: o.crawlID, AppID: o.appID,
		Frontier: redactDSN(o.dsn), Seeds: o.seeds, Rules: o.rules, Out: o.out,
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
	a.Items = itemsAccount{Exported: l.items(o.out), To: outName(o.out), Unchanged: l.get("cexport").Dropped["unchanged"]}
	a.Pages.Unchanged = fetch.Counts["unchanged"]["responses"]
	a.Pages.BytesSaved = fetch.Counts["unchanged"]["bytes_saved"]
	s := &c.seed
	a.Seeding = seedingAccount{Lines: s.lines, Queued: s.queued, Refused: nonNil(s.refused), Rejected: nonNil(s.dropped)}
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
			switch reason, policy := extractPolicyDrops[k]; {
			case n <= 0 || notRejected[k]:
			case key == "cextract" && policy:
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
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				c.writeAccount(c.account(c.readLoopStats()))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); <-done }) }
}

func (c *crawl) writeAccount(a crawlAccount) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	return cli.WriteFileAtomic(c.o.statsFile, append(b, '\n'))
}

// finish accounts for the crawl once its loop has ended, on stderr (the
// reasons of a failure even with -q) and in --stats FILE, and returns the
// exit status.
func (c *crawl) finish(ctx context.Context, res loopResult) int {
	tool, o := c.tool, &c.o
	l := c.readLoopStats()
	a := c.account(l)
	bg := context.WithoutCancel(ctx)
	info, err := c.fr.Info(bg, frontier.InfoFilter{CrawlID: o.crawlID})
	if err == nil {
		a.Left = frontier.Counts{}
		for _, ci := range info.Crawls {
			a.Left.Queued += ci.Pending
			a.Left.InFlight += ci.InFlight
			a.Left.Dead += ci.Dead
		}
	} else {
		tool.Printf("%v", err)
	}
	interrupted := cli.Interrupted(ctx)
	usage, partial := false, false
	var failures []string
	if !res.started {
		failures = append(failures, "the crawl loop could not start")
	}
	for _, s := range res.stages {
		if !res.started {
			break
		}
		code, desc := s.status()
		switch code {
		case cli.ExitOK:
		case cli.ExitPartial:
			partial = true
		case cli.ExitInterrupted:
			interrupted = true
		case cli.ExitUsage:
			usage = true
			failures = append(failures, desc)
		default:
			failures = append(failures, desc)
		}
	}
	a.Complete = err == nil && a.Left.Queued == 0 && a.Left.InFlight == 0
	var statuses int64
	for _, n := range a.Pages.ByStatus {
		statuses += n
	}
	nothing := a.Pages.Total > 0 && statuses == 0
	var rejected int64
	for _, r := range a.Rejected {
		rejected += r.Count
	}
	code := cli.ExitOK
	switch {
	case interrupted:
		code, a.State = cli.ExitInterrupted, "interrupted"
	case usage:
		code, a.State = cli.ExitUsage, "failed"
	case len(failures) > 0:
		code, a.State = cli.ExitFailure, "failed"
	case nothing:
		code, a.State = cli.ExitFailure, "failed"
	case partial || rejected > 0:
		code = cli.ExitPartial
	}
	if a.State == "running" {
		a.State = "incomplete"
		if a.Complete {
			a.State = "complete"
		}
	}
	if len(failures) > 0 {
		a.Reasons = append(a.Reasons, "failed: "+strings.Join(failures, ", "))
	}
	lastFailure := ""
	if nothing {
		what := "every fetch failed"
		if a.Pages.Total <= c.seed.queued {
			what = "every seed failed"
		}
		lastFailure = fmt.Sprintf("%s: %s", what, joinCounts(a.Pages.Errors))
		a.Reasons = append(a.Reasons, "nothing could be fetched: "+lastFailure)
	}
	// A crawl that fetched nothing has its seeds marked as seen all the
	// same: a rerun must not call it complete.
	if _, err := c.fr.SetCrawlMeta(bg, o.crawlID, map[string]string{metaLastFailure: lastFailure}, true); err != nil {
		tool.Printf("%v", err)
	}
	if a.Complete && !nothing && !interrupted && len(failures) == 0 {
		if err := c.endRound(bg); err != nil {
			tool.Printf("%v", err)
		}
	}
	a.Round = c.round
	a.Exit = &code
	if !o.quiet {
		for _, line := range c.accountLines(a) {
			tool.Printf("%s", line)
		}
	} else {
		for _, r := range a.Reasons {
			tool.Printf("%s", r)
		}
	}
	if o.statsFile != "" {
		if err := c.writeAccount(a); err != nil {
			tool.Printf("write stats: %v", err)
			if code == cli.ExitOK || code == cli.ExitPartial {
				code = cli.ExitFailure
			}
		}
	}
	return code
}

// accountLines is the account on stderr: a few lines, the verdict last.
func (c *crawl) accountLines(a crawlAccount) []string {
	var lines []string
	dur := time.Duration(a.DurationS * float64(time.Second)).Round(time.Millisecond)
	p := fmt.Sprintf("crawl %q: %s in %s (%.1f/s)", a.CrawlID, plural(a.Pages.Total, "page"), dur, a.Pages.RatePerS)
	if a.Round > 1 {
		p = fmt.Sprintf("crawl %q round %d: %s in %s (%.1f/s)", a.CrawlID, a.Round, plural(a.Pages.Total, "page"), dur, a.Pages.RatePerS)
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(a.Pages.ByClass)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, a.Pages.ByClass[k]))
	}
	if len(parts) > 0 {
		p += ": " + strings.Join(parts, ", ")
	}
	if len(a.Pages.Errors) > 0 {
		p += "; errors: " + joinCounts(a.Pages.Errors)
	}
	lines = append(lines, p)
	if a.Pages.Unchanged > 0 {
		lines = append(lines, fmt.Sprintf("%s unchanged since the last round (304: %s not sent again)", plural(a.Pages.Unchanged, "page"), bytesText(a.Pages.BytesSaved)))
	}
	items := fmt.Sprintf("%s exported to %s", plural(a.Items.Exported, "item"), a.Items.To)
	if a.Items.Unchanged > 0 {
		items += fmt.Sprintf(" (%d the same as in the last round, not exported)", a.Items.Unchanged)
	}
	lines = append(lines, items)
	s := a.Seeding
	seeds := fmt.Sprintf("seeds (%s): %d queued", seedsName(a.Seeds), s.Queued)
	if n := s.Refused[frontier.ReasonDuplicate]; n > 0 {
		seeds += fmt.Sprintf(", %d seen before", n)
	}
	if other := withoutKey(s.Refused, frontier.ReasonDuplicate); len(other) > 0 {
		seeds += fmt.Sprintf(", %d refused (%s)", sum(other), joinCounts(other))
	}
	if n := sum(s.Rejected); n > 0 {
		seeds += fmt.Sprintf(", %d line(s) rejected (%s)", n, joinCounts(s.Rejected))
	}
	lines = append(lines, seeds)
	f := a.FollowUps
	follow := fmt.Sprintf("follow-ups: %d queued", f.Queued)
	if n := sum(f.Dropped); n > 0 {
		follow += fmt.Sprintf(", %d dropped (%s)", n, joinCounts(f.Dropped))
	}
	lines = append(lines, follow)
	byTool := map[string][]string{}
	var tools []string
	for _, r := range a.Rejected {
		if r.Tool == "cqueue push (seeds)" {
			continue // on the seeds line
		}
		if byTool[r.Tool] == nil {
			tools = append(tools, r.Tool)
		}
		byTool[r.Tool] = append(byTool[r.Tool], fmt.Sprintf("%s %d", r.Reason, r.Count))
	}
	if len(tools) > 0 {
		var parts []string
		for _, t := range tools {
			parts = append(parts, fmt.Sprintf("%s: %s", t, strings.Join(byTool[t], ", ")))
		}
		lines = append(lines, "rejected (reported above): "+strings.Join(parts, "; "))
	}
	if a.Left.Dead > 0 {
		lines = append(lines, fmt.Sprintf("%d request(s) dead-lettered, never to be handed out again ('cqueue dump %s' shows them)",
			a.Left.Dead, c.o.dsnFlag()))
	}
	lines = append(lines, a.Reasons...)
	left := fmt.Sprintf("%d queued, %d in flight", a.Left.Queued, a.Left.InFlight)
	switch {
	case a.Complete && a.Pages.Total > 0 && len(a.Pages.ByStatus) == 0:
		lines = append(lines, "nothing is left queued or in flight, and the seeds are marked as seen: "+c.startOver())
	case a.Complete && a.State != "interrupted":
		lines = append(lines, "complete: nothing is left queued or in flight")
	case a.State == "interrupted":
		lines = append(lines, fmt.Sprintf("interrupted: %s; run the same command again to resume", left))
	case a.State == "failed":
		lines = append(lines, fmt.Sprintf("not complete: %s; once the failure is fixed, run the same command again to resume", left))
	default:
		lines = append(lines, fmt.Sprintf("not complete: %s; run the same command again to resume", left))
	}
	return lines
}

// startOver says how to crawl the seeds of a finished crawl again.
func (c *crawl) startOver() string {
	if dedupe.IsRedisURL(c.o.dsn) {
		return "to crawl them again, give another --crawlid"
	}
	return fmt.Sprintf("to crawl them again, remove %s (or give another --crawlid)", shellQuote(c.o.dsn))
}

func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func withoutKey(m map[string]int64, key string) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		if k != key && v != 0 {
			out[k] = v
		}
	}
	return out
}
