package crawl

import (
	"context"
	"fmt"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// stateNothingDue is the account's state of a run that found nothing to
// crawl: every seed was fetched in a recent round (--refresh).
const stateNothingDue = "nothing_due"

// nothingDue ends a run that has nothing to crawl because every seed is
// fresh (--refresh): the round this run began is taken back, so no round
// is left shown as running and the last one stays the crawl's, and the
// account is written to --stats FILE all the same, so that a monitor
// reading it does not read the last run's. code is the run's exit status.
func (c *crawl) nothingDue(ctx context.Context, reason string, code int) error {
	if c.newRound {
		if err := c.takeBackRound(ctx, nil); err != nil {
			return err
		}
	} else if err := c.endRound(ctx); err != nil {
		return err
	}
	c.accounted = true
	if !c.o.quiet {
		c.tool.Printf("%s (round %d stays the last)", reason, c.round)
	}
	if c.o.statsFile == "" {
		return cli.Exit(code)
	}
	a := c.account(loopStats{})
	a.State, a.Complete, a.Round, a.Exit = stateNothingDue, true, c.round, &code
	a.Reasons = []string{reason}
	if err := c.writeAccount(a); err != nil {
		return fmt.Errorf("write stats: %w", err)
	}
	return cli.Exit(code)
}
