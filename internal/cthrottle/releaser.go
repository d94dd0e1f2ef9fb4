package cthrottle

import (
	"context"
	"fmt"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// release holds each record until its time and writes it, earliest first
// (ties in the order they came, so a key's records keep their order),
// flushing whenever nothing more is due at once. After an interrupt it
// writes everything at once. It returns when the reserver is done and
// nothing is held.
func (p *pipeline) release(ctx context.Context) {
	w := newWaiting()
	if p.o.Debug {
		w.moved = func(it *item) {
			p.debugf("%s: %s: slot %s, in input order after a hold", it.pos, it.key, slotString(it.slot))
		}
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	ctxDone := ctx.Done()
	interrupted, open := false, true
	in := p.out // nil once closed: a closed channel would be ready for ever
	nextCheck := time.Now().Add(holdCheckEvery)
	for {
		now := time.Now()
		for w.Len() > 0 && (interrupted || !w.first().at.After(now)) {
			p.write(ctx, w.pop(), interrupted)
		}
		if len(p.out) == 0 {
			p.flush(ctx)
		}
		if !open && w.Len() == 0 {
			return
		}
		if p.checkHolds && !interrupted && !now.Before(nextCheck) {
			p.holdAgain(ctx, w)
			nextCheck = time.Now().Add(holdCheckEvery)
			continue
		}
		var due <-chan time.Time
		if w.Len() > 0 {
			wake := w.first().at
			if p.checkHolds && !interrupted {
				wake = minTime(wake, nextCheck)
			}
			timer.Reset(wake.Sub(now))
			due = timer.C
		}
		select {
		case it, ok := <-in:
			if !ok {
				open, in = false, nil
				break
			}
			p.givesBack(w, it)
			w.push(it)
		more:
			for range 4096 {
				select {
				case it, ok := <-in:
					if !ok {
						open, in = false, nil
						break more
					}
					p.givesBack(w, it)
					w.push(it)
				default:
					break more
				}
			}
		case <-due:
		case <-ctxDone:
			ctxDone, interrupted = nil, true
		}
		timer.Stop()
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// write writes one record (unless writing has failed) and frees its place.
func (p *pipeline) write(ctx context.Context, it *item, interrupted bool) {
	defer func() { <-p.sem }()
	if p.writeFailed {
		p.tool.Stats.Drop(unwritten(ctx))
		return
	}
	if err := p.w.WriteLine(it.raw); err != nil {
		p.writeError(ctx, err)
		p.tool.Stats.Drop(unwritten(ctx))
		return
	}
	p.tool.Stats.Out.Add(1)
	switch {
	case it.released || interrupted && it.class == classKeyed && it.at.After(time.Now()):
		// Written before its slot: the run was interrupted.
		p.waited.released++
	case it.wait > 0:
		p.waited.n++
		p.waited.total += it.wait
		p.waited.longest = max(p.waited.longest, it.wait)
	}
}

// unwritten is the reason a record that could not be written is dropped.
func unwritten(ctx context.Context) string {
	if cli.Interrupted(ctx) {
		return "interrupted"
	}
	return "not_written"
}

func (p *pipeline) flush(ctx context.Context) {
	if p.writeFailed {
		return
	}
	if err := p.w.Flush(); err != nil {
		p.writeError(ctx, err)
	}
}

// writeError reports a failed write once, and stops writing. After an
// interrupt a reader that has gone is expected (cfetch stops reading at
// the same signal): that is no failure (cli.ReaderGoneOnInterrupt), and
// what is left is counted as dropped "interrupted".
func (p *pipeline) writeError(ctx context.Context, err error) {
	p.writeFailed = true
	if !cli.ReaderGoneOnInterrupt(ctx, err) {
		p.tool.Fail(fmt.Errorf("write: %v", err))
	}
	p.stopReading()
}
