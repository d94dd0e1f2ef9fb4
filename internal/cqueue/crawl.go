package cqueue

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
}

// metaLastFailure is the crawl metadata that says its last run fetched
// nothing at all, and why.
const metaLastFailure = "last_failure"

func (c *crawl) run(ctx context.Context) int {
	tool, o := c.tool, &c.o
	var err error
	_, throttle := o.pass["cthrottle"]
	if c.tools, err = findTools(throttle); err != nil {
		tool.Printf("%v", err)
		return cli.ExitFailure
	}
	if c.tmp, err = os.MkdirTemp("", "cqueue-crawl-"); err != nil {
		tool.Printf("%v", err)
		return cli.ExitFailure
	}
	defer os.RemoveAll(c.tmp)

	// Nothing is stored before the rules and the seeds are known good: a
	// mistyped name must not leave a crawl behind.
	rules, err := os.ReadFile(o.rules)
	if err != nil {
		tool.Printf("rules: %v", describeOpen(err))
		return cli.ExitUsage
	}
	c.id.rules, c.id.rulesSHA, c.id.out = o.rules, sha(rules), o.out
	code := c.checkRules(ctx)
	if code != cli.ExitOK {
		return code
	}
	if code := c.readSeeds(); code != cli.ExitOK {
		return code
	}

	c.fr, code = o.store.openDSN(ctx, tool, o.dsn)
	if c.fr == nil {
		return code
	}
	defer c.fr.Close()
	bg := context.WithoutCancel(ctx)
	release, code := c.lockRun(bg)
	if release == nil {
		return code
	}
	defer release()
	if code := c.checkFrontier(bg); code != cli.ExitOK {
		return code
	}
	if code := c.startRound(bg); code != cli.ExitOK {
		return code
	}
	// The seeds are pushed whole even if interrupted meanwhile: a crawl
	// half seeded would be refused on its rerun for other seeds.
	if code := c.pushSeeds(bg); code != cli.ExitOK {
		return code
	}
	code, done := c.beforeLoop(bg)
	if cli.Interrupted(ctx) {
		tool.Printf("interrupted before the crawl loop began: run the same command again")
		return cli.ExitInterrupted
	}
	if done {
		return code
	}
	res := c.runLoop(ctx)
	c.copyToolStats()
	return c.finish(ctx, res)
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

// openDSN opens the frontier at dsn with s's settings, creating an SQLite
// file (the crawl pushes its seeds first); it reports a failure and
// returns its exit status.
func (s store) openDSN(ctx context.Context, tool *cli.Tool, dsn string) (frontier.Frontier, int) {
	f, err := s.openAt(ctx, dsn, true)
	if err != nil {
		return nil, tool.Report(err)
	}
	return f, cli.ExitOK
}
