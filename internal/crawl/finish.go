package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

// finish accounts for the crawl once its loop has ended, on stderr (the
// reasons of a failure even with -q) and in --stats FILE, and returns the
// exit status.
func (c *crawl) finish(ctx context.Context, res loopResult) int {
	tool, o := c.tool, &c.o
	c.accounted = true
	l := c.readLoopStats()
	a := c.account(l)
	a.Failures = c.readFailures()
	bg := context.WithoutCancel(ctx)
	info, err := c.fr.Info(bg, frontier.InfoFilter{CrawlID: o.crawlID})
	purged := ""
	if err == nil {
		purged = purgedState(info, o.crawlID)
	}
	if err == nil {
		a.Left = frontier.Counts{}
		for _, ci := range info.Crawls {
			a.Left.Queued += ci.Pending
			a.Left.InFlight += ci.InFlight
			a.Left.Dead += ci.Dead
		}
		a.DeadLettered = max(a.Left.Dead-c.deadBefore, 0)
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
	// A crawl whose queue was purged (cqueue stop --purge, its expiry) is
	// not complete, however little is left.
	a.Complete = err == nil && a.Left.Queued == 0 && a.Left.InFlight == 0 && purged == ""
	if interrupted && a.Complete && c.stopEndedLoop(ctx) {
		// A cqueue stop read as the last pages were in flight: the tools
		// drained as after a Ctrl-C, but every page was fetched and
		// acked, so the round is complete (markStopped clears the stop).
		interrupted = false
	}
	// Nothing fetched: every page failed, or had an answer that says the
	// server could not give it for now (5xx, 429) — the site was down.
	var answered int64
	for k, n := range a.Pages.ByStatus {
		if !unavailableStatus(k) {
			answered += n
		}
	}
	nothing := a.Pages.Total > 0 && answered == 0
	var rejected int64
	for _, r := range a.Rejected {
		rejected += r.Count
	}
	code := cli.ExitOK
	switch {
	case c.state.lost.Load():
		code, a.State, a.Complete = cli.ExitFailure, "failed", false
		failures = append(failures, c.lostMessage())
	case c.brokenBy() != "":
		// The others drained because it ended (broken.go): not an
		// interrupt.
		code, a.State, a.Complete = cli.ExitFailure, "failed", false
		if !slices.Contains(failures, c.brokenBy()) {
			failures = append(failures, c.brokenBy())
		}
	case interrupted:
		code, a.State = cli.ExitInterrupted, "interrupted"
	case usage:
		// A failed run is never complete, however little is left: what
		// failed (an export that could not be finished, …) may be missing.
		code, a.State, a.Complete = cli.ExitUsage, "failed", false
	case len(failures) > 0:
		code, a.State, a.Complete = cli.ExitFailure, "failed", false
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
	code = c.markStopped(bg, &a, code, cli.Interrupted(ctx), purged)
	code = c.markBudget(bg, &a, code, cli.Interrupted(ctx))
	c.markPaused(bg, &a)
	if len(failures) > 0 {
		a.Reasons = append(a.Reasons, "failed: "+strings.Join(failures, ", "))
	}
	lastFailure, again := "", ""
	if nothing {
		what := "every fetch failed"
		if a.Pages.Total <= c.seed.queued {
			what = "every seed failed"
		}
		counts := failureCounts(&a)
		lastFailure = fmt.Sprintf("%s: %s", what, joinCounts(counts))
		a.Reasons = append(a.Reasons, "nothing could be fetched: "+lastFailure)
		again = "no"
		if mayPass(counts, l.get("cfetch").Counts["robots"]["unavailable"] > 0) {
			again = "yes"
		}
		// The round is not complete, nothing of it having been fetched
		// (failed.go): the next run queues its seeds again, or says why
		// it does not.
		if a.Complete {
			c.fetchedNothing = again
		}
		a.Complete = false
	}
	if _, err := c.fr.SetCrawlMeta(bg, o.crawlID, map[string]string{metaLastFailure: lastFailure, metaLastFailureAgain: again}, true); err != nil {
		tool.Printf("%v", err)
	}
	if a.Complete && !nothing && !interrupted && len(failures) == 0 {
		var n int64
		var err error
		if a.State == "complete" {
			n, err = c.reportGone(bg)
		}
		if err != nil {
			// The round stays unfinished: a rerun looks again.
			code, a.State, a.Complete = cli.ExitFailure, "failed", false
			a.Reasons = append(a.Reasons, "failed: "+err.Error())
		} else {
			a.Items.Gone = n
			if err := c.endRound(bg); err != nil {
				tool.Printf("%v", err)
			}
		}
	}
	if a.DeadLettered > 0 && a.State == "complete" {
		// Nothing is left, but pages are missing: the round ends (its
		// next run begins the next one, which fetches them again), the
		// crawl is not called complete, and the exit status says some
		// records failed, as for records rejected.
		a.State, a.Complete = "incomplete", false
		if code == cli.ExitOK {
			code = cli.ExitPartial
		}
		a.Reasons = append(a.Reasons, c.deadLine(a.DeadLettered))
	}
	if unstoredAcks(l) > 0 && !a.Complete {
		// The pages whose items cexport wrote but whose acks push did
		// not store (it failed, or the loop ended first) went back to
		// the queue: the rerun fetches them again, as after a kill. How
		// many is not known: the acks counted here are those cexport
		// passed on, and a page's items can be written before its ack.
		a.Reasons = append(a.Reasons, fmt.Sprintf("some pages had their items exported to %s but their acks not stored in the frontier (cqueue push did not get to them): they are queued again, so the next run fetches them again and exports their items again (cdedupe --key .url removes them)",
			a.Items.To))
	}
	a.Round = c.round
	a.Exit = &code
	c.leaveLastRun(bg, a)
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
	if a.Pages.FromCache > 0 {
		lines = append(lines, fmt.Sprintf("%s answered from cfetch's cache without asking the server (they may have changed)", plural(a.Pages.FromCache, "page")))
	}
	items := fmt.Sprintf("%s exported to %s", plural(a.Items.Exported, "item"), a.Items.To)
	if a.Items.Unchanged > 0 {
		items += fmt.Sprintf(" (%d the same as in the last round, not exported)", a.Items.Unchanged)
	}
	if a.Items.NotInHeader > 0 {
		items += fmt.Sprintf(" (%d written without fields not in its header, reported above)", a.Items.NotInHeader)
	}
	lines = append(lines, items)
	if a.Items.Gone > 0 {
		lines = append(lines, fmt.Sprintf("%s gone since the last round (not seen in this one)", plural(a.Items.Gone, "item")))
	}
	s := a.Seeding
	seeds := fmt.Sprintf("seeds (%s): %d queued", seedsName(a.Seeds), s.Queued)
	if s.Again > 0 {
		seeds += fmt.Sprintf(" (%d again)", s.Again)
	}
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
		lines = append(lines, "rejected: "+strings.Join(parts, "; "))
	}
	lines = append(lines, c.failureLines(a.Failures)...)
	if a.DeadLettered > 0 && a.State != "incomplete" {
		lines = append(lines, fmt.Sprintf("%d request(s) dead-lettered in this run, never to be handed out again ('cqueue dump %s' shows them)",
			a.DeadLettered, c.o.dsnFlag()))
	}
	lines = append(lines, a.Reasons...)
	if a.PausedAt != "" {
		lines = append(lines, c.pausedLine(a))
	}
	left := fmt.Sprintf("%d queued, %d in flight", a.Left.Queued, a.Left.InFlight)
	switch {
	case a.StopReason != "":
		lines = append(lines, c.budgetLine(a))
	case a.State == stateStopped && a.StoppedAt == "":
		// purged or expired (markStopped): said in a.Reasons
	case a.State == stateStopped:
		lines = append(lines, c.stoppedLine(a))
	case a.Complete && a.State != "interrupted":
		lines = append(lines, "complete: nothing is left queued or in flight")
	case a.DeadLettered > 0 && a.State == "incomplete" && a.Left.Queued == 0 && a.Left.InFlight == 0:
		lines = append(lines, fmt.Sprintf("not complete: %d request(s) dead-lettered, their pages not fetched; nothing else is left queued or in flight", a.DeadLettered))
	case a.State == "interrupted":
		lines = append(lines, fmt.Sprintf("interrupted: %s; run the same command again to resume", left))
	case c.state.lost.Load():
		lines = append(lines, fmt.Sprintf("not complete: %s since the loss; start over as said above", left))
	case c.fetchedNothing != "":
		lines = append(lines, c.fetchedNothingLine(a, c.fetchedNothing == "yes"))
	case a.State == "failed":
		lines = append(lines, fmt.Sprintf("not complete: %s; once the failure is fixed, run the same command again to resume", left))
	default:
		lines = append(lines, fmt.Sprintf("not complete: %s; run the same command again to resume", left))
	}
	return lines
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

// deadLine says what a run that dead-lettered n requests, and left nothing
// else, leaves: the next run begins the next round, which fetches every
// page again; to fetch them in this round instead, queue them again (a
// dead letter is never handed out again, and the round's duplicate filter
// has it: dont_filter).
func (c *crawl) deadLine(n int64) string {
	db := c.o.dsnFlag()
	sel := fmt.Sprintf(`select(.crawlid == %s and (.round // 1) == %d and .frontier.state == "dead") | del(.frontier) | .dont_filter = true`,
		jsonString(c.o.crawlID), c.round)
	return fmt.Sprintf("%d request(s) dead-lettered in this run (a stage could not read them, their leases expired, or a loop died holding them too often), their pages not fetched: 'cqueue dump %s' shows them with the reason. The next run begins round %d, which fetches every page again; to fetch them in round %d instead, queue them again, then run the same command: cqueue dump -q %s | jq -c %s | cqueue push -q %s",
		n, db, c.round+1, c.round, db, cli.ShellQuote(sel), db)
}

// jsonString is s as a JSON string, for a jq program.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// unstoredAcks is the pages whose acks cexport passed on (their items
// written) that cqueue push did not settle, dead-letter or find unknown.
func unstoredAcks(l loopStats) int64 {
	acks := l.get("push").Counts["acks"]
	return max(l.get("cexport").Counts["passed"]["ack"]-acks["settled"]-acks["failed"]-acks["unknown"], 0)
}
