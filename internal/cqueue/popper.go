package cqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// beatEvery is how often pop --follow beats: well within the consumer
// timeout other processes judge it by.
const beatEvery = frontier.DefaultConsumerTimeout / 6

// expireEvery is how often pop --follow looks for expired crawls.
const expireEvery = time.Second

// popper is one run of cqueue pop.
type popper struct {
	fr   frontier.Frontier
	o    popOptions
	out  io.Writer // stdout, to close when interrupted and to watch for a hang-up
	w    *ndjson.Writer
	tool *cli.Tool
	now  func() time.Time
	// inside: run inside another command's process (cqueue crawl's pop),
	// which outlives it: what it holds when it stops on an error goes
	// back to the queue at once, as no one sees a process gone.
	inside bool

	consumer   frontier.Consumer
	handed     int
	held       atomic.Int64 // in flight held by this consumer, after the last turn
	lastExpire time.Time
	stall      stallWatch
	pause      pauseWatch
	budget     budgetWatch // pop_budget.go
	idle       idleWatch   // pop_idle.go
	isPaused   atomic.Bool // for the gauges
}

// errReaderGone is pop's error when its output's reader has gone. It is
// an EPIPE (errors.Is), found by a write or by cli.ReaderGone alike, so
// that cli.ReaderGoneOnInterrupt tells both apart from a failure.
var errReaderGone error = readerGoneError{}

type readerGoneError struct{}

func (readerGoneError) Error() string {
	return "write stdout: the reader is gone (the pipeline's next command exited)"
}

func (readerGoneError) Unwrap() error { return syscall.EPIPE }

// writeError is pop's error for a failed write to its output: a pipe
// whose reader has gone (EPIPE) is said as errReaderGone, whatever the
// pipe's name (inside cqueue crawl it is not the process's stdout).
func writeError(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		return errReaderGone
	}
	return fmt.Errorf("write stdout: %w", err)
}

// stallAfter is how long pop --follow waits, holding requests in flight
// and seeing none of them acked, before it says so on stderr (and again
// each time as long again passes).
const stallAfter = time.Minute

// stallWatch notices a loop that makes no progress: requests in flight,
// none handed out, none acked. Whatever the cause (a filter in the pipe
// that drops responses, a tool that died without closing its output, a
// host that stopped answering), the user should hear of it rather than
// watch a silent crawl that never ends.
type stallWatch struct {
	held  int
	since time.Time // when progress was last seen
	told  time.Time
}

func (w *stallWatch) observe(tool *cli.Tool, res frontier.PopResult, now time.Time) {
	if len(res.Leased) > 0 || res.Held < w.held || res.Held == 0 || w.since.IsZero() {
		w.held, w.since, w.told = res.Held, now, time.Time{}
		return
	}
	w.held = res.Held
	if now.Sub(w.since) >= stallAfter && now.Sub(w.told) >= stallAfter {
		w.told = now
		tool.Printf("warning: %d requests in flight and none acked for %s: is a command of the pipeline dropping records (a filter that drops responses never lets their acks through) or stuck? The crawl ends only once each is acked, or its lease expires when this pop is gone.",
			res.Held, now.Sub(w.since).Round(time.Second))
	}
}

// run hands out requests until --max, the end of the queue (without
// --follow), the end of the crawl (with --follow) or an interrupt.
func (p *popper) run(ctx context.Context) error {
	bg := context.WithoutCancel(ctx) // a transaction is never cut in half
	if !p.o.follow {
		if err := p.expired(bg); err != nil {
			return err
		}
		_, err := p.loop(ctx, bg)
		return err
	}
	c, err := p.fr.Join(bg, frontier.ThisMachine(), p.now())
	if err != nil {
		return err
	}
	p.consumer = c
	if !p.inside {
		// A reader that exits makes writes to stdout fail with EPIPE
		// instead of killing pop, so an interrupted pop still leaves
		// cleanly. (Inside cqueue crawl, stdout is a pipe of its own:
		// only the process's stdout can kill it so.)
		ignoreSIGPIPE()
	}
	stopBeats := p.beat(bg)
	done, err := p.loop(ctx, bg)
	stopBeats()
	switch {
	case errors.Is(context.Cause(ctx), cli.ErrKilled):
		// Ended at once by the command it runs in: what it holds goes
		// back now, as a dead process's would.
		return errors.Join(cli.ErrKilled, p.fr.Leave(bg, c, p.now()))
	case err != nil && (ctx.Err() != nil || cli.ReaderGoneOnInterrupt(ctx, err)):
		// Interrupted while writing to a pipeline that stopped reading:
		// the next command stopping at the same Ctrl-C (a terminal's
		// reaches every process of the loop) is what was asked for, even
		// when pop sees it gone before its own interrupt.
		return p.drain(bg)
	case err != nil && p.inside:
		return errors.Join(err, p.fr.Leave(bg, c, p.now()))
	case err != nil:
		// Leases stay with this consumer: once this process is gone the
		// next pop gives them back (at once on this machine).
		return err
	case done:
		return p.fr.Leave(bg, c, p.now())
	}
	return p.drain(bg)
}

// loop pops until it should stop; done says the crawl (or the batch) is
// over rather than interrupted.
func (p *popper) loop(ctx, bg context.Context) (done bool, err error) {
	wait := time.Millisecond
	for ctx.Err() == nil {
		n := p.o.batch
		if p.o.max > 0 {
			n = min(n, p.o.max-p.handed)
			if n == 0 {
				return true, nil
			}
		}
		n, end, err := p.budgetGate(bg, n)
		if err != nil || end {
			return end, err
		}
		if n == 0 {
			if !p.o.follow {
				return true, nil // the pages left are handed out
			}
			sleep(ctx, budgetPoll)
			continue
		}
		if p.o.follow && p.now().Sub(p.lastExpire) >= expireEvery {
			if err := p.expired(bg); err != nil {
				return false, err
			}
		}
		if p.o.follow {
			paused, err := p.pause.due(bg, p.fr, p.now())
			if err != nil {
				return false, err
			}
			p.isPaused.Store(paused)
			if paused {
				if done, err := p.paused(ctx, bg); done || err != nil {
					return done, err
				}
				continue
			}
		}
		var ver int64
		versioned := false
		if p.o.follow {
			ver, versioned = p.version(bg)
		}
		if p.idle.unchanged(ver, versioned, p.now()) {
			// Nothing written since a pop that found nothing.
			if err := p.waitForMore(ctx, &wait, false); err != nil {
				return false, err
			}
			continue
		}
		res, err := p.fr.Pop(bg, frontier.PopOptions{Max: n, Lease: p.o.lease, Consumer: p.consumer, Window: p.o.window, HostWindow: p.o.hostCap(), Horizon: p.o.horizon}, p.now())
		if err != nil {
			return false, err
		}
		p.idle.popped(len(res.Leased), ver, versioned, p.now())
		if res.GaveBack > 0 {
			p.tool.Printf("warning: the frontier lost its last writes (Redis restarted without the end of its append-only file?): the %d requests this pop held are queued again, and the pages done since are fetched again",
				res.GaveBack)
		}
		if res.Leased, err = p.budgetAfter(bg, res.Leased); err != nil {
			return false, err
		}
		if p.o.follow {
			if back, err := p.holdBack(bg, res); err != nil || back {
				if err != nil {
					return false, err
				}
				continue
			}
			p.held.Store(int64(res.Held))
			p.stall.observe(p.tool, res, p.now())
		}
		for _, l := range res.Leased {
			if err := p.w.WriteLine(l.Raw); err != nil {
				return false, writeError(err)
			}
		}
		if err := p.w.Flush(); err != nil {
			return false, writeError(err)
		}
		p.handed += len(res.Leased)
		p.tool.Stats.Out.Add(int64(len(res.Leased)))
		busy := p.o.follow && p.o.window > 0 && res.Held >= p.o.window*3/4
		if len(res.Leased) > 0 {
			wait = time.Millisecond
			if busy {
				// Plenty is in flight: let acks gather for a turn worth
				// its transaction, rather than one turn per ack.
				sleep(ctx, pace)
			}
			continue
		}
		if res.Done || !p.o.follow {
			return true, nil
		}
		if err := p.waitForMore(ctx, &wait, busy); err != nil {
			return false, err
		}
	}
	return false, nil
}

// waitForMore waits before pop --follow looks again when it could hand
// out nothing: *wait (at least pace while busy), which then doubles up to
// --poll. A reader that has gone ends the loop instead.
func (p *popper) waitForMore(ctx context.Context, wait *time.Duration, busy bool) error {
	if cli.ReaderGone(p.out) {
		return errReaderGone
	}
	if busy {
		*wait = max(*wait, pace)
	}
	sleep(ctx, *wait)
	*wait = min(*wait*2, p.o.poll)
	return nil
}

// levels are pop's gauges in its stats: the frontier's queued, in flight
// and dead requests (every crawl's, every consumer's) and, with --follow,
// those this pop holds in flight.
func (p *popper) levels() map[string]int64 {
	g := map[string]int64{}
	if p.o.follow {
		g["held"] = p.held.Load()
		if p.isPaused.Load() {
			g["paused"] = 1
		}
	}
	c, err := p.fr.Counts(context.Background())
	if err == nil {
		g["queued"], g["in_flight"], g["dead"] = c.Queued, c.InFlight, c.Dead
	}
	return g
}

// pace is the least time between two turns of pop --follow while three
// quarters of its window is in flight: acks then come back one at a time
// (measured with 20 ms responses: 2,500 turns for 3,160 pages, most of them
// finding one free slot or none), and a turn costs a transaction whatever
// it hands out. Three quarters of the window keeps the fetcher busy for
// far longer than this.
const pace = 5 * time.Millisecond

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// beat beats in the background until the returned func is called.
func (p *popper) beat(bg context.Context) (stop func()) {
	return cli.Every(beatEvery, func() {
		if _, err := p.fr.Beat(bg, p.consumer, p.o.lease, p.now()); err != nil {
			p.tool.Printf("warning: heartbeat: %v", err)
		}
	})
}

// drainQuiet is how long drain waits for the next ack before it gives up
// on the rest: requests written to a pipe its reader stopped reading are
// never acked.
const drainQuiet = 2 * time.Second

// drain, after an interrupt, closes the output so the pipeline finishes
// what it has, and beats while acks come in (until none has for
// drainQuiet, at most one lease), then leaves: what it still holds goes
// back to the queue, and a late ack of it is still honoured.
func (p *popper) drain(bg context.Context) error {
	p.w.Flush() // its reader may be gone already: nothing more to give it
	if c, ok := p.out.(io.Closer); ok {
		c.Close()
	}
	start := p.now()
	last, lastChange := -1, start
	for {
		held, err := p.fr.Beat(bg, p.consumer, p.o.lease, p.now())
		if err != nil {
			return err
		}
		p.held.Store(int64(held))
		now := p.now()
		if held != last {
			last, lastChange = held, now
		}
		if held == 0 || now.Sub(lastChange) >= drainQuiet || now.Sub(start) >= p.o.lease {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.held.Store(0) // what is left goes back to the queue
	return p.fr.Leave(bg, p.consumer, p.now())
}

// expired writes one record per crawl expired since the last look.
func (p *popper) expired(bg context.Context) error {
	p.lastExpire = p.now()
	es, err := p.fr.Expire(bg, p.lastExpire)
	if err != nil {
		return err
	}
	for _, e := range es {
		b, err := json.Marshal(expiredRecord{"expired", e})
		if err != nil {
			return err
		}
		if err := p.w.WriteLine(b); err != nil {
			return fmt.Errorf("write stdout: %w", err)
		}
	}
	return nil
}

// expiredRecord is the notification of an expired crawl.
type expiredRecord struct {
	Kind string `json:"kind"`
	frontier.Expired
}
