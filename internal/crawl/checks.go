package crawl

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// checkRules has cextract check the rules file; its report is shown only
// when the rules have errors.
func (c *crawl) checkRules(ctx context.Context) error {
	code, out := c.runOnce(ctx, "cextract", c.tools.cextract, "--check", c.o.rules)
	if code == cli.ExitOK {
		return nil
	}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		c.tool.Relay(line)
	}
	if code != cli.ExitFailure {
		code = cli.ExitUsage
	}
	return cli.Errorf(code, "rules %s: not usable (see above): nothing was queued", c.o.rules)
}

// refuse says on stderr one reason the run is refused for, and keeps it
// for its account (accountNoLoop).
func (c *crawl) refuse(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	c.tool.Printf("%s", msg)
	c.reasons = append(c.reasons, msg)
}

// checkFrontier refuses a crawl the frontier cannot run as asked: another
// crawl's requests are waiting in it (the loop would fetch them too, into
// OUT, with these rules), or this crawl was started with other rules or
// seeds, or it has no record of the crawl while OUT holds an export
// (unless --force).
func (c *crawl) checkFrontier(ctx context.Context) error {
	tool, o := c.tool, &c.o
	info, err := c.fr.Info(ctx, frontier.InfoFilter{})
	if err != nil {
		return err
	}
	refused := false
	own := "--db"
	if storeurl.IsRedisURL(o.dsn) {
		own = "key prefix on that Redis (add ?prefix=NAME: to the --redis URL)"
	}
	for _, ci := range info.Crawls {
		if ci.CrawlID == o.crawlID || ci.Pending+ci.InFlight == 0 {
			continue
		}
		c.refuse("the frontier %s also holds crawl %q (%d queued, %d in flight), which this crawl loop would fetch too, with these rules, into %s: to resume that crawl, give --crawlid %s; to drop it, cqueue stop --purge %s --crawlid %s; or give this crawl its own %s",
			storeurl.Redact(o.dsn), ci.CrawlID, ci.Pending, ci.InFlight, outName(o.out), cli.ShellQuote(ci.CrawlID), o.dsnFlag(), cli.ShellQuote(ci.CrawlID), own)
		refused = true
	}
	if refused {
		return cli.Exit(cli.ExitUsage) // reported above, one crawl a line
	}
	meta, err := c.fr.CrawlMeta(ctx, o.crawlID)
	if err != nil {
		return err
	}
	c.meta = meta
	if meta[metaRound] == "" && meta["started_at"] == "" && exportExists(o.out) && !o.force {
		// A frontier that lost the crawl (a Redis restarted empty, a db
		// removed) would begin it over and append every item to OUT
		// again, as silently as other rules would mix into it.
		c.refuse("crawl %q: the frontier %s has no record of it, but %s exists: if the crawl ran before, its frontier was lost (a Redis that restarted empty, a removed db, another --db), and this run would begin it over at round 1 and export every item into %s again. To start over, remove %s (or export to another file); to add this crawl's items to it all the same, use --force",
			o.crawlID, storeurl.Redact(o.dsn), outName(o.out), outName(o.out), outName(o.out))
		return cli.Exit(cli.ExitUsage) // reported above
	}
	if conflicts := c.id.conflicts(o.crawlID, meta); len(conflicts) > 0 {
		for _, msg := range conflicts {
			if o.force {
				tool.Printf("%s (--force: going on)", strings.SplitN(msg, ": use --force", 2)[0])
			} else {
				c.refuse("%s", msg)
			}
		}
		if !o.force {
			return cli.Exit(cli.ExitUsage) // reported above
		}
	}
	if prev := meta["out"]; prev != "" && prev != o.out && !o.quiet {
		tool.Printf("warning: crawl %q was started with OUT %s; this run exports to %s, so its items are split between the two", o.crawlID, outName(prev), outName(o.out))
	}
	return nil
}

// beforeLoop decides whether there is anything to crawl, and records the
// crawl's identity once there is; done says the run is over, with err
// (nil: exit 0).
func (c *crawl) beforeLoop(ctx context.Context) (done bool, err error) {
	tool, o := c.tool, &c.o
	info, err := c.fr.Info(ctx, frontier.InfoFilter{CrawlID: o.crawlID})
	if err != nil {
		return true, err
	}
	var pending, inFlight int64
	for _, ci := range info.Crawls {
		pending += ci.Pending + ci.InFlight
		inFlight += ci.InFlight
		c.deadBefore += ci.Dead
	}
	s := &c.seed
	fresh := s.refused[frontier.ReasonFresh]
	seenBefore := s.queued == 0 && s.refused[frontier.ReasonDuplicate]+fresh == s.valid()
	switch {
	case pending > 0:
	case s.valid() == 0:
		return true, c.takeBackRound(ctx, fmt.Errorf("%s: no valid seed (%d line(s) read%s), and crawl %q has nothing queued: nothing to crawl",
			seedsName(o.seeds), s.read, s.rejectedNote(), o.crawlID))
	case s.queued == 0 && !seenBefore:
		return true, c.takeBackRound(ctx, fmt.Errorf("%s: no seed could be queued (%s), and crawl %q has nothing queued: nothing to crawl",
			seedsName(o.seeds), joinCounts(s.refused), o.crawlID))
	}
	stored, err := c.fr.SetCrawlMeta(ctx, o.crawlID, c.id.meta(c.start), false)
	if err == nil && len(c.id.conflicts(o.crawlID, stored)) > 0 {
		if !o.force {
			// Another run started the crawl in between, with other rules
			// or seeds.
			for _, msg := range c.id.conflicts(o.crawlID, stored) {
				c.refuse("%s", msg)
			}
			return true, cli.Exit(cli.ExitUsage) // reported above
		}
		_, err = c.fr.SetCrawlMeta(ctx, o.crawlID, c.id.identityMeta(), true)
	} else if err == nil && c.id.oldSeedsSum(stored) {
		_, err = c.fr.SetCrawlMeta(ctx, o.crawlID, map[string]string{"seeds_sha256": c.id.seedsSHA, "seeds_count": strconv.Itoa(c.id.seedCount)}, true)
	}
	if err != nil {
		return true, err
	}
	switch {
	case pending > 0 || !seenBefore:
	case c.meta[metaLastFailure] != "" && !c.again:
		return true, c.failedBefore()
	case fresh > 0:
		code := cli.ExitOK
		if s.rejected() > 0 {
			code = cli.ExitPartial // the seeds rejected were reported
		}
		return true, c.nothingDue(ctx, fmt.Sprintf("crawl %q round %d: every seed was fetched in a round begun less than %s ago (--refresh): nothing to crawl",
			o.crawlID, c.round, o.store.Refresh), code)
	default:
		// A round that ended without being marked complete (a crawl made
		// before rounds, or a run killed as it ended): the next run
		// begins a new round.
		if err := c.endRound(ctx); err != nil {
			return true, err
		}
		if !o.quiet {
			tool.Printf("crawl %q is complete: every seed was crawled before, and nothing is queued or in flight; run the same command again to begin round %d", o.crawlID, c.round+1)
		}
		if s.rejected() > 0 {
			return true, cli.Exit(cli.ExitPartial) // the seeds rejected were reported
		}
		return true, nil
	}
	if !o.quiet {
		switch {
		case c.newRound && c.leftRound:
			tool.Printf("crawl %q: round %d begins (round %d was stopped, and is left unfinished: --next-round)", o.crawlID, c.round, c.round-1)
		case c.newRound:
			tool.Printf("crawl %q: round %d begins (round %d was complete)", o.crawlID, c.round, c.round-1)
		case s.again > 0:
			tool.Printf("crawl %q round %d: its last run could fetch nothing (%s): %s queued again", o.crawlID, c.round, c.meta[metaLastFailure], plural(s.again, "seed"))
		case c.killedRun != "":
			// A kill leaves no account: the run after it says what
			// the kill costs, as frontier.md's Resume does.
			tool.Printf("crawl %q round %d: its last run (%s) ended without finishing (killed, or its machine went down): resuming the round; what it held in flight (%s) is fetched again, and the items of those pages it had already exported are exported again (cdedupe --key .url removes them)",
				o.crawlID, c.round, c.killedRun, plural(inFlight, "request"))
		case c.unknown && exportExists(o.out):
			tool.Printf("crawl %q: the frontier (%s) has no record of it, but %s exists: the crawl begins at round 1, and the export goes on from what the file holds (--force)",
				o.crawlID, storeurl.Redact(o.dsn), o.out)
		}
	}
	return false, nil
}
