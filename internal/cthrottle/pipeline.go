package cthrottle

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/throttle"
)

// The pipeline is three goroutines: the reader parses and keys the input;
// the reserver reserves each request's slot (a batch of records per round
// trip to the store, fetching robots.txt on the side); the releaser holds
// each record until its slot and writes it. A record waits for its own
// key only. The records held anywhere between reading and writing are
// bounded by --buffer (sem): when it is full, reading stops.
type pipeline struct {
	o       *Options
	tool    *cli.Tool
	keys    *keyer
	table   *throttle.Table
	store   throttle.Store
	w       *ndjson.Writer
	rejects *ndjson.Writer
	robots  *robotsFetcher // nil without --robots

	sem    chan struct{} // one per record held
	in     chan *item    // reader → reserver
	out    chan *item    // reserver → releaser
	stop   chan struct{} // closed to stop reading (stopReading)
	once   sync.Once
	parked atomic.Int64 // records waiting for a robots.txt

	failed    atomic.Bool // a failure stops the run
	rejectsMu sync.Mutex  // --rejects is written by the reserver and the releaser
	seq       uint64      // the reader's count of records
	// checkHolds: the state is shared, and the releaser reads the holds
	// others write into it (holdAgain).
	checkHolds bool
	holdsTold  atomic.Bool

	// Owned by the reserver.
	lastPurge  time.Time
	purgeTold  bool
	robotsSeen map[string]robotsPolicy
	lastAt     map[string]time.Time // by key: when its last record is written

	// Owned by the releaser, read after it ends.
	writeFailed bool
	waited      struct {
		n        int64
		total    time.Duration
		longest  time.Duration
		released int64
	}
}

// item is one record on its way through.
type item struct {
	pos    string
	raw    []byte
	class  class
	key    string
	origin string
	leased bool
	// crawl and lease name a leased request, for a pause of its crawl;
	// pause is the crawl a pause record names.
	crawl, lease, pause string

	rate    throttle.Rate // set when it is reserved
	maxWait time.Duration

	at       time.Time     // when to write it; zero: at once
	slot     time.Time     // its slot on the store's clock (--debug)
	wait     time.Duration // how long it was held
	released bool          // written unthrottled because of a signal
	ready    bool          // to be handed to the releaser
	seq      uint64        // order in the input: ties of at, and a key's order
	index    int           // in the releaser's heap; -1: not in it
}

func newPipeline(o *Options, tool *cli.Tool, keys *keyer, table *throttle.Table, store throttle.Store, w, rejects *ndjson.Writer) *pipeline {
	p := &pipeline{
		o: o, tool: tool, keys: keys, table: table, store: store, w: w, rejects: rejects,
		sem:        make(chan struct{}, o.Buffer),
		in:         make(chan *item, min(o.Buffer, 1024)),
		out:        make(chan *item, o.Buffer),
		stop:       make(chan struct{}),
		robotsSeen: map[string]robotsPolicy{},
		lastAt:     map[string]time.Time{},
		lastPurge:  time.Now(),
	}
	_, local := store.(*throttle.Local)
	p.checkHolds = !local
	if o.Robots {
		p.robots = newRobotsFetcher(o.RobotsAgent, o.RobotsMaxDelay)
	}
	return p
}

// gauges are the levels for --stats-every.
func (p *pipeline) gauges() map[string]int64 {
	return map[string]int64{"held": int64(len(p.sem)), "waiting_for_robots": p.parked.Load()}
}

// run reads r to its end (or a failure, or an interrupt) and writes every
// record it read, each at its slot.
func (p *pipeline) run(ctx context.Context, r *ndjson.Reader) {
	go p.read(ctx, r)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.release(ctx)
	}()
	p.reserve(ctx)
	<-done
	if cli.Interrupted(ctx) {
		// Read just as the run stopped, never handed on.
		st := p.tool.Stats
		if n := st.In.Load() - st.Out.Load() - st.Dropped(); n > 0 {
			st.DropN("interrupted", n)
		}
	}
	if p.waited.n > 0 {
		p.tool.Stats.Count("held_ms", "avg", (p.waited.total / time.Duration(p.waited.n)).Milliseconds())
		p.tool.Stats.Count("held_ms", "max", p.waited.longest.Milliseconds())
	}
	if p.waited.released > 0 {
		p.tool.Stats.Count("interrupted", "released", p.waited.released)
	}
}

// read parses and keys each line and hands it to the reserver, once the
// buffer has room for it.
func (p *pipeline) read(ctx context.Context, r *ndjson.Reader) {
	defer close(p.in)
	for line, rec := range cli.RecordsFunc(ctx, p.tool, r, nil, parseLine) {
		c, key, origin, leased, err := p.keys.classify(rec)
		if err != nil {
			p.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
			continue
		}
		p.seq++
		it := &item{pos: line.Pos(), raw: rec.env.Raw, class: c, key: key, origin: origin, leased: leased, seq: p.seq, index: -1}
		switch {
		case leased:
			it.crawl, _ = stringField(rec.fields, "crawlid")
			it.lease, _ = stringField(rec.fields, "lease")
		case c == classPass && rec.env.Kind == kindPause:
			it.pause, _ = stringField(rec.fields, "crawlid")
		}
		select {
		case p.sem <- struct{}{}:
		case <-p.stop:
			p.tool.Stats.Drop(stopReason(ctx))
			return
		}
		select {
		case p.in <- it:
		case <-p.stop:
			p.done(it, stopReason(ctx))
			return
		}
	}
}

// stopReading makes the reader stop (after a failure, or an interrupt
// when the input is not drained): what it still holds is dropped.
func (p *pipeline) stopReading() { p.once.Do(func() { close(p.stop) }) }

// stopReason is why a record read but not handed on is dropped.
func stopReason(ctx context.Context) string {
	if cli.Interrupted(ctx) {
		return "interrupted"
	}
	return "not_passed"
}

// done accounts for a record that is not written, and frees its place.
func (p *pipeline) done(it *item, reason string) {
	p.tool.Stats.Drop(reason)
	<-p.sem
}

// debugf prints a --debug line.
func (p *pipeline) debugf(format string, a ...any) {
	if p.o.Debug {
		p.tool.Printf(format, a...)
	}
}

// slotString writes a time as Unix seconds to the microsecond, as --debug
// shows slots.
func slotString(t time.Time) string {
	us := t.UnixMicro()
	return fmt.Sprintf("%d.%06d", us/1e6, us%1e6)
}
