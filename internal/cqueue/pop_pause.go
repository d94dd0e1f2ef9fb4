package cqueue

import (
	"context"
	"encoding/json"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
)

// Pausing: cqueue serve pauses a crawl by setting its metadata
// frontier.MetaPaused to "1". Pop serves every crawl of its frontier, in
// one order of its own (the frontier's Lua scripts and queries are not
// changed for it), so a pop --follow that serves a paused crawl hands out
// nothing at all until the crawl is resumed, while its heartbeats, the
// expiry checks and the acks of what is in flight go on.
//
// Pop learns which crawls it serves from what it hands out. It reads the
// flag of a crawl it has not served before at once, before writing the
// batch (a batch with a paused crawl's request is given back to the
// queue, unfetched and not counted against it), and then once a second
// for up to pauseReads crawls it served in the last minute, in turn, plus
// every paused one: a pause takes effect within a second for a pop serving
// a few crawls, and costs one small read a second per crawl.

const (
	pauseCheckEvery = time.Second
	pauseReads      = 8
	pauseForget     = time.Minute
)

// pauseWatch is pop's view of the pause flags of the crawls it serves.
type pauseWatch struct {
	served map[string]time.Time // crawl → when pop last handed out one of its requests
	order  []string             // the round robin of the reads
	next   int
	paused map[string]bool
	told   map[string]bool // paused crawls whose pause record was written
	last   time.Time       // the last periodic read
}

// isPaused reports whether a crawl pop serves is paused.
func (w *pauseWatch) isPaused() bool { return len(w.paused) > 0 }

// learn notes the crawls of a batch handed out at now and returns those
// pop had not served (or not within pauseForget).
func (w *pauseWatch) learn(ls []frontier.Leased, now time.Time) (fresh []string) {
	if w.served == nil {
		w.served, w.paused = map[string]time.Time{}, map[string]bool{}
	}
	for _, l := range ls {
		if _, ok := w.served[l.CrawlID]; !ok {
			fresh = append(fresh, l.CrawlID)
			w.order = append(w.order, l.CrawlID)
		}
		w.served[l.CrawlID] = now
	}
	return fresh
}

// due reads, at most once per pauseCheckEvery, the flags of the paused
// crawls and of up to pauseReads others in turn, and forgets the crawls
// not served for pauseForget. It returns whether a crawl is paused.
func (w *pauseWatch) due(ctx context.Context, fr frontier.Frontier, now time.Time) (bool, error) {
	if now.Sub(w.last) < pauseCheckEvery && !now.Before(w.last) {
		return w.isPaused(), nil
	}
	w.last = now
	kept := w.order[:0]
	for _, id := range w.order {
		if now.Sub(w.served[id]) > pauseForget && !w.paused[id] {
			delete(w.served, id)
			continue
		}
		kept = append(kept, id)
	}
	w.order = kept
	ids := make([]string, 0, pauseReads+len(w.paused))
	for id := range w.paused {
		ids = append(ids, id)
	}
	for range min(pauseReads, len(w.order)) {
		w.next %= len(w.order)
		if id := w.order[w.next]; !w.paused[id] {
			ids = append(ids, id)
		}
		w.next++
	}
	return w.read(ctx, fr, ids)
}

// read reads the flags of crawls ids and returns whether a crawl is
// paused.
func (w *pauseWatch) read(ctx context.Context, fr frontier.Frontier, ids []string) (bool, error) {
	for _, id := range ids {
		m, err := fr.CrawlMeta(ctx, id)
		if err != nil {
			return false, err
		}
		if m[frontier.MetaPaused] == "1" {
			w.paused[id] = true
		} else {
			delete(w.paused, id)
			delete(w.told, id)
		}
	}
	return w.isPaused(), nil
}

// paused is pop --follow's wait while a crawl it serves is paused: it
// hands out nothing, but ends like any pop when the crawl is over (a
// crawl stopped while paused ends once what is in flight is acked).
// done says the crawl is over.
func (p *popper) paused(ctx, bg context.Context) (done bool, err error) {
	p.stall = stallWatch{} // a pause is no stall
	if done, err := p.fr.Done(bg); err != nil || done {
		return done, err
	}
	if cli.ReaderGone(p.out) {
		return false, errReaderGone
	}
	if err := p.tellPaused(); err != nil {
		return false, err
	}
	if err := p.w.Flush(); err != nil { // an expired notification
		return false, err
	}
	sleep(ctx, min(p.o.poll*5, pauseCheckEvery/4))
	return false, nil
}

// holdBack checks the crawls pop had not served before in a batch it
// popped: if one of them is paused, it gives the whole batch back to the
// queue at once (unfetched, no retry counted) and returns true.
func (p *popper) holdBack(bg context.Context, res frontier.PopResult) (bool, error) {
	fresh := p.pause.learn(res.Leased, p.now())
	if len(fresh) == 0 {
		return false, nil
	}
	paused, err := p.pause.read(bg, p.fr, fresh)
	if err != nil || !paused {
		return false, err
	}
	leases := make([]string, len(res.Leased))
	for i, l := range res.Leased {
		leases[i] = l.Lease
	}
	_, err = p.fr.Apply(bg, frontier.Batch{Releases: leases}, p.now())
	return true, err
}

// tellPaused writes a pause record, {"kind":"pause","crawlid":ID}, once
// for each crawl found paused: a tool downstream holding the crawl's
// requests (cthrottle) gives them back to the frontier unfetched (release
// records, which cqueue push applies), rather than fetching them for as
// long as their slots take; cqueue push drops the record at the end of
// the loop.
func (p *popper) tellPaused() error {
	if p.pause.told == nil {
		p.pause.told = map[string]bool{}
	}
	for id := range p.pause.paused {
		if p.pause.told[id] {
			continue
		}
		p.pause.told[id] = true
		b, err := json.Marshal(struct {
			Kind    string `json:"kind"`
			CrawlID string `json:"crawlid"`
		}{kindPause, id})
		if err != nil {
			return err
		}
		if err := p.w.WriteLine(b); err != nil {
			return err
		}
	}
	return nil
}
