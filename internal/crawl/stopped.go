package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/monitor"
)

// A crawl run by cqueue crawl is stopped (cqueue stop, or cqueue serve's
// Stop) by its metadata: frontier.StopCrawl pauses it and sets
// frontier.MetaStopped, keeping its queue. A run under way sees it within
// a second (watchStop) and ends as after a Ctrl-C, reporting the crawl
// stopped (exit ExitStopped), or complete when nothing was left; the next run does nothing until told how to
// go on: --resume resumes the round, --next-round drops what it left and
// begins the next round. So a stop never silently breaks the nights after
// it, nor is silently undone.

// ExitStopped is cqueue crawl's exit status for a crawl stopped by cqueue
// stop or cqueue serve's Stop: the run that was stopped, and every run
// after it until --resume or --next-round.
const ExitStopped = 5

const stateStopped = "stopped"

// stopCheckEvery is how often a run reads whether its crawl was stopped.
const stopCheckEvery = time.Second

// watchStop returns a context for the loop that is cancelled (the loop
// drains as after a Ctrl-C) when ctx is, or when the crawl is stopped;
// stop ends the watch.
func (c *crawl) watchStop(ctx context.Context) (loop context.Context, stop func()) {
	loop, cancel := context.WithCancel(ctx)
	bg := context.WithoutCancel(ctx)
	end := cli.Every(stopCheckEvery, func() {
		m, err := c.fr.CrawlMeta(bg, c.o.crawlID)
		if err != nil {
			return
		}
		if m[frontier.MetaStopped] != "" {
			c.stopSeen.Store(true)
			cancel()
		}
		c.pause.see(c, m)
	})
	return loop, func() { end(); cancel() }
}

// checkStopped is the start of a run of a stopped crawl: with --resume it
// resumes the round, with --next-round it drops what the round left and
// lets the next round begin, and without either it refuses to run,
// saying how to go on.
func (c *crawl) checkStopped(ctx context.Context) error {
	o := &c.o
	at := c.meta[frontier.MetaStopped]
	round := c.meta[metaRound]
	purged, expired, expiredAt := false, false, ""
	if at == "" {
		info, err := c.fr.Info(ctx, frontier.InfoFilter{CrawlID: o.crawlID})
		if err != nil {
			return err
		}
		switch purgedState(info, o.crawlID) {
		case frontier.StateStopped:
			purged = true
		case frontier.StateExpired:
			// The frontier purged the round's queue when the crawl
			// expired, and its duplicate filter still holds what it
			// purged: the round cannot be finished, whatever expires the
			// seeds are given now (they would be refused as seen, and
			// the round called complete). A round complete before its
			// crawl expired lost nothing.
			if c.meta[metaRoundState] == "complete" {
				return nil
			}
			purged, expired, expiredAt = true, true, expiresOf(info, o.crawlID)
		default:
			return nil
		}
	}
	clear := map[string]string{frontier.MetaStopped: "", frontier.MetaPaused: "0"}
	switch {
	case expired && !o.nextRound:
		return cli.Errorf(ExitStopped, "crawl %q expired%s%s (the expires of its requests passed): the frontier purged what it had queued, so there is nothing to resume, and this run does nothing. To begin the next round over from the seeds, give them a later expires and run the same command with --next-round (and --force, for the changed seeds)",
			o.crawlID, expiredAt, inRound(round))
	case purged && !o.nextRound:
		return cli.Errorf(ExitStopped, "crawl %q was stopped with its queue purged (cqueue stop --purge)%s: what it had queued is gone, so there is nothing to resume, and this run does nothing. To begin the next round over from the seeds, run the same command with --next-round",
			o.crawlID, inRound(round))
	case o.resume:
		clear[metaRoundState] = "running"
		if !o.quiet {
			c.tool.Printf("crawl %q: resuming round %s, stopped at %s (--resume)", o.crawlID, round, at)
		}
	case o.nextRound:
		n, err := c.fr.Stop(ctx, o.crawlID, c.now())
		if err == nil {
			err = c.fr.Unstop(ctx, o.crawlID, c.now())
		}
		if err != nil {
			return err
		}
		clear[metaRoundState] = "complete"
		c.leftRound = true
		switch {
		case o.quiet:
		case expired:
			c.tool.Printf("crawl %q%s, expired with its queue purged, is left as it was (--next-round)", o.crawlID, inRound(round))
		case at == "" && round == "":
			c.tool.Printf("crawl %q was stopped with its queue purged (cqueue stop --purge): it begins over (--next-round)", o.crawlID)
		case at == "":
			c.tool.Printf("crawl %q: round %s, stopped with its queue purged (cqueue stop --purge), is left as it was (--next-round)", o.crawlID, round)
		default:
			c.tool.Printf("crawl %q: round %s, stopped at %s, is left as it was: %d request(s) it had queued are dropped (--next-round)", o.crawlID, round, at, n)
		}
	default:
		queued, inFlight, err := c.leftOf(ctx)
		if err != nil {
			return err
		}
		return cli.Errorf(ExitStopped, "crawl %q was stopped at %s (cqueue stop, or cqueue serve's Stop) in round %s, with %d request(s) queued and %d in flight: this run does nothing. To resume the round, run the same command with --resume; to begin the next round over from the seeds, with --next-round",
			o.crawlID, at, round, queued, inFlight)
	}
	m, err := c.fr.SetCrawlMeta(ctx, o.crawlID, clear, true)
	if err != nil {
		return err
	}
	c.meta = m
	return nil
}

// purgedState is frontier.StateStopped when info has crawl crawlID
// stopped in the frontier itself (frontier.Stop: cqueue stop --purge, as
// Scrapy Cluster stops a crawl), frontier.StateExpired when the expires of
// its requests passed, else "". Either way its queue was purged, so its
// round cannot be complete; a stopped one's pushes are refused, so it can
// only be begun over (--next-round).
func purgedState(info frontier.Info, crawlID string) string {
	for _, ci := range info.Crawls {
		if ci.CrawlID == crawlID && (ci.State == frontier.StateStopped || ci.State == frontier.StateExpired) {
			return ci.State
		}
	}
	return ""
}

// expiresOf is " at TIME", crawl crawlID's expiry in info, for a
// message, or "" when info has none.
func expiresOf(info frontier.Info, crawlID string) string {
	for _, ci := range info.Crawls {
		if ci.CrawlID == crawlID && ci.Expires > 0 {
			return " at " + time.Unix(ci.Expires, 0).UTC().Format(time.RFC3339)
		}
	}
	return ""
}

// inRound is " in round N" for a message, or "" before the crawl's first.
func inRound(round string) string {
	if round == "" {
		return ""
	}
	return " in round " + round
}

// leftOf is what the frontier holds of the crawl.
func (c *crawl) leftOf(ctx context.Context) (queued, inFlight int64, err error) {
	info, err := c.fr.Info(ctx, frontier.InfoFilter{CrawlID: c.o.crawlID})
	for _, ci := range info.Crawls {
		queued += ci.Pending
		inFlight += ci.InFlight
	}
	return queued, inFlight, err
}

// stopEndedLoop says whether the loop's tools drained (exit 130) only
// because watchStop ended the loop, not for a signal.
func (c *crawl) stopEndedLoop(ctx context.Context) bool {
	return c.stopSeen.Load() && !cli.Interrupted(ctx)
}

// markStopped makes the account of a run whose crawl was stopped say so,
// and returns its exit status: ExitStopped, unless the run was
// interrupted as well or nothing is left (then the crawl is complete and
// the stop has nothing to keep: it is cleared).
func (c *crawl) markStopped(ctx context.Context, a *crawlAccount, code int, interrupted bool, purged string) int {
	if purged != "" && !interrupted {
		// cqueue stop --purge, or the crawl's expiry: what was queued is
		// gone, whatever is left.
		if _, err := c.fr.SetCrawlMeta(ctx, c.o.crawlID, map[string]string{metaRoundState: stateStopped}, true); err != nil {
			c.tool.Printf("%v", err)
		}
		a.State, a.Complete = stateStopped, false
		why := fmt.Sprintf("stopped: its queue was purged (cqueue stop --purge) after %s: what it had queued is gone; the next run does nothing until given --next-round (begin round %d over)",
			plural(a.Pages.Total, "page"), c.round+1)
		if purged == frontier.StateExpired {
			why = fmt.Sprintf("stopped: the crawl expired (the expires of its requests passed) after %s: what it had queued was purged; the next run does nothing until given --next-round (begin round %d over, from seeds with a later expires)",
				plural(a.Pages.Total, "page"), c.round+1)
		}
		a.Reasons = append(a.Reasons, why)
		if code == cli.ExitOK || code == cli.ExitPartial {
			return ExitStopped
		}
		return code
	}
	m, err := c.fr.CrawlMeta(ctx, c.o.crawlID)
	if err != nil || m[frontier.MetaStopped] == "" || interrupted {
		return code
	}
	if a.Complete {
		c.fr.SetCrawlMeta(ctx, c.o.crawlID, map[string]string{frontier.MetaStopped: "", frontier.MetaPaused: "0"}, true)
		return code
	}
	if _, err := c.fr.SetCrawlMeta(ctx, c.o.crawlID, map[string]string{metaRoundState: stateStopped}, true); err != nil {
		c.tool.Printf("%v", err)
	}
	a.State, a.StoppedAt = stateStopped, m[frontier.MetaStopped]
	if code == cli.ExitOK || code == cli.ExitPartial || code == cli.ExitInterrupted {
		return ExitStopped
	}
	return code
}

// stoppedLine is the verdict of a stopped run.
func (c *crawl) stoppedLine(a crawlAccount) string {
	return fmt.Sprintf("stopped at %s (cqueue stop, or cqueue serve's Stop) after %s: %d queued, %d in flight, kept; the next run does nothing until given --resume (resume the round) or --next-round (begin round %d over)",
		a.StoppedAt, plural(a.Pages.Total, "page"), a.Left.Queued, a.Left.InFlight, a.Round+1)
}

// leaveLastRun keeps the run's totals in the crawl's metadata
// (monitor.MetaLastRun), for cqueue serve once the tools' stats are gone.
func (c *crawl) leaveLastRun(ctx context.Context, a crawlAccount) {
	b, err := json.Marshal(map[string]any{"pages": a.Pages.Total, "items": a.Items.Exported, "errors": sum(a.Pages.Errors),
		"state": a.State, "exit": a.Exit, "started_at": a.StartedAt, "duration_s": a.DurationS})
	if err == nil {
		_, err = c.fr.SetCrawlMeta(ctx, c.o.crawlID, map[string]string{monitor.MetaLastRun: string(b)}, true)
	}
	if err != nil {
		c.tool.Printf("%v", err)
	}
}
