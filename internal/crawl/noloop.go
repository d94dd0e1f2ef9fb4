package crawl

import (
	"context"
	"errors"
	"strconv"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

// The account of a run that ends before its crawl loop runs: another run
// holds the crawl's lock, the crawl is stopped, paused or at the end of
// its budget, the rules or the seeds are refused, its seeds failed before
// for a cause that would come back. Such a run writes its --stats FILE
// all the same, with its state and exit status, so that a monitor reading
// the file never reads the last run's as this one's.

// States of the account of a run that did nothing, besides failed,
// interrupted, complete and stopped (stopped_at, or stop_reason: the
// budget reached) and nothing_due (nothing.go).
const (
	// stateAlreadyRunning: another run of the crawl holds its lock (exit
	// ExitRunning).
	stateAlreadyRunning = "already_running"
	// statePaused: the crawl is paused (exit ExitPaused), since
	// paused_at.
	statePaused = "paused"
)

// accountNoLoop writes the account of a run that ended before its loop
// ran (err is how it ended; nil: exit 0) to --stats FILE, unless the
// run's account was given already (finish, nothingDue). It returns err,
// or, when err says success, the failure to write the file.
func (c *crawl) accountNoLoop(ctx context.Context, err error) error {
	if c.accounted || c.o.statsFile == "" {
		return err
	}
	c.accounted = true
	code := cli.ExitCode(err)
	a := c.account(loopStats{})
	a.Exit = &code
	meta := c.meta
	if c.fr != nil {
		// As the run left it (startBudget notes the budget reached), or
		// as another run has it (the one holding the lock).
		if m, err := c.fr.CrawlMeta(ctx, c.o.crawlID); err == nil {
			meta = m
		}
	}
	a.Round = c.round
	if a.Round == 0 {
		a.Round, _ = strconv.Atoi(meta[metaRound])
	}
	switch code {
	case cli.ExitOK, cli.ExitPartial:
		a.State, a.Complete = "complete", true
	case ExitRunning:
		a.State = stateAlreadyRunning
	case ExitStopped:
		a.State, a.StoppedAt = stateStopped, meta[frontier.MetaStopped]
		if why := meta[frontier.MetaBudgetReached]; why != "" && a.StoppedAt == "" {
			a.StopReason = why
			a.Budget = &budgetAccount{Limits: frontier.BudgetOf(meta).String(), CrawlCounts: frontier.CountsOf(meta)}
		}
	case ExitPaused:
		a.State, a.PausedAt = statePaused, pausedSince(meta)
	case cli.ExitInterrupted:
		a.State = "interrupted"
	default:
		a.State = "failed"
	}
	a.Reasons = append(a.Reasons, c.reasons...)
	var ee *cli.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.Err != nil) {
		a.Reasons = append(a.Reasons, err.Error())
	}
	if c.fr != nil {
		if queued, inFlight, err := c.leftOf(ctx); err == nil {
			a.Left.Queued, a.Left.InFlight = queued, inFlight
		}
	}
	if werr := c.writeAccount(a); werr != nil {
		c.tool.Printf("write stats: %v", werr)
		if code == cli.ExitOK || code == cli.ExitPartial {
			return cli.Exit(cli.ExitFailure)
		}
	}
	return err
}
