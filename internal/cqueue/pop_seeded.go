package cqueue

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// defaultSeedWait is how long pop --follow waits for the first request of
// a frontier never given one (or for its SQLite file): a loop may start
// while its seeds are being pushed.
const defaultSeedWait = 5 * time.Second

// seedPoll is how often pop looks for that first request meanwhile.
const seedPoll = 50 * time.Millisecond

// openSeeded opens the frontier pop hands out from, and refuses one that
// was never given a request: a crawl loop run without seeding it (its push
// creates the file) would otherwise end at once, every stage exiting 0
// with nothing crawled. With --follow it first waits up to --seed-wait
// for the file and for a first request.
func (c *popCmd) openSeeded(ctx context.Context, env *cli.Env) (frontier.Frontier, error) {
	deadline := time.Now().Add(c.o.seedWait)
	waiting := func() bool {
		if !c.o.follow || !time.Now().Before(deadline) || ctx.Err() != nil {
			return false
		}
		sleep(ctx, seedPoll)
		return ctx.Err() == nil
	}
	if dsn, err := c.s.DSN(env.Getenv); err == nil && !storeurl.IsRedisURL(dsn) {
		for {
			if _, err := os.Stat(dsn); !errors.Is(err, fs.ErrNotExist) || !waiting() {
				break
			}
		}
	}
	fr, err := c.s.Open(ctx, env, false)
	if err != nil {
		return nil, err
	}
	bg := context.WithoutCancel(ctx)
	for {
		seeded, err := everSeeded(bg, fr)
		if err != nil || seeded {
			if err != nil {
				fr.Close()
			}
			return fr, err
		}
		if !waiting() {
			break
		}
	}
	fr.Close()
	if ctx.Err() != nil {
		return nil, cli.ErrInterrupted
	}
	dsn, _ := c.s.DSN(env.Getenv)
	flag := "--db " + cli.ShellQuote(dsn)
	if storeurl.IsRedisURL(dsn) {
		flag = "--redis " + cli.ShellQuote(storeurl.Redact(dsn))
	}
	return nil, cli.Errorf(cli.ExitFailure, "nothing queued: %s has never been given a request: seed the crawl first (cqueue push %s URL…, or a file of URLs or request records)",
		storeurl.Redact(dsn), flag)
}

// everSeeded reports whether fr was ever given a request: one was queued
// (the lifetime counter), or it holds one.
func everSeeded(ctx context.Context, fr frontier.Frontier) (bool, error) {
	st, err := fr.Stats(ctx)
	if err != nil {
		return false, err
	}
	if st[frontier.StatPushed] > 0 {
		return true, nil
	}
	n, err := fr.Counts(ctx)
	return n.Queued+n.InFlight+n.Dead > 0, err
}
