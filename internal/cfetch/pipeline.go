package cfetch

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// pipeline moves records from the reader through the scheduler loop to the
// workers and the emitter, and from them to the single writer. Every record
// read is written exactly once, or counted as dropped.
//
//	reader ──in──▶ loop ──▶ scheduler ◀── report ── workers ──out──▶ writer
//	                          │    └──go work──▶      ▲
//	                          └──emit──▶ emitter ──out─┘
//
// The scheduler is guarded by one mutex and never blocks. A worker that
// finishes an exchange reports to it and takes its next job at once. The
// loop never blocks except in its select: it
// reads input while few records are held, or while requests could run but
// none of those held can start (a slow host's requests wait in memory
// while the input is searched for other hosts' work), never past
// --read-ahead (the back-pressure on stdin); it starts every job the
// scheduler allows, and
// hands records that need no fetch (other kinds, robots.txt denials) to
// the emitter, which writes them in order.
type pipeline struct {
	tool  *cli.Tool
	fetch *Fetcher
	opts  *Options
	w     *ndjson.Writer
	sched *scheduler
	count *counters
	holds *holdWriter // nil without --throttle-db or --throttle-redis

	// mu guards sched: the loop (new input, timers) and the workers and
	// emitter (reports) all drive it.
	mu       sync.Mutex
	in       chan *job     // reader → loop
	kick     chan struct{} // workers, emitter → loop: the scheduler changed
	emit     chan emitItem // scheduler → emitter
	out      chan outLine  // workers, emitter → writer
	stop     context.CancelFunc
	fetchCtx context.Context
	// ctx is the run's context, readCtx the reader's (also cancelled by
	// a write error): once either is done, no job starts (stopping).
	ctx, readCtx context.Context

	limbo    atomic.Int64 // jobs read but not yet taken by the loop
	inFlight atomic.Int64
	acks     atomic.Int64 // acks of rejected lines written (not input records)

	progressMu   sync.Mutex
	progressText string

	// lag, when set, runs in the worker between the decision to start a
	// job and its exchange: tests hold a request there, as a loaded
	// machine does, to see where the delay is counted (scheduler_wire.go).
	lag func(*job)
}

// emitItem is a line to write as it is, or a job to answer without a
// fetch.
type emitItem struct {
	line   []byte
	ack    bool   // line is the ack of a rejected input line
	passed string // line is a record of this kind, passed through
	a      *answer
}

// outLine is a line for the writer, with the memory it holds in the budget
// (released once it is written, or discarded).
type outLine struct {
	b      []byte
	res    *reservation
	ack    bool   // the ack of a rejected input line
	passed string // the kind of a record passed through
	// released says the line is a request an interrupt handed back,
	// counted "released" once written, as Out is.
	released bool
	// resp is what the line counts once written, when it is a response.
	resp *respCounts
}

func newPipeline(tool *cli.Tool, f *Fetcher, opts *Options, w *ndjson.Writer) *pipeline {
	p := &pipeline{
		tool:  tool,
		fetch: f,
		opts:  opts,
		w:     w,
		sched: newScheduler(opts),
		count: newCounters(),
		in:    make(chan *job),
		kick:  make(chan struct{}, 1),
		emit:  make(chan emitItem, opts.readAhead()+1),
		out:   make(chan outLine, opts.Concurrency),
	}
	p.sched.count = p.count.add
	if f.cache != nil {
		f.cache.Count = func(event string) { p.count.add("cache", event) }
	}
	f.render.count = func(event string) { p.count.add("render", event) }
	f.render.logf = tool.Printf
	p.sched.throttled = f.render.pace.throttled
	if opts.ThrottleDebug {
		p.sched.debug = func(line string) { tool.Printf("%s", line) }
	}
	p.shareRests()
	return p
}

// run processes the whole input and returns when every record read has been
// written (or dropped). When ctx is cancelled it stops reading, drops the
// requests not yet started, and still finishes the exchanges in flight.
// It does not wait for the reader, which may be blocked on a silent input.
func (p *pipeline) run(ctx context.Context, r *ndjson.Reader) {
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	p.stop = stop
	p.ctx, p.readCtx = ctx, readCtx
	// Fetches are not cancelled by an interrupt: they carry their own
	// timeouts.
	p.fetchCtx = context.WithoutCancel(ctx)
	// A request line too broken to read that holds a lease is answered,
	// so that the crawl loop settles it (as dead) instead of renewing its
	// lease forever.
	p.tool.LeasePath = []string{"lease"}
	p.tool.Answer = p.answer
	p.holds.start()
	go p.read(readCtx, r)
	var emitters sync.WaitGroup
	emitters.Go(p.emitter)
	go func() {
		p.loop(ctx, readCtx)
		close(p.emit)
		emitters.Wait()
		close(p.out)
	}()
	p.write()
	p.holds.close()
	st := p.tool.Stats
	if cli.Interrupted(ctx) {
		// Every record read and neither written nor dropped yet was read
		// just as the run stopped (the reader may still hold one): dropped.
		for n := st.In.Load() - (st.Out.Load() - p.acks.Load()) - st.Dropped(); n > 0; n-- {
			st.Drop("interrupted")
		}
	} else if n := p.limbo.Load(); n > 0 {
		// Read just as the run was stopped, never taken.
		for range n {
			st.Drop(p.dropReason(ctx))
		}
	}
	p.count.flush(p.tool.Stats)
	if n := p.fetch.robotsBytes.Load(); n > 0 {
		p.tool.Stats.Count("robots", "bytes", n)
	}
}

func (p *pipeline) dropReason(ctx context.Context) string {
	if cli.Interrupted(ctx) {
		return "interrupted"
	}
	return "not_fetched"
}

// loop admits input into the scheduler and wakes it on time, until the
// input is over and nothing is held or running. Workers report to the
// scheduler themselves (report), so that a worker starts its next job
// without a round trip through the loop; they poke the loop afterwards.
func (p *pipeline) loop(ctx, readCtx context.Context) {
	s := p.sched
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	inputOpen := true
	soft, hard := p.opts.softReadAhead(), p.opts.readAhead()
	var lastProgress time.Time
	for {
		p.mu.Lock()
		now := time.Now()
		p.startLocked(now, false)
		if s.interrupted {
			inputOpen = false
		}
		if !inputOpen && s.done() {
			p.mu.Unlock()
			return
		}
		var in chan *job
		var stopped <-chan struct{}
		if !s.interrupted {
			// An interrupt (or a write error) also stops a run whose input
			// is all read.
			stopped = readCtx.Done()
		}
		if inputOpen {
			// Read on while under the soft limit; past it, only while a
			// request could run but none can start (every held request's
			// host is busy, delayed or paused): the input may hold work for
			// other hosts. At the hard limit, stop: back-pressure.
			if s.held < soft || s.held < hard && s.active < p.opts.Concurrency {
				in = p.in
			}
		}
		var wake <-chan time.Time
		if at := s.wake(now); !at.IsZero() {
			timer.Reset(max(at.Sub(now), 0))
			wake = timer.C
		}
		if now.Sub(lastProgress) >= time.Second {
			lastProgress = now
			s.evict(now)
			p.setProgressLocked(now)
		}
		p.mu.Unlock()
		select {
		case j, ok := <-in:
			if !ok {
				inputOpen = false
				break
			}
			if !j.ack {
				p.limbo.Add(-1)
			}
			p.mu.Lock()
			s.hold()
			if j.ready != nil {
				p.emit <- emitItem{line: j.ready, ack: j.ack, passed: j.passed}
			} else {
				s.add(j, time.Now())
			}
			p.mu.Unlock()
		case <-p.kick:
		case <-wake:
		case <-stopped:
			inputOpen = false
			p.mu.Lock()
			p.interruptLocked()
			p.mu.Unlock()
		}
		timer.Stop()
	}
}

// startLocked starts every job the scheduler allows now, each in a new
// worker goroutine, except the first when keepFirst is set: that one is
// returned for the caller (a worker) to run. Once the run is stopping it
// interrupts the scheduler first, whoever calls (the loop, or a worker
// that has just finished an exchange and would take its next job): no job
// starts after an interrupt. It also hands the scheduler's answers to the
// emitter; the emit channel holds as many items as records may be held,
// so that never blocks. p.mu must be held.
func (p *pipeline) startLocked(now time.Time, keepFirst bool) (first *job) {
	if p.stopping() {
		p.interruptLocked()
	}
	for j := p.sched.next(now); j != nil; j = p.sched.next(now) {
		if keepFirst && first == nil {
			first = j
			continue
		}
		go p.work(j)
	}
	for _, a := range p.sched.takeAnswers() {
		p.emit <- emitItem{a: &a}
	}
	return first
}

// stopping reports whether the run is being stopped: interrupted, or the
// output failed. It checks the run's context itself too, which is done
// as soon as the interrupt happens, whether or not it has reached readCtx.
func (p *pipeline) stopping() bool {
	return p.ctx != nil && (p.ctx.Err() != nil || p.readCtx.Err() != nil)
}

// interruptLocked stops the scheduler, once: the requests not yet started
// are dropped and counted. p.mu must be held.
func (p *pipeline) interruptLocked() {
	if p.sched.interrupted {
		return
	}
	reason := p.dropReason(p.ctx)
	for range p.sched.interrupt() {
		p.tool.Stats.Drop(reason)
	}
}

// report hands a finished exchange to the scheduler and returns the next
// job for the reporting worker, if any.
func (p *pipeline) report(f *finish, keepFirst bool) *job {
	p.mu.Lock()
	now := time.Now()
	p.sched.finish(f, now)
	j := p.startLocked(now, keepFirst)
	p.mu.Unlock()
	// The loop re-checks the input and its timer.
	select {
	case p.kick <- struct{}{}:
	default:
	}
	return j
}

// documentDone hands the scheduler the end of the exchange of j's
// rendered page (started at start), whose document has been read while
// the page goes on in the browser, and starts what its slot allows.
func (p *pipeline) documentDone(j *job, start time.Time) {
	p.mu.Lock()
	now := time.Now()
	p.sched.documentDone(j, start, now)
	p.startLocked(now, false)
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// work makes exchanges, j's and then whatever the scheduler gives it next;
// a finished job's record goes to the writer before the report.
func (p *pipeline) work(j *job) {
	for j != nil {
		p.inFlight.Add(1)
		ctx := p.wire(j)
		if p.fetch.wantsRender(j) {
			start := j.thisStart
			j.documentDone = func() { p.documentDone(j, start) }
		}
		f := p.fetch.step(ctx, j)
		p.inFlight.Add(-1)
		switch f.kind {
		case finDone:
			p.writeResponse(j, f.resp)
			f.resp = nil
		case finRetry:
			reason := strconv.Itoa(f.status)
			if j.last != nil && j.last.err != nil {
				reason = j.last.err.Code
			}
			p.count.add("retries", reason)
		}
		j = p.report(f, true)
	}
}
