package crawl

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

// crawl is one run of cqueue crawl.
type crawl struct {
	tool   *cli.Tool
	o      crawlOptions
	start  time.Time
	stdin  io.Reader
	stdout io.Writer
	getenv func(string) string // the command's environment
	now    func() time.Time    // the command's clock (rounds, the run lock)

	fr    frontier.Frontier
	tmp   string // the tools' stats files
	tools toolPaths
	id    identity
	seed  seedResult
	meta  map[string]string // the crawl's metadata as this run began

	round    int  // the round this run crawls
	newRound bool // this run began it
	resumes  bool // this run goes on with a round an earlier run began
	unknown  bool // the frontier had no record of the crawl: this run starts it
	// killedRun is the last run of the crawl on this machine ("pid 123
	// on host") when it ended without releasing the run lock: killed.
	killedRun string
	// failuresFrom is where this run's records begin in --failures FILE
	// (failuresAppend).
	failuresFrom int64
	// leftRound says --next-round left the last round unfinished (it was
	// stopped): the round this run begins follows one that was not complete.
	leftRound bool
	// again says this run queues the round's seeds again: its last run
	// could fetch nothing (failed.go).
	again bool
	// fetchedNothing is set when this run could fetch nothing and left
	// nothing queued or in flight: "yes" when the next run queues the
	// seeds again, "no" when the failure would come back.
	fetchedNothing string
	// deadBefore is the crawl's dead letters as the loop began: those
	// above it at the end were dead-lettered in this run (finish).
	deadBefore int64

	state stateWatch
	brk   loopBreak // broken.go
	pause pauseTeller
	// stopSeen is set when watchStop ended the loop: the crawl was stopped.
	stopSeen atomic.Bool

	// accounted says the run's account was given (finish, nothingDue);
	// reasons are what a run refused for says, for the account of a run
	// that ended before its loop (noloop.go).
	accounted bool
	reasons   []string
}

// run runs the crawl and returns its outcome: an error with its exit
// status (see cli.ExitError). The account of a run whose loop ran has
// been reported by finish; every other run writes its own to --stats
// FILE (accountNoLoop), so a monitor never reads the last run's as its.
func (c *crawl) run(ctx context.Context) error {
	err := c.runLoopOnce(ctx)
	err = c.accountNoLoop(context.WithoutCancel(ctx), err)
	if c.fr != nil {
		c.fr.Close()
	}
	return err
}

// runLoopOnce is run, but for the account of a run that ends before its
// loop, and the frontier's closing.
func (c *crawl) runLoopOnce(ctx context.Context) error {
	tool, o := c.tool, &c.o
	if o.resume && o.nextRound {
		return cli.Usagef("--resume and --next-round: give one of them")
	}
	var err error
	_, throttle := o.pass["cthrottle"]
	if c.tools, err = findTools(throttle); err != nil {
		return err
	}
	if c.tmp, err = os.MkdirTemp("", "cqueue-crawl-"); err != nil {
		return err
	}
	defer os.RemoveAll(c.tmp)

	// Nothing is stored before the rules and the seeds are known good: a
	// mistyped name must not leave a crawl behind.
	rules, err := os.ReadFile(o.rules)
	if err != nil {
		return cli.Errorf(cli.ExitUsage, "rules: %v", describeOpen(err))
	}
	c.id.rules, c.id.rulesSHA, c.id.out = o.rules, sha(rules), o.out
	if err := c.checkRules(ctx); err != nil {
		return err
	}
	if err := c.checkDiscover(rules); err != nil {
		return err
	}
	if err := c.checkContracts(ctx); err != nil {
		return err
	}
	if err := c.checkTools(); err != nil {
		return err
	}
	if err := c.readSeeds(); err != nil {
		return err
	}

	if c.fr, err = o.store.OpenAt(ctx, o.dsn, true); err != nil {
		return err
	}
	bg := context.WithoutCancel(ctx)
	release, err := c.lockRun(bg)
	if err != nil {
		return err
	}
	defer release()
	if err := c.checkFrontier(bg); err != nil {
		return err
	}
	if err := c.checkStopped(bg); err != nil {
		return err
	}
	if err := c.checkPaused(bg); err != nil {
		return err
	}
	if err := c.checkBudget(bg); err != nil {
		return err
	}
	if err := c.startRound(bg); err != nil {
		return err
	}
	if err := c.startBudget(bg); err != nil {
		return err
	}
	if c.again, err = c.seedsAgain(bg); err != nil {
		return err
	}
	// The seeds are pushed whole even if interrupted meanwhile: a crawl
	// half seeded would be refused on its rerun for other seeds.
	if err := c.pushSeeds(bg); err != nil {
		return err
	}
	done, err := c.beforeLoop(bg)
	if cli.Interrupted(ctx) {
		if err != nil {
			tool.Report(err)
		}
		return cli.Errorf(cli.ExitInterrupted, "interrupted before the crawl loop began: run the same command again")
	}
	if done || err != nil {
		return err
	}
	loopCtx, stopLoop := context.WithCancelCause(ctx)
	defer stopLoop(nil)
	c.state.stop = stopLoop
	c.state.armed.Store(true) // startRound set the round
	loopCtx, stopWatch := c.watchStop(loopCtx)
	res := c.runLoop(loopCtx)
	stopWatch()
	c.checkState(bg)
	c.copyToolStats()
	return cli.Exit(c.finish(ctx, res))
}

// copyToolStats honours CFETCH_STATS, CEXTRACT_STATS and CEXPORT_STATS, as
// the tools on their own would: each gets a copy of its tool's stats.
// (cqueue crawl's own --stats, or $CQUEUE_CRAWL_STATS, has every tool's.)
func (c *crawl) copyToolStats() {
	for _, name := range []string{"cfetch", "cextract", "cexport"} {
		dst := c.getenv(cli.EnvName(name, "stats"))
		if dst == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(c.tmp, name+".json"))
		if err == nil {
			err = cli.WriteFileAtomic(dst, b)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.tool.Printf("warning: %s: %v", cli.EnvName(name, "stats"), err)
		}
	}
}
