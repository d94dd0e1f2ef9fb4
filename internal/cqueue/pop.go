package cqueue

import (
	"context"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// popOptions are pop's flags.
type popOptions struct {
	max    int
	follow bool
	lease  time.Duration
	window int
	// hostWindow caps what pop holds in flight of one host (0: three
	// quarters of the window; see hostCap).
	hostWindow int
	batch      int
	poll       time.Duration
	// seedWait is how long pop --follow waits for the first request of a
	// frontier never given one (see openSeeded).
	seedWait time.Duration
	// horizon: a request held longer no longer counts against window
	// (frontier.PopOptions.Horizon; 0: all count).
	horizon time.Duration
}

// popCmd is a run of cqueue pop: its flags.
type popCmd struct {
	s Store
	o popOptions
}

func popCommand() *cli.Command {
	c := &popCmd{o: popOptions{lease: 5 * time.Minute, window: 256, horizon: time.Second, batch: 128, poll: 50 * time.Millisecond, seedWait: defaultSeedWait}}
	return &cli.Command{Name: "pop", Help: popHelp, Flags: c.define, Run: c.run,
		Check: func(env *cli.Env) error {
			if err := noArgs(env); err != nil {
				return err
			}
			return c.o.check()
		}}
}

var popHelp = cli.Help{
	Usage:   "cqueue pop [flags]",
	Summary: "hand out queued requests, each leased until its ack comes back",
	Description: `Writes queued requests to stdout as request records, highest priority first,
FIFO within a priority, taking turns across hosts. Each carries a "lease": the
request is in flight until an ack record with that lease reaches 'cqueue push'.
Without --follow, pop writes what is queued (at most --max) and exits; a lease
that expires (the worker died) returns the request to the queue with retries+1,
and after three expiries it is dead-lettered (see 'cqueue dump').

With --follow, pop is a consumer: it keeps feeding while anything is queued or in
flight, and exits 0 when the crawl is over: nothing queued, nothing in flight.
It holds in flight at most --window requests handed out in the last --horizon
(1s): one out longer is waiting for its host (a Crawl-delay, a rest, a slow
server), not for the fetcher, and does not keep other hosts out. It holds at
most --host-window requests of one host however long they have been out (so a
slow or delayed host cannot hold the fast ones to its pace). While it runs it
beats every 5s,
which renews its leases, so a request waiting out a politeness delay never
expires. If it dies (kill -9, a crash, a reboot), its requests go back to the
queue as soon as another pop sees it is gone: at once on the same machine, after
30s without a beat elsewhere; no retry is counted (after ten such deaths the
request is dead-lettered). So after a crash, running the same pipeline again
resumes the crawl.

On SIGINT or SIGTERM it stops handing out and closes its output; the rest of the
pipeline finishes and acks what it has, while pop waits for those acks (until
none has come for 2s), gives what it still holds back to the queue (a late ack
of it still counts) and exits 130.

A frontier never given a request is not a finished crawl but one never seeded
(a loop run without 'cqueue push SEEDS' first): pop exits 1, "nothing queued", at
once, or with --follow after --seed-wait without a first request (a loop may
start while its seeds are being pushed).

It also writes one {"kind":"expired",...} record per crawl it finds past its
expires (as 'cqueue expire' does); the tools downstream pass it through.

A crawl with a budget (cqueue crawl --max-pages, …, or the request field
max_pages, …) gets no more requests than its pages left, and none once a limit
is reached: pop then says so, and with --follow ends once what it holds is
settled; what is queued stays queued.

With --follow it looks once a second whether a crawl it serves is paused
('cqueue serve' pauses one: the crawl's metadata "paused" is 1); while one is, it
hands out nothing (of any crawl), beating and taking acks as usual, until it is
resumed or the crawl is over.`,
	Examples: `  cqueue pop --db crawl.db --follow | cfetch | cextract -r shop.yml | cexport -r shop.yml -o items.csv | cqueue push --db crawl.db
  cqueue pop --db crawl.db --max 1000 > batch.jsonl      # a cron batch
  cqueue pop --db crawl.db --follow --window 256 --lease 10m`,
}

func (c *popCmd) define(f *cli.Flags) {
	c.s.AddFlags(f)
	f.IntVarP(&c.o.max, "max", "n", 0, "hand out at most `N` requests, then exit (0: no limit)")
	f.BoolVarP(&c.o.follow, "follow", "f", false, "keep feeding until nothing is queued or in flight, then exit 0")
	f.DurationVar(&c.o.lease, "lease", c.o.lease, "how long a handed-out request may stay unacked before it is handed out again")
	f.IntVar(&c.o.window, "window", c.o.window, "with --follow, hand out no more while this pop holds `N` requests in flight (bounds refetches after a crash)")
	f.IntVar(&c.o.hostWindow, "host-window", 0, "with --follow, hand out no more of a host while this pop holds `N` of its requests in flight (default: 3/4 of --window; --window or more: no cap)")
	f.DurationVar(&c.o.horizon, "horizon", c.o.horizon, "with --follow, a request handed out this long ago and not yet acked (waiting for its host: a Crawl-delay, a rest, a slow server) no longer counts against --window (0: every one counts)")
	f.IntVar(&c.o.batch, "batch", c.o.batch, "pop at most `N` requests per transaction")
	f.DurationVar(&c.o.poll, "poll", c.o.poll, "with --follow, the longest wait between looks at the frontier when nothing can be handed out")
	f.DurationVar(&c.o.seedWait, "seed-wait", c.o.seedWait, "with --follow, how long to wait for the first request of a frontier never given one (or for its file), before exiting 1: nothing queued")
}

func (c *popCmd) run(ctx context.Context, env *cli.Env) error {
	tool, o := env.Tool, c.o
	if err := noArgs(env); err != nil {
		return err
	}
	// A pop whose reader has gone leaves its leases behind (but one run
	// inside cqueue crawl, which gives them back: popper.run): it says
	// so even with -q, so that a loop whose later stage died says why.
	if env.OwnProcess() {
		cli.SayWhenOutputGone()
	}
	// pop watches its output itself (a reader that hung up) and closes it
	// on an interrupt: it needs the file itself (Output returns it).
	stdout, err := env.Output()
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	fr, err := c.openSeeded(ctx, env)
	if err != nil {
		return err
	}
	defer fr.Close()
	p := &popper{fr: fr, o: o, out: stdout, w: ndjson.NewWriter(stdout), tool: tool, now: env.Now, inside: !env.OwnProcess()}
	tool.RateOut = true // pop reads nothing: its pace is what it hands out
	tool.Gauges = p.levels
	tool.StartProgress(time.Second, nil)
	if err := p.run(ctx); err != nil {
		tool.Fail(err)
	}
	return tool.Done(ctx)
}

// check refuses settings pop cannot run with.
func (o popOptions) check() error {
	switch {
	case o.max < 0:
		return cli.Usagef("--max %d: must not be negative", o.max)
	case o.lease <= 0:
		return cli.Usagef("--lease %s: must be positive", o.lease)
	case o.window < 1:
		return cli.Usagef("--window %d: must be at least 1", o.window)
	case o.hostWindow < 0:
		return cli.Usagef("--host-window %d: must not be negative", o.hostWindow)
	case o.horizon < 0:
		return cli.Usagef("--horizon %s: must not be negative", o.horizon)
	case o.batch < 1:
		return cli.Usagef("--batch %d: must be at least 1", o.batch)
	case o.poll <= 0:
		return cli.Usagef("--poll %s: must be positive", o.poll)
	case o.seedWait < 0:
		return cli.Usagef("--seed-wait %s: must not be negative", o.seedWait)
	}
	return nil
}

// hostCap is the host window pop asks the frontier for: --host-window, by
// default three quarters of --window (at least 1), and none (0) when it is
// --window or more, which the window caps anyway. Three quarters: a crawl
// of one host keeps in flight what it did without the cap (at three
// quarters pop already paces its turns, see pace), and the other hosts
// keep a quarter of the window however slow one host is.
func (o popOptions) hostCap() int {
	n := o.hostWindow
	if n == 0 {
		n = max(1, o.window*3/4)
	}
	if n >= o.window {
		return 0
	}
	return n
}
